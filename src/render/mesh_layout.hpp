#pragma once
// A mesh as the instanced pass draws it: every vertex knows its part's material (a vertex shared
// by parts of different materials is copied, one per material), and the parts are put in an
// order where each run of parts drawn with the same GL state is one range of indices. The shader
// reads a vertex's material from a table, so one draw covers a run of parts with different
// colours and textures: a mesh costs one draw per run (usually one), not one per part.
// GL-free: tested natively (tests/render_test.cpp).
#include <cstdint>
#include <span>
#include <vector>

#include "scene/scene.hpp"

namespace sceneria {

struct MeshRun {
  std::uint32_t first = 0, count = 0;  // indices [first, first + count)
  std::uint32_t parts = 0;             // how many parts it draws
  bool blended = false;                // drawn after the opaque runs, without writing depth
  bool two_sided = false;              // drawn with back faces
};

struct MeshLayout {
  std::vector<float> vertices;            // 8 floats a vertex: position, normal, uv
  std::vector<std::uint32_t> materials;   // a vertex's material (into Scene::materials)
  std::vector<std::uint32_t> indices;     // opaque and masked parts first, blended after
  std::vector<scene::Part> parts;         // in `indices`' order, `first` into it
  std::vector<MeshRun> runs;              // consecutive parts of one pass and culling
};

// Parts keep their order within each pass (the order they were drawn in part by part, which
// decides coplanar ties). A triangle with an index past the vertices is left out (the GPU
// would refuse the whole draw); a mesh without parts is one part of material 0.
void lay_out_mesh(const scene::Mesh& mesh, std::span<const scene::Material> materials, MeshLayout& out);

}  // namespace sceneria
