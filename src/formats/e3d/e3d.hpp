#pragma once
// MaSzyna's binary model, E3D (notes e3d-t3d.md §1-4 and §9): an `E3D0` chunk holding submodel
// records (SUB0/SUB1), a vertex pool (VNT0-6), an index pool (IDX1/2/4), matrices (TRA0/TRA1),
// texture and submodel names (TEX0, NAM0). The pools stay as the file's bytes (a model is mostly
// its pools, and they are written back as they came); vertex() and index() decode one entry.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sceneria::e3d {

// The submodel types that are not GL primitives (notes §3).
enum SubmodelType : std::int32_t { points = 0, lines = 1, triangles = 4, rotator = 256, free_spotlight = 257, stars = 258, text = 259 };

// iFlags bits a viewer tests; the field carries more (§9.3: mask before testing).
namespace flag {
constexpr std::uint32_t opaque = 0x10, translucent = 0x20;
}

struct Light {
  float near_atten_start = 0, near_atten_end = 0;
  std::uint32_t use_near_atten = 0;
  std::int32_t far_atten_decay = 0;
  float far_decay_radius = 0, cos_falloff = 0, cos_hotspot = 0, cos_view = 0;
};

// One SUB record, every field by its offset; `record` keeps the whole record as read (its padding
// included), which the writer starts from.
struct Submodel {
  std::int32_t next = -1, child = -1;  // valid only when > 0
  std::int32_t type = triangles;
  std::int32_t name = -1;  // NAM0 index
  std::int32_t anim = 0;
  std::uint32_t flags = 0;
  std::int32_t matrix = -1;  // TRA index
  std::int32_t vertex_count = 0, vertex_offset = 0;
  std::int32_t texture = 0;  // > 0 TEX0 index, 0 colored, -1..-4 replaceable skin
  float visible = 0, self_illum = 0;
  std::array<float, 4> ambient{}, diffuse{}, specular{}, emission{};
  float wire_size = 0;
  float max_distance_sq = 0, min_distance_sq = 0;
  Light light;
  std::int32_t index_count = 0, index_offset = 0;
  float diffuse_multiplier = 0;
  std::vector<std::uint8_t> record;
  // Linked as the engine links them (roots: 0 and its next chain): -1 for a root.
  std::int32_t parent = -1;
};

struct Vertex {
  std::array<float, 3> position{}, normal{};
  std::array<float, 2> uv{};
  std::array<float, 4> tangent{};  // w: handedness; zero where the variant has none (VNT0, VNT4)
  std::array<float, 4> user{};     // VNT4-6
};

// Where a chunk was, in file order: what the writer walks.
struct ChunkInfo {
  std::array<char, 4> id{};
  std::uint64_t offset = 0, size = 0;  // size includes the 8-byte header
  std::vector<std::uint8_t> unknown;   // the payload of a chunk the reader does not know (or a second VNT/IDX)
  bool open_end = false;               // TEX0/NAM0: the last string has no NUL before the chunk's end
};

struct Model {
  std::vector<ChunkInfo> chunks;
  int sub_variant = 0;                            // SUB0 (256-byte records) or SUB1 (320)
  std::vector<Submodel> submodels;
  bool matrices_f64 = false;                      // TRA1
  std::vector<std::array<double, 16>> matrices;   // column-major, translation in 12-14
  // TRA0 as read: written back while `matrices` still says the same, because a signalling NaN
  // does not survive float -> double -> float (the conversion quiets it).
  std::vector<std::uint8_t> matrix_bytes;
  bool matrix_bytes_current() const;  // whether matrix_bytes still holds `matrices`
  int vertex_variant = -1;                        // VNT digit; -1 without a vertex pool
  std::vector<std::uint8_t> vertex_bytes;
  int index_size = 0;                             // IDX digit; 0 without an index pool
  std::vector<std::uint8_t> index_bytes;
  std::vector<std::string> textures, names;       // as stored (TEX0 entry 0 is "")
  std::vector<std::uint8_t> trailing;             // bytes after the E3D0 chunk, which the engine never reads

  std::size_t vertex_stride() const;
  std::size_t vertex_total() const;
  std::size_t index_total() const { return index_size ? index_bytes.size() / static_cast<std::size_t>(index_size) : 0; }
  // Entry `i` of the whole pool (a submodel's vertices start at its vertex_offset; its indices
  // at index_offset, and are local to its vertex block).
  Vertex vertex(std::size_t i) const;
  std::uint32_t index(std::size_t i) const;
  // A submodel's name, "" when it has none.
  std::string_view name_of(const Submodel& s) const;
  // What the engine draws it with: a TEX0 path ('\' as '/'), "colored", or "replaceable skin n".
  std::string material_of(const Submodel& s) const;
  // Hidden until lights or events switch it on (§4, §9.2): Light_On* always; in a vehicle also
  // names ending in _on.
  bool hidden_by_default(const Submodel& s, bool vehicle) const;
};

// Reads a whole file. Errors name the chunk and offset (`chunk VNT2 at 0x400: ...`); a model
// that reads has every submodel's blocks, names, texture and links within the file.
Result<Model> read_model(std::span<const std::uint8_t> bytes);
// Writes chunks in the model's order (`chunks`), each from the model's fields: a model read from
// a file gives back that file byte for byte.
std::vector<std::uint8_t> write_model(const Model& model);
// A model built in memory (a converter's) as read_model gives it from its written bytes: chunk
// offsets, parents and records set as a file's are. Its vertex and index pools are moved into the
// result rather than copied again; when the bytes do not read, the error, and `built` is as it was.
Result<Model> reread_model(Model& built);

}  // namespace sceneria::e3d
