#pragma once
// EU7B records exactly as stored: every on-disk float stays a float, every flag and "bool" byte
// keeps its raw value, string references stay string ids. That is what makes read -> write
// byte-identical; conversion to scenery units (doubles, resolved names) happens in to-scene code.
//
// Variable-length parts of the high-volume model records (light states, colours, transform
// contexts) live in pools owned by the list that holds the records, so a million models are a
// few flat arrays rather than a million small allocations.
#include <array>
#include <memory>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "io/byte_source.hpp"

namespace sceneria::eu7b {

// A non-fatal finding (validate prints these): the bytes decode, but something is inconsistent.
struct Problem {
  std::uint64_t offset = 0;
  std::string message;
};

using Sid = std::uint32_t;  // index into STRS
constexpr Sid kNoString = 0xFFFFFFFFu;
constexpr std::uint16_t kNoIndex = 0xFFFF;  // v13 mesh/texture index: none
constexpr std::uint8_t kNoCell = 255;       // no cell byte (formats before v13)
constexpr std::int32_t kNoTransform = -1;

struct Vec3f {
  float x = 0, y = 0, z = 0;
};

struct Span32 {  // a run in a pool
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

// Slim node flags (bit meanings from the spec, §6).
namespace node_flag {
constexpr std::uint8_t name = 1 << 0;
constexpr std::uint8_t range_min = 1 << 1;
constexpr std::uint8_t range_max = 1 << 2;
constexpr std::uint8_t bounds = 1 << 3;
constexpr std::uint8_t group = 1 << 4;
constexpr std::uint8_t transform = 1 << 5;
constexpr std::uint8_t not_visible = 1 << 6;
}  // namespace node_flag

struct TransformContext {
  std::vector<Vec3f> origins;  // cumulative; the last is the effective offset
  std::vector<Vec3f> scales;
  Vec3f rotation;  // degrees
  std::uint8_t group_depth = 0;
};

struct SlimNode {
  std::uint8_t flags = 0;
  Sid name = kNoString;
  float range_sq_min = 0.0f;
  float range_sq_max = std::numeric_limits<float>::infinity();
  Vec3f bounds_center;
  float bounds_radius = 0.0f;
  std::uint32_t group = 0;
  std::int32_t transform = kNoTransform;  // index into the owning list's `transforms`
};

struct Lighting {
  std::array<float, 4> diffuse{0.8f, 0.8f, 0.8f, 1.0f};
  std::array<float, 4> ambient{0.2f, 0.2f, 0.2f, 1.0f};
  std::array<float, 4> specular{0.0f, 0.0f, 0.0f, 1.0f};
};

struct PackedVertex {  // 22 bytes on disk
  float position[3] = {0, 0, 0};
  std::int16_t normal[3] = {0, 0, 0};  // snorm16
  std::uint16_t uv[2] = {0, 0};        // IEEE half
};

// ---- STRS-referencing chunk records ----

struct Include {
  std::uint32_t source_line = 0;
  Sid source_path = kNoString;
  Sid binary_path = kNoString;
  std::vector<Sid> parameters;
  TransformContext site;  // present on disk from version 6
};

struct Placement {  // PLAC: include parameter numbers (0 = none)
  std::uint8_t origin_x = 0, origin_y = 0, origin_z = 0, rotation_y = 0;
};

struct TrackPath {
  Vec3f p1;
  float roll1 = 0;
  Vec3f cp_out;  // control vectors relative to p1 / p2 (notes §9)
  Vec3f cp_in;
  Vec3f p2;
  float roll2 = 0;
  float radius = 0;
};

struct TrackTail {
  std::uint8_t code = 0;  // 1-18 predefined keyword, 255 custom
  Sid custom_key = kNoString;
  Sid value = kNoString;
};

struct TrackVisibility {
  Sid material1 = kNoString;
  float tex_length = 0;
  Sid material2 = kNoString;
  float tex_height1 = 0, tex_width = 0, tex_slope = 0;
};

struct Track {
  SlimNode node;
  std::uint8_t type = 0, category = 0;
  float length = 0, width = 0, friction = 0, sound_distance = 0;
  std::int32_t quality = 0, damage = 0;
  std::uint8_t environment = 0;     // enum + 1
  std::uint8_t has_visibility = 0;  // raw byte; non-zero means `visibility` is stored
  TrackVisibility visibility;
  std::vector<TrackPath> paths;
  std::vector<TrackTail> tails;
};

struct Traction {
  SlimNode node;
  Sid power_supply = kNoString;
  std::uint8_t material = 0;
  float nominal_voltage = 0, max_current = 0, resistivity = 0, resistivity_legacy = 0;
  Sid material_raw = kNoString;
  float wire_thickness = 0;
  std::int32_t damage = 0;
  Vec3f p1, p2, p3, p4;
  float min_height = 0, segment_length = 0;
  std::int32_t wire_count = 0;
  float wire_offset = 0;
  std::uint8_t has_parallel = 0;
  Sid parallel = kNoString;
};

struct PowerSource {
  SlimNode node;
  Vec3f position;
  float nominal_voltage = 0, frequency = 0, internal_resistance_legacy = 0, internal_resistance = 0;
  float max_output_current = 0, fast_fuse_timeout = 0, fast_fuse_repetition = 0, slow_fuse_timeout = 0;
  std::uint8_t modifier = 0;  // 0 none, 1 recuperation, 2 section
};

struct TerrainBatch {
  std::int32_t section_x = 0, section_z = 0;  // section indices; the runtime ignores them
  std::vector<PackedVertex> vertices;
};

namespace terrain_flag {
constexpr std::uint8_t translucent = 1 << 0;
constexpr std::uint8_t lighting = 1 << 1;
constexpr std::uint8_t batched = 1 << 2;
}  // namespace terrain_flag

struct Terrain {  // one TERR chunk: no leading count (notes §8)
  std::uint8_t flags = 0;
  Sid material = kNoString;
  Lighting lighting;
  std::vector<TerrainBatch> batches;  // batched mode
  std::vector<PackedVertex> legacy;   // legacy mode: 3 vertices per triangle
};

struct Shape {  // MESH record
  std::uint8_t subtype = 0;  // 0 triangles, 1 strip, 2 fan (already triangulated)
  SlimNode node;
  std::uint8_t translucent = 0;
  Sid material = kNoString;
  std::uint8_t has_lighting = 0;
  Lighting lighting;
  Vec3f origin;
  std::vector<PackedVertex> vertices;
};

struct Line {
  std::uint8_t subtype = 0;  // 0 lines, 1 strip, 2 loop
  SlimNode node;
  std::uint8_t has_lighting = 0;
  Lighting lighting;
  float width = 0;
  Vec3f origin;
  std::vector<Vec3f> vertices;
};

struct MemCell {
  SlimNode node;
  Sid text = kNoString;
  float value1 = 0, value2 = 0;
  Sid track = kNoString;
};

struct EventLauncher {
  SlimNode node;
  Vec3f location;
  float radius_sq = 0;
  Sid activation_key_raw = kNoString;
  std::int32_t activation_key = 0;
  float delta_time = 0;
  Sid event1 = kNoString, event2 = kNoString;
  std::int32_t hour = 0, minute = 0;
  std::uint8_t has_condition = 0;
  Sid memcell = kNoString, compare_text = kNoString;
  float compare_value1 = 0, compare_value2 = 0;
  std::int32_t check_mask = 0;
  std::uint8_t train_triggered = 0;
};

struct Dynamic {
  SlimNode node;
  Sid data_folder = kNoString, skin = kNoString, mmd = kNoString, track = kNoString;
  Sid driver_type = kNoString, load_type = kNoString, coupling_params = kNoString, coupling_raw = kNoString;
  float offset = 0;
  std::int32_t coupling = 0, load_count = 0;
  float velocity = 0;
  std::uint8_t has_destination = 0;
  Sid destination = kNoString;
  std::uint8_t has_trainset_index = 0;
  std::uint32_t trainset_index = 0;
};

struct Sound {
  SlimNode node;
  Vec3f location;
  Sid wav = kNoString;
};

struct KeyValue {
  Sid key = kNoString, value = kNoString;
};

struct Trainset {
  Sid name = kNoString, track = kNoString;
  float offset = 0, velocity = 0;
  std::vector<KeyValue> assignments;
  std::vector<std::uint32_t> vehicles;  // indices into the module's DYNM list
  std::vector<std::int32_t> couplings;
  std::uint32_t driver_index = 0;
};

struct Event {
  Sid name = kNoString;
  std::uint8_t type = 0;
  float delay = 0;
  std::vector<Sid> targets;
  float delay_random = 0, delay_departure = 0;
  std::uint8_t ignored = 0, passive = 0;
  std::vector<KeyValue> payload;
};

// ---- models (MODL, PACK solo, PROT) ----

struct Model {
  SlimNode node;
  std::uint8_t terrain = 0, transition = 0;
  Vec3f location, angles, scale;
  // String ids in MODL and PACK formats flat-5; in v13 (format 6) solo records these hold the
  // u16 mesh/texture index into the section's UMES/UTEX lists (kNoIndex = none).
  Sid model_file = kNoString;
  Sid texture = kNoString;
  Span32 lights;  // pool: ModelList::light_states
  Span32 colors;  // pool: ModelList::light_colors
  std::uint8_t cell = kNoCell;  // v13 only
};

struct ModelList {
  std::vector<Model> models;
  std::vector<float> light_states;
  std::vector<std::uint32_t> light_colors;
  std::vector<TransformContext> transforms;
};

struct Prototype {
  SlimNode node;
  std::uint8_t terrain = 0, transition = 0;
  Sid model_file = kNoString, texture = kNoString;
  Span32 lights, colors;  // pools: PrototypeList
  // Version 9 extras (notes §7).
  Sid resolved_texture = kNoString;
  std::uint8_t pack_flags = 0;
  std::uint32_t textures_alpha = 0;
  float baked_range_min = 0, baked_range_max = 0;
};

struct PrototypeList {
  std::vector<Prototype> prototypes;
  std::vector<float> light_states;
  std::vector<std::uint32_t> light_colors;
  std::vector<TransformContext> transforms;
};

struct PidxEntry {
  std::uint16_t row = 0, col = 0;
  std::uint32_t model_count = 0;
  std::uint64_t pack_offset = 0;  // from the first byte of the PACK payload
};

// ---- a chunk as it appears in the file ----

struct OpaqueChunk {  // unknown FourCC, or PACK kept undecoded: exact payload bytes
  std::vector<std::uint8_t> bytes;
};

struct StringsChunk {  // STRS: a run of the module's string table
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

template <class T>
struct RecordList {
  std::vector<T> records;
  std::vector<TransformContext> transforms;  // pool for the records' slim nodes
};

// ---- PACK sections (decoding: pack.hpp) ----

// The section format byte (notes §6). `flat` has no byte at all.
enum class SectionFormat : std::uint8_t { flat = 0, v8 = 1, umes = 2, chnk = 3, utex = 4, prot_inst = 5, v13 = 6 };

struct SectionChunkEntry {
  std::uint32_t solo = 0;    // formats 3/4: the chunk's model count
  std::uint32_t inst = 0;    // formats 5/6 only
  std::uint32_t offset = 0;  // from the section's first byte (the format byte), header included
};

struct Instance {
  std::uint32_t proto = 0;
  Vec3f location, angles, scale;
  Sid name = kNoString;
  std::uint8_t cell = kNoCell;  // v13 only
};

struct PackSection {
  std::uint64_t offset = 0;  // in the PACK payload
  SectionFormat format = SectionFormat::flat;
  std::uint32_t solo_count = 0, inst_count = 0;  // header totals (formats 1-6)
  std::vector<Sid> meshes;                       // UMES (formats 2-6)
  std::vector<Sid> textures;                     // UTEX (formats 4-6)
  std::vector<SectionChunkEntry> chunks;         // formats 3-6
  ModelList solo;                                // every chunk's solo records, in file order
  std::vector<Instance> inst;                    // every chunk's inst records, in file order
  std::vector<std::uint8_t> trailing;            // bytes after the last record

