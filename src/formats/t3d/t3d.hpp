#pragma once
// MaSzyna's text model, T3D (notes e3d-t3d.md §5, §6 and §9): submodel blocks read with the
// scenery tokenizer, built the way the engine's loader builds them (normals from smoothing masks,
// degenerate and oversized triangles dropped, vertices merged within a window), then converted to
// E3D as the engine's converter does it: the axis rotation, the optional "banana" root, the
// flags gathered over the tree, the submodel order of its writer and its float vertices.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "formats/e3d/e3d.hpp"

namespace sceneria::t3d {

// The engine's conversion switches (its `iConvertModels` bits and the model's use).
struct Options {
  bool vehicle = true;         // a vehicle's model (`dynamic`): only a vehicle gets a banana
  bool banana = true;          // bit 4: a vehicle whose root has siblings gets an empty root above them
  bool flatten = true;         // bit 2: a leaf's own matrix is multiplied into its vertices
  bool float_vertices = true;  // bit 8: VNT2 (48-byte float vertices); otherwise VNT1, packed
};

struct Vertex {
  std::array<float, 3> position{}, normal{};
  std::array<float, 2> uv{};
  std::array<float, 4> tangent{};
};

// One submodel block, as read and as the loader built it.
struct Submodel {
  std::uint32_t line = 0, column = 0;  // where its `Parent:` keyword is
  std::uint64_t offset = 0;
  std::string parent_name;             // as written (the lookup ignores case)
  std::string name;                    // as written
  std::string type_token;              // lower-cased: mesh, point, freespotlight, text, stars
  std::int32_t type = e3d::rotator;
  std::string anim_token = "false";
  std::int32_t anim = 0;               // the engine's TAnimType
  std::string map;                     // lower-cased, '\' as '/'; empty for types without a map
  std::int32_t material = 0;           // 0 none, -1..-4 replaceable skin, 1 a named material (`material_name`)
  std::string material_name;           // "colored" for `Map: none`
  std::array<float, 4> ambient{1, 1, 1, 1}, diffuse{1, 1, 1, 1}, specular{0, 0, 0, 1}, emission{1, 1, 1, 1};
  float self_illum = -1, wire_size = 0, opacity = 1;
  float max_distance_sq = 1e8f, min_distance_sq = 0;
  e3d::Light light{40, 80, 0, 0, 100, 0.5f, 0.3f, 0};
  float diffuse_multiplier = 0;        // 0: not given (HotspotPower sets it)
  std::array<float, 16> matrix{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  bool matrix_given = true;            // false only for the converter's banana
  std::uint32_t flags = 0x0200;        // the loader's iFlags
  float scale_stack = 1;               // the merge tolerance's scale: the matrices' down the chain
  std::string geometry;                // "legacy", "indexed" or "" (none)
  std::uint32_t vertices_in_file = 0, indices_in_file = 0;
  std::uint32_t explicit_normal_vertices = 0, degenerate_dropped = 0, oversized_dropped = 0;
  std::vector<std::uint32_t> smoothing_masks;  // distinct masks used, ascending
  std::vector<Vertex> vertices;
  std::vector<std::uint32_t> indices;
  std::vector<std::array<float, 4>> user_data;
  // The tree as the loader links it (indices into Model::submodels, -1 for none).
  std::int32_t parent = -1, next = -1, child = -1;
  bool parent_found = false;
};

struct Model {
  std::vector<Submodel> submodels;     // in file order (the banana, when added, last)
  std::int32_t root = -1;              // first of the root chain
  std::vector<std::string> includes;   // listed, not expanded
  std::vector<Warning> warnings;
  std::uint32_t index_total = 0, vertex_total = 0;  // the loader's m_indexcount / m_vertexcount
};

// Reads and builds a model (the loader's work does not depend on the conversion's options);
// errors carry the line and column of the token at fault.
Result<Model> read_model(std::span<const std::uint8_t> bytes);
// What the engine's converter writes for it (the model is changed on the way: rotated, flagged).
e3d::Model to_e3d(Model model, const Options& options = {});

}  // namespace sceneria::t3d
