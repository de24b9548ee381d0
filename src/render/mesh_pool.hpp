#pragma once
// Where meshes live on the GPU: ranges of a few shared buffers ("slabs"), so that the renderer
// binds one vertex array for all the meshes of a slab instead of one per mesh (a bind is a GL
// call through the browser's command buffer, hundreds of meshes a frame). A slab holds vertices
// and indices of many meshes; a mesh's indices are made absolute (its first vertex added) when
// it is uploaded, since WebGL2 has no base vertex. Slabs grow by doubling up to a cap, so a small
// scene keeps small buffers. A mesh leaving (the budget letting it go) must give its bytes back,
// or letting go would free nothing: a slab left with a hole, or mostly empty, is rebuilt to just
// what it holds (its meshes laid out and uploaded again, as a texture array is), which the cap
// keeps cheap.
// GL-free: the renderer makes, grows and fills the buffers this decides (tests/render_test.cpp).
#include <cstdint>
#include <vector>

namespace sceneria {

class MeshPool {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  // A slab grows past these only for a single mesh bigger than them (which gets its own).
  // 10 MB of vertices, 3 MB of indices: a rebuild stays cheap, and a few hundred meshes still
  // share a few slabs.
  static constexpr std::uint32_t kMaxVertices = 1u << 18, kMaxIndices = 3u << 18;
  struct Range {
    std::uint32_t first = 0, count = 0;
  };
  struct Slab {
    std::uint32_t vertex_capacity = 0, index_capacity = 0;
    std::uint32_t vertex_end = 0, index_end = 0;  // past the last range held; beyond is free
    std::vector<Range> vertex_holes, index_holes;  // free ranges below the ends, in order
    std::uint32_t vertices_held = 0, indices_held = 0, meshes = 0;
    bool live = false;
    unsigned vao = 0, vbo = 0, ids = 0, ibo = 0;  // the renderer's names
  };
  // Where a mesh goes: `slab` gets the capacities first if they are more than it has (a new slab
  // when it is kNone).
  struct Plan {
    std::uint32_t slab = kNone;
    std::uint32_t vertex_capacity = 0, index_capacity = 0;
    std::uint64_t bytes = 0;  // GPU bytes this adds
  };
  struct Place {
    std::uint32_t slab = kNone, vertex_first = 0, index_first = 0;
  };
  // Bytes a vertex (interleaved position, normal, uv; material and mesh numbers) and an index take.
  static constexpr std::uint64_t kVertexBytes = 32 + 8, kIndexBytes = 4;

  void reset() { slabs_.clear(); }
  // Cheapest first: holes or room within a slab's capacity; else the slab that grows least
  // (doubled, or by just what the mesh needs where `tight`); else a new slab of just this mesh's
  // size (it grows by doubling as more come).
  Plan plan(std::uint32_t vertices, std::uint32_t indices, bool tight) const;
  // Carries a plan out (a new slab's number is written to it). `grown` is set when the slab's
  // storage is new or bigger: the renderer makes it, keeping what it held.
  Place place(Plan& plan, std::uint32_t vertices, std::uint32_t indices, bool& grown);
  // The mesh leaves its ranges.
  void free(const Place& place, std::uint32_t vertices, std::uint32_t indices);
  // After meshes left: an empty slab is to go (`gone`: the renderer deletes its names, then drops
  // it); one with a hole, or whose ends fell to a quarter of its capacity, is to be rebuilt.
  void compact(std::vector<std::uint32_t>& rebuild, std::vector<std::uint32_t>& gone) const;
  // Empties a slab for a rebuild at the given capacities (its GL names kept for the renderer):
  // its meshes are then placed again, in order, from its start.
  void clear_slab(std::uint32_t slab, std::uint32_t vertex_capacity, std::uint32_t index_capacity);
  // Marks a slab gone (compact's `gone`, once the renderer deleted its names).
  void drop(std::uint32_t slab) { slabs_[slab] = Slab{}; }

  std::vector<Slab>& slabs() { return slabs_; }
  const std::vector<Slab>& slabs() const { return slabs_; }
  std::uint64_t bytes() const;  // every live slab's storage
  std::uint64_t slack() const;  // of which not holding a mesh

 private:
  std::vector<Slab> slabs_;
};

}  // namespace sceneria