  std::size_t model_count() const { return solo.models.size() + inst.size(); }
};

// PACK is not decoded by the module header pass: only where its payload is. Loading keeps the
// exact bytes; decoding turns them into sections (pack.hpp).
struct PackChunk {
  std::uint64_t payload_offset = 0;  // in the source file
  std::uint64_t payload_size = 0;
  bool loaded = false;
  std::vector<std::uint8_t> raw;
  // Or the payload where it lies in a mapped file (ReadOptions::map_pack): read out a section at
  // a time (SharedBytes::copy, into one buffer), so the module is never resident whole.
  SharedBytes mapped;
  std::span<const std::uint8_t> bytes() const { return mapped.owner ? mapped.view : std::span<const std::uint8_t>(raw); }
  bool in_file() const { return mapped.owner != nullptr; }
  bool decoded = false;
  std::vector<std::uint8_t> prefix;    // bytes before the first section (none in real files)
  std::vector<PackSection> sections;   // in PACK byte order
};

using ChunkData = std::variant<OpaqueChunk,                  //
                               StringsChunk,                 // STRS
                               PackChunk,                    // PACK
                               std::vector<Include>,         // INCL
                               Placement,                    // PLAC
                               RecordList<Track>,            // TRAK
                               Terrain,                      // TERR
                               RecordList<Shape>,            // MESH
                               RecordList<Line>,             // LINE
                               ModelList,                    // MODL
                               RecordList<MemCell>,          // MEMC
                               RecordList<EventLauncher>,    // LAUN
                               RecordList<Dynamic>,          // DYNM
                               RecordList<Sound>,            // SOND
                               std::vector<Trainset>,        // TRSE
                               std::vector<Event>,           // EVNT
                               std::uint32_t,                // FINT
                               std::vector<PidxEntry>,       // PIDX
                               PrototypeList,                // PROT
                               RecordList<Traction>,         // TRAC
                               RecordList<PowerSource>>;     // PWRS

struct Chunk {
  std::uint32_t id = 0;
  std::uint64_t offset = 0;            // where it was read (0 for chunks built in memory)
  ChunkData data;
  std::vector<std::uint8_t> trailing;  // payload bytes after the records (kept for round trips)
  bool empty_payload = false;          // PROT with a 0-byte payload (notes §4)
};

}  // namespace sceneria::eu7b
