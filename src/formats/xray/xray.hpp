#pragma once
// X-Ray SDK editor models (`.object`, S.T.A.L.K.E.R.; notes xray-object.md). A file is a tree
// of chunks (u32 id, u32 size, payload); bit 31 of an id marks a payload packed with LZHUF. The
// tree is kept whole, every chunk's bytes as read (a packed one's stream too), so any file is
// written back as it came; `Object` is what the chunks say, decoded from the tree.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sceneria::xray {

inline constexpr std::uint32_t kPackedBit = 0x80000000u;

// ---- the chunk tree ----

struct Chunk {
  std::uint32_t id = 0;      // without kPackedBit
  bool packed = false;       // stored LZHUF-compressed
  std::uint64_t offset = 0;  // of its header, in the file or in the unpacked payload it lies in
  std::vector<std::uint8_t> data;    // the payload (unpacked)
  std::vector<std::uint8_t> stream;  // a packed chunk's body as read: written back while `data` is what it unpacks to
};

struct ChunkList {
  std::vector<Chunk> chunks;
  std::vector<std::uint8_t> trailing;  // fewer than 8 bytes after the last chunk
  const Chunk* find(std::uint32_t id) const;
};

// The chunks of `bytes` (`base`: its offset for messages; `where`: "the file", "chunk 0x0910 at
// 0x24"). A packed chunk is unpacked (its size capped by its stream's).
Result<ChunkList> read_chunks(std::span<const std::uint8_t> bytes, std::uint64_t base, const std::string& where);
// A chunk id as the messages, the summary and the JSON form write it ("0x0910").
std::string chunk_id_text(std::uint32_t id);
// The chunks as bytes: a packed chunk from its stream while its data is what the stream
// unpacks to, else packed again.
std::vector<std::uint8_t> write_chunks(const ChunkList& list);

// ---- what the chunks say ----

struct Surface {
  std::string name, shader, compiler_shader, game_material, texture, vmap;
  std::uint32_t flags = 0;  // bit 0: two-sided
  std::uint32_t fvf = 0, uv_sets = 0;
  bool two_sided() const { return flags & 1; }
};

struct Face {
  std::array<std::uint32_t, 3> point{}, vmref{};
};

struct VMap {
  std::string name;
  std::uint8_t dim = 2;   // 2: UV, 1: weight
  std::uint8_t type = 0;  // 0: UV, 1: weight
  bool polymap = false;   // discontiguous: `faces` names each entry's face
  std::vector<float> data;
  std::vector<std::uint32_t> points, faces;  // VMAPS_2 only
  std::size_t size() const { return dim ? data.size() / dim : 0; }
};

struct SurfaceFaces {
  std::string surface;
  std::vector<std::uint32_t> faces;
};

struct Mesh {
  std::uint16_t version = 0;
  std::string name;
  std::uint8_t flags = 0;  // 0x1 visible, 0x2 locked, 0x4 sgmask
  std::array<float, 6> bbox{};
  std::vector<std::array<float, 3>> points;
  std::size_t adjacency_bytes = 0;  // old files' tail after the points
  std::vector<Face> faces;
  // VMREFS: ref r's (vmap, index) pairs are pairs[start[r] .. start[r + 1]).
  std::vector<std::uint32_t> vmref_start;
  std::vector<std::array<std::uint32_t, 2>> vmref_pairs;
  std::vector<SurfaceFaces> surfaces;
  int vmap_chunk = 0;  // 0x1007, 0x1011 or 0x1012 (0: none)
  std::vector<VMap> vmaps;
  std::vector<std::uint32_t> smoothing;  // SG, one per face (empty: none stored)
  std::vector<std::array<float, 3>> normals;  // 0x1014, three per face
  std::size_t vmref_count() const { return vmref_start.empty() ? 0 : vmref_start.size() - 1; }
};

struct Bone {
  std::string name, parent, weight_map, game_material;
  std::uint16_t version = 0;
  std::array<float, 3> offset{}, rotate{};
  float length = 0;
  std::uint16_t shape_type = 0, shape_flags = 0;
  std::uint32_t ik_type = 0, ik_flags = 0;
  float mass = 0;
  std::array<float, 3> centre_of_mass{};
  float break_force = 0, break_torque = 0, friction = 0;
};

struct BonePart {
  std::string alias;
  std::vector<std::string> bones;  // BONEPARTS2 names them; the old chunk's indices as numbers
};

struct Key {
  float value = 0, time = 0;
  std::uint8_t shape = 0;
  std::array<float, 7> tcb{};  // tension, continuity, bias, params (none for STEP)
};
struct Envelope {
  std::uint8_t pre = 0, post = 0;
  std::vector<Key> keys;
};
struct MotionBone {
  std::string name;
  std::uint32_t flags = 0;
  std::array<Envelope, 6> channels;  // position x, y, z, rotation h, p, b
};
struct Motion {
  std::string name;
  std::uint32_t frame_start = 0, frame_end = 0;
  float fps = 0;
  std::uint16_t version = 0;
  std::uint32_t flags = 0, bone_part = 0;
  std::array<float, 4> speed_accrue_falloff_power{};
  std::vector<MotionBone> bones;
};

struct Object {
  std::uint16_t version = 0;
  std::uint32_t flags = 0;
  std::size_t flags_width = 0;  // 1 in old files, else 4 (0: no chunk)
  int surface_chunk = 0;        // 0x0905, 0x0906 or 0x0907
  std::vector<Surface> surfaces;
  std::vector<Mesh> meshes;
  int bone_chunk = 0;  // 0x0913 or 0x0921
  std::vector<Bone> bones;
  std::vector<BonePart> bone_parts;
  std::vector<Motion> motions;
  std::string motion_refs, user_data, lod_ref;
  std::optional<std::array<float, 6>> actor_transform;  // position, rotation
  std::string creator, modifier;
  std::uint32_t create_time = 0, modify_time = 0;
  std::vector<std::uint32_t> unknown_chunks;  // kept in the tree, not decoded
};

struct File {
  ChunkList root;   // one chunk, 0x7777
  Object object;    // decoded from it
  std::vector<Warning> warnings;
};

// Reads a file: its chunk tree, then the object. An error names the chunk and offset; what an
// object can do without (an unreadable motion, a bone's shape) is a warning.
Result<File> read_object(std::span<const std::uint8_t> bytes);
std::vector<std::uint8_t> write_object(const File& file);

}  // namespace sceneria::xray
