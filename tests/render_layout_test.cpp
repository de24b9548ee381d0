// How the instanced pass lays out a mesh (one draw per run of parts) and where textures live
// (layers of arrays, one per shape), GL-free.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "render/mesh_layout.hpp"
#include "render/mesh_pool.hpp"
#include "render/texture_layers.hpp"

namespace sceneria {
namespace {

using Alpha = scene::Material::Alpha;

scene::Material material(Alpha alpha, bool two_sided) {
  scene::Material m;
  m.alpha = alpha;
  m.two_sided = two_sided;
  return m;
}

// A strip of quads, `quads` of them, two triangles each, sharing their edge vertices.
scene::Mesh strip(std::uint32_t quads) {
  scene::Mesh mesh;
  for (std::uint32_t i = 0; i <= quads; ++i) {
    mesh.positions.push_back({float(i), 0, 0});
    mesh.positions.push_back({float(i), 1, 0});
    mesh.uvs.push_back({float(i), 0});
    mesh.uvs.push_back({float(i), 1});
  }
  for (std::uint32_t i = 0; i < quads; ++i) {
    const std::uint32_t a = 2 * i, b = a + 1, c = a + 2, d = a + 3;
    mesh.indices.insert(mesh.indices.end(), {a, c, b, b, c, d});
  }
  return mesh;
}

TEST(MeshLayout, EveryVertexCarriesItsPartsMaterialSharedOnesCopied) {
  // Four quads, one part each, materials 3, 3, 5, 7: the edge between quads 1 and 2 (and 2 and
  // 3) belongs to two materials, so its two vertices are copied; between 0 and 1 it is shared.
  scene::Mesh mesh = strip(4);
  mesh.parts = {{3, 0, 6}, {3, 6, 6}, {5, 12, 6}, {7, 18, 6}};
  std::vector<scene::Material> materials(8);
  MeshLayout out;
  lay_out_mesh(mesh, materials, out);
  EXPECT_EQ(out.materials.size(), 10u + 4u);
  EXPECT_EQ(out.vertices.size(), out.materials.size() * 8);
  ASSERT_EQ(out.indices.size(), 24u);
  ASSERT_EQ(out.parts.size(), 4u);
  for (std::size_t p = 0; p < 4; ++p) {
    EXPECT_EQ(out.parts[p].material, mesh.parts[p].material);
    EXPECT_EQ(out.parts[p].first, 6 * p);
    EXPECT_EQ(out.parts[p].count, 6u);
    for (std::uint32_t i = 0; i < 6; ++i) {
      const std::uint32_t v = out.indices[6 * p + i], original = mesh.indices[6 * p + i];
      EXPECT_EQ(out.materials[v], mesh.parts[p].material) << "part " << p << " index " << i;
      // The copy is the vertex it stands for: position and uv.
      for (int k = 0; k < 3; ++k) EXPECT_EQ(out.vertices[v * 8 + k], mesh.positions[original][k]);
      EXPECT_EQ(out.vertices[v * 8 + 6], mesh.uvs[original].x);
      EXPECT_EQ(out.vertices[v * 8 + 7], mesh.uvs[original].y);
      EXPECT_EQ(out.vertices[v * 8 + 4], 1.0f);  // no normals: up
    }
  }
  // Materials differ but state does not: one run, one draw.
  ASSERT_EQ(out.runs.size(), 1u);
  EXPECT_EQ(out.runs[0].first, 0u);
  EXPECT_EQ(out.runs[0].count, 24u);
  EXPECT_EQ(out.runs[0].parts, 4u);
}

TEST(MeshLayout, BlendedPartsGoLastInTheirOrderAndCullingSplitsRuns) {
  scene::Mesh mesh = strip(6);
  // materials: 0 opaque, 1 blended, 2 opaque two-sided, 3 masked, 4 blended two-sided
  std::vector<scene::Material> materials = {material(Alpha::opaque, false), material(Alpha::blend, false),
                                            material(Alpha::opaque, true), material(Alpha::mask, false),
                                            material(Alpha::blend, true)};
  mesh.parts = {{1, 0, 6}, {0, 6, 6}, {4, 12, 6}, {3, 18, 6}, {2, 24, 6}, {1, 30, 6}};
  MeshLayout out;
  lay_out_mesh(mesh, materials, out);
  ASSERT_EQ(out.parts.size(), 6u);
  std::vector<std::uint32_t> order;
  for (const scene::Part& p : out.parts) order.push_back(p.material);
  EXPECT_EQ(order, (std::vector<std::uint32_t>{0, 3, 2, 1, 4, 1}));
  // opaque culled (0, 3), opaque two-sided (2), blended culled (1), blended two-sided (4), blended culled (1)
  ASSERT_EQ(out.runs.size(), 5u);
  const std::vector<std::pair<bool, bool>> state = {{false, false}, {false, true}, {true, false}, {true, true}, {true, false}};
  const std::vector<std::uint32_t> parts = {2, 1, 1, 1, 1};
  std::uint32_t first = 0;
  for (std::size_t r = 0; r < out.runs.size(); ++r) {
    EXPECT_EQ(out.runs[r].blended, state[r].first) << r;
    EXPECT_EQ(out.runs[r].two_sided, state[r].second) << r;
    EXPECT_EQ(out.runs[r].parts, parts[r]) << r;
    EXPECT_EQ(out.runs[r].first, first) << r;
    first += out.runs[r].count;
  }
  EXPECT_EQ(first, 36u);
  // The triangles of each part are its own, in order: quad k of the strip is part k's.
  const std::vector<std::uint32_t> quad = {1, 3, 4, 0, 2, 5};
  for (std::size_t p = 0; p < 6; ++p)
    for (std::uint32_t i = 0; i < 6; ++i)
      EXPECT_EQ(out.vertices[out.indices[6 * p + i] * 8], mesh.positions[mesh.indices[6 * quad[p] + i]].x);
}

TEST(MeshLayout, HostileIndicesAndRangesAreLeftOut) {
  scene::Mesh mesh = strip(2);
  mesh.indices[4] = 1000;  // the second triangle of quad 0 points past the vertices
  // A part past the end, one overlapping it, one of 4 indices (a triangle and a stray one), a
  // material past the table.
  mesh.parts = {{0, 0, 6}, {0, 100, 6}, {0, 9, 1000}, {9, 6, 4}};
  std::vector<scene::Material> materials(1);
  MeshLayout out;
  lay_out_mesh(mesh, materials, out);
  ASSERT_EQ(out.parts.size(), 3u);
  EXPECT_EQ(out.parts[0].count, 3u);   // the good triangle of quad 0
  EXPECT_EQ(out.parts[1].count, 3u);   // indices 9..11
  EXPECT_EQ(out.parts[2].count, 3u);   // indices 6..8
  for (std::uint32_t v : out.indices) EXPECT_LT(v, out.materials.size());
  ASSERT_EQ(out.runs.size(), 1u);
  EXPECT_EQ(out.runs[0].count, 9u);
  // No parts: one part of material 0 over every index.
  scene::Mesh plain = strip(3);
  lay_out_mesh(plain, materials, out);
  ASSERT_EQ(out.parts.size(), 1u);
  EXPECT_EQ(out.parts[0].count, 18u);
  EXPECT_EQ(out.materials.size(), 8u);
}

LayerShape shape(std::uint32_t size, std::uint32_t format = 1) { return {format, size, size, 1, std::uint64_t{size} * size}; }

TEST(TextureLayers, ArraysByShapeGrowByDoublingAndShrinkWhenTexturesLeave) {
  TextureLayers layers;
  layers.reset(2, 8);
  bool rebuilt = false;
  // Five 16x16 textures: one array grown 1, 2, 4, 8 layers; a 32x32 and a 16x16 of another format
  // get arrays of their own.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> at;  // (array, layer) per texture
  std::vector<bool> grew;
  for (std::uint32_t t = 0; t < 5; ++t) {
    TextureLayers::Plan plan = layers.plan(shape(16), false);
    const std::uint32_t layer = layers.place(plan, shape(16), t, rebuilt);
    at.push_back({plan.array, layer});
    grew.push_back(rebuilt);
  }
  EXPECT_EQ(grew, (std::vector<bool>{true, true, true, false, true}));
  for (std::uint32_t t = 0; t < 5; ++t) EXPECT_EQ(at[t], std::make_pair(0u, t));
  EXPECT_EQ(layers.arrays()[0].layers.size(), 8u);
  EXPECT_EQ(layers.bytes(), 8u * 256);
  EXPECT_EQ(layers.slack(), 3u * 256);
  TextureLayers::Plan big = layers.plan(shape(32), false);
  EXPECT_EQ(big.array, TextureLayers::kNone);
  EXPECT_EQ(big.bytes, 1024u);
  layers.place(big, shape(32), 10, rebuilt);
  TextureLayers::Plan other = layers.plan(shape(16, 2), false);
  layers.place(other, shape(16, 2), 11, rebuilt);
  EXPECT_EQ(layers.arrays()[0].unit, 1);
  EXPECT_EQ(layers.arrays()[big.array].unit, 2);
  EXPECT_EQ(layers.arrays()[other.array].unit, 0);  // two units: the third array has none
  // Growth by one where tight.
  for (std::uint32_t t = 5; t < 8; ++t) {
    TextureLayers::Plan plan = layers.plan(shape(16), true);
    layers.place(plan, shape(16), t, rebuilt);
  }
  TextureLayers::Plan full = layers.plan(shape(16), false);  // 8 layers at most: a second array
  EXPECT_EQ(full.array, TextureLayers::kNone);

  // Textures 1 and 3 leave: the array shrinks to six layers, the rest in order from layer 0.
  layers.arrays()[0].gl = 100;
  layers.arrays()[big.array].gl = 200;
  layers.free(0, 1);
  layers.free(0, 3);
  layers.free(0, 3);  // twice: no effect
  std::vector<std::uint32_t> rebuild;
  std::vector<unsigned> deleted;
  layers.compact(rebuild, deleted);
  EXPECT_EQ(rebuild, (std::vector<std::uint32_t>{0}));
  EXPECT_TRUE(deleted.empty());
  EXPECT_EQ(layers.arrays()[0].layers, (std::vector<std::uint32_t>{0, 2, 4, 5, 6, 7}));
  EXPECT_EQ(layers.slack(), 0u);
  // The 32x32 leaves: its array goes, its unit to the array that had none.
  layers.free(big.array, 0);
  layers.compact(rebuild, deleted);
  EXPECT_EQ(deleted, (std::vector<unsigned>{200}));
  EXPECT_FALSE(layers.arrays()[big.array].live);
  EXPECT_EQ(layers.arrays()[other.array].unit, 2);
  // A new shape reuses the dead array's slot.
  TextureLayers::Plan again = layers.plan(shape(64), false);
  layers.place(again, shape(64), 12, rebuilt);
  EXPECT_EQ(again.array, big.array);
  EXPECT_EQ(layers.arrays()[again.array].unit, 0);
}

TEST(TextureLayers, FewerUnitsLeaveArraysWithoutAndMoreGiveThemBack) {
  TextureLayers layers;
  layers.reset(3, 4);
  bool rebuilt = false;
  std::vector<std::uint32_t> arrays;
  for (std::uint32_t s = 0; s < 4; ++s) {  // four shapes: units 1, 2, 3 and none
    TextureLayers::Plan plan = layers.plan(shape(8u << s), false);
    layers.place(plan, shape(8u << s), s, rebuilt);
    arrays.push_back(plan.array);
  }
  const auto units = [&] {
    std::vector<int> u;
    for (std::uint32_t a : arrays) u.push_back(layers.arrays()[a].unit);
    return u;
  };
  EXPECT_EQ(units(), (std::vector<int>{1, 2, 3, 0}));
  layers.set_units(1);
  EXPECT_EQ(units(), (std::vector<int>{1, 0, 0, 0}));
  layers.set_units(0);
  EXPECT_EQ(units(), (std::vector<int>{0, 0, 0, 0}));
  layers.set_units(2);
  EXPECT_EQ(units(), (std::vector<int>{1, 2, 0, 0}));
  layers.set_units(12);
  EXPECT_EQ(units(), (std::vector<int>{1, 2, 3, 4}));
}

TEST(TextureLayers, RandomComingsAndGoingsKeepEveryTextureInOneLayer) {
  std::mt19937 rng(7);
  TextureLayers layers;
  layers.reset(3, 5);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> where(200, {TextureLayers::kNone, 0});
  std::vector<std::uint32_t> rebuild;
  std::vector<unsigned> deleted;
  const auto shape_of = [](std::uint32_t t) { return shape(8u << (t % 4), 1 + t % 2); };
  for (int step = 0; step < 5000; ++step) {
    const std::uint32_t t = rng() % 200;
    bool rebuilt = false;
    if (where[t].first == TextureLayers::kNone) {
      TextureLayers::Plan plan = layers.plan(shape_of(t), rng() % 2);
      where[t] = {TextureLayers::kNone, layers.place(plan, shape_of(t), t, rebuilt)};
      where[t].first = plan.array;
    } else {
      layers.free(where[t].first, where[t].second);
      where[t].first = TextureLayers::kNone;
      if (rng() % 3 == 0) {
        layers.compact(rebuild, deleted);
        // Compaction moves layers: read them back as the renderer does.
        for (auto& w : where) w.first = TextureLayers::kNone;
        for (std::uint32_t a = 0; a < layers.arrays().size(); ++a)
          for (std::uint32_t l = 0; l < layers.arrays()[a].layers.size(); ++l)
            if (layers.arrays()[a].live && layers.arrays()[a].layers[l] != TextureLayers::kNone)
              where[layers.arrays()[a].layers[l]] = {a, l};
      }
    }
    // Every placed texture is where it was told, in an array of its shape; units are unique.
    std::set<int> units;
    std::uint32_t used = 0;
    for (const auto& a : layers.arrays()) {
      if (!a.live) continue;
      EXPECT_LE(a.layers.size(), 5u);
      EXPECT_EQ(a.used, std::count_if(a.layers.begin(), a.layers.end(), [](std::uint32_t x) { return x != TextureLayers::kNone; }));
      if (a.unit) EXPECT_TRUE(units.insert(a.unit).second);
      EXPECT_LE(a.unit, 3);
      used += a.used;
    }
    std::uint32_t placed = 0;
    for (std::uint32_t x = 0; x < 200; ++x) {
      if (where[x].first == TextureLayers::kNone) continue;
      ++placed;
      const auto& a = layers.arrays()[where[x].first];
      ASSERT_TRUE(a.live);
      ASSERT_EQ(a.layers[where[x].second], x);
      ASSERT_TRUE(a.shape == shape_of(x));
    }
    ASSERT_EQ(placed, used) << "step " << step;
  }
}

}  // namespace
}  // namespace sceneria

namespace sceneria {
namespace {

TEST(MeshPool, SlabsGrowByDoublingReuseHolesAndAreRebuiltWhenMeshesLeave) {
  MeshPool pool;
  bool grown = false;
  std::vector<MeshPool::Place> at;
  std::vector<bool> grew;
  for (int m = 0; m < 4; ++m) {  // 100 vertices, 300 indices each: capacities 100, 200, 400, 400
    MeshPool::Plan plan = pool.plan(100, 300, false);
    at.push_back(pool.place(plan, 100, 300, grown));
    grew.push_back(grown);
  }
  EXPECT_EQ(grew, (std::vector<bool>{true, true, true, false}));
  for (std::uint32_t m = 0; m < 4; ++m) {
    EXPECT_EQ(at[m].slab, 0u);
    EXPECT_EQ(at[m].vertex_first, 100 * m);
    EXPECT_EQ(at[m].index_first, 300 * m);
  }
  ASSERT_EQ(pool.slabs().size(), 1u);
  EXPECT_EQ(pool.slabs()[0].vertex_capacity, 400u);
  EXPECT_EQ(pool.slabs()[0].index_capacity, 1200u);
  EXPECT_EQ(pool.bytes(), 400 * MeshPool::kVertexBytes + 1200 * MeshPool::kIndexBytes);
  EXPECT_EQ(pool.slack(), 0u);
  // The second leaves a hole: a smaller mesh takes its start, costing nothing.
  pool.free(at[1], 100, 300);
  EXPECT_EQ(pool.slack(), 100 * MeshPool::kVertexBytes + 300 * MeshPool::kIndexBytes);
  MeshPool::Plan small = pool.plan(60, 90, false);
  EXPECT_EQ(small.bytes, 0u);
  const MeshPool::Place hole = pool.place(small, 60, 90, grown);
  EXPECT_FALSE(grown);
  EXPECT_EQ(hole.vertex_first, 100u);
  EXPECT_EQ(hole.index_first, 300u);
  // A mesh that fits no hole goes past the end: grown by just what it needs where tight.
  MeshPool::Plan tight = pool.plan(50, 10, true);
  EXPECT_EQ(tight.vertex_capacity, 450u);
  EXPECT_EQ(tight.index_capacity, 1200u);
  EXPECT_EQ(tight.bytes, 50 * MeshPool::kVertexBytes);
  const MeshPool::Place past = pool.place(tight, 50, 10, grown);
  EXPECT_TRUE(grown);
  EXPECT_EQ(past.vertex_first, 400u);
  EXPECT_EQ(past.index_first, 390u);  // the index hole's rest (390..600) holds its 10
  // A hole in the middle: the slab is to be rebuilt (else letting the mesh go would free nothing).
  std::vector<std::uint32_t> rebuild, gone;
  pool.free(hole, 60, 90);
  pool.compact(rebuild, gone);
  EXPECT_EQ(rebuild, (std::vector<std::uint32_t>{0}));
  EXPECT_TRUE(gone.empty());
  // Everything past the first mesh leaves: the ends fall back to it, holes and all.
  pool.free(past, 50, 10);
  pool.free(at[3], 100, 300);
  pool.free(at[2], 100, 300);
  EXPECT_EQ(pool.slabs()[0].vertex_end, 100u);
  EXPECT_EQ(pool.slabs()[0].index_end, 300u);
  EXPECT_TRUE(pool.slabs()[0].vertex_holes.empty());
  EXPECT_TRUE(pool.slabs()[0].index_holes.empty());
  EXPECT_EQ(pool.slack(), 350 * MeshPool::kVertexBytes + 900 * MeshPool::kIndexBytes);
  // No hole, but a quarter of its capacity used or less: rebuilt to what it holds, keeping its names.
  pool.compact(rebuild, gone);
  EXPECT_EQ(rebuild, (std::vector<std::uint32_t>{0}));
  pool.slabs()[0].vao = 7, pool.slabs()[0].vbo = 8, pool.slabs()[0].ids = 9, pool.slabs()[0].ibo = 10;
  pool.clear_slab(0, 100, 300);
  EXPECT_EQ(pool.slabs()[0].vbo, 8u);
  EXPECT_EQ(pool.bytes(), 100 * MeshPool::kVertexBytes + 300 * MeshPool::kIndexBytes);
  MeshPool::Plan into{0, 100, 300, 0};
  at[0] = pool.place(into, 100, 300, grown);
  EXPECT_FALSE(grown);
  EXPECT_EQ(at[0].vertex_first, 0u);
  EXPECT_EQ(pool.slack(), 0u);
  pool.compact(rebuild, gone);  // full: nothing to do
  EXPECT_TRUE(rebuild.empty());
  // The last leaves: the slab is to go; once dropped, a new mesh reuses its number.
  pool.free(at[0], 100, 300);
  pool.compact(rebuild, gone);
  EXPECT_EQ(gone, (std::vector<std::uint32_t>{0}));
  EXPECT_TRUE(rebuild.empty());
  pool.drop(0);
  EXPECT_FALSE(pool.slabs()[0].live);
  EXPECT_EQ(pool.bytes(), 0u);
  MeshPool::Plan again = pool.plan(5, 6, false);
  EXPECT_EQ(again.slab, MeshPool::kNone);
  EXPECT_EQ(pool.place(again, 5, 6, grown).slab, 0u);
}

TEST(MeshPool, ASlabNeverGrowsPastItsCapButOneBigMeshHasOneOfItsOwn) {
  MeshPool pool;
  bool grown = false;
  const std::uint32_t half = MeshPool::kMaxVertices / 2 + 1;
  MeshPool::Plan a = pool.plan(half, 3, false);
  EXPECT_EQ(pool.place(a, half, 3, grown).slab, 0u);
  MeshPool::Plan b = pool.plan(half, 3, false);  // both would pass the cap: a second slab
  EXPECT_EQ(b.slab, MeshPool::kNone);
  EXPECT_EQ(pool.place(b, half, 3, grown).slab, 1u);
  const std::uint32_t huge = MeshPool::kMaxVertices + 5;
  MeshPool::Plan c = pool.plan(huge, 3, false);
  EXPECT_EQ(c.slab, MeshPool::kNone);
  EXPECT_EQ(c.bytes, huge * MeshPool::kVertexBytes + 3 * MeshPool::kIndexBytes);
  const MeshPool::Place big = pool.place(c, huge, 3, grown);
  EXPECT_EQ(big.slab, 2u);
  EXPECT_EQ(pool.slabs()[2].vertex_capacity, huge);
  // Indices are capped apart from vertices.
  MeshPool::Plan d = pool.plan(1, MeshPool::kMaxIndices, false);
  EXPECT_EQ(d.slab, MeshPool::kNone);
}

// Random places and frees against a map of every vertex and index slot: no two meshes ever share
// one, everything stays within its slab's capacity, and the ledger's slack is what the map says.
TEST(MeshPool, RandomPlacesAndFreesNeverOverlap) {
  std::mt19937 rng(36);
  MeshPool pool;
  struct Held {
    MeshPool::Place place;
    std::uint32_t vertices, indices;
  };
  std::vector<Held> held;
  bool grown = false;
  for (int step = 0; step < 2000; ++step) {
    if (held.empty() || rng() % 3) {
      const std::uint32_t v = 1 + rng() % 5000, i = rng() % 15000;
      MeshPool::Plan plan = pool.plan(v, i, rng() % 2);
      held.push_back({pool.place(plan, v, i, grown), v, i});
    } else {
      const std::size_t k = rng() % held.size();
      pool.free(held[k].place, held[k].vertices, held[k].indices);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
      if (rng() % 4 == 0) {  // the empty slabs go (the renderer rebuilds the others)
        std::vector<std::uint32_t> rebuild, gone;
        pool.compact(rebuild, gone);
        for (std::uint32_t g : gone) pool.drop(g);
      }
    }
    if (step % 200) continue;
    std::vector<std::vector<std::uint8_t>> vmap(pool.slabs().size()), imap(pool.slabs().size());
    for (std::size_t s = 0; s < pool.slabs().size(); ++s) {
      vmap[s].assign(pool.slabs()[s].vertex_capacity, 0);
      imap[s].assign(pool.slabs()[s].index_capacity, 0);
    }
    std::uint64_t bytes_held = 0;
    for (const Held& h : held) {
      ASSERT_TRUE(pool.slabs()[h.place.slab].live);
      ASSERT_LE(h.place.vertex_first + h.vertices, pool.slabs()[h.place.slab].vertex_capacity);
      ASSERT_LE(h.place.index_first + h.indices, pool.slabs()[h.place.slab].index_capacity);
      for (std::uint32_t k = 0; k < h.vertices; ++k) ASSERT_EQ(vmap[h.place.slab][h.place.vertex_first + k]++, 0);
      for (std::uint32_t k = 0; k < h.indices; ++k) ASSERT_EQ(imap[h.place.slab][h.place.index_first + k]++, 0);
      bytes_held += h.vertices * MeshPool::kVertexBytes + h.indices * MeshPool::kIndexBytes;
    }
    EXPECT_EQ(pool.bytes() - pool.slack(), bytes_held);
  }
}

}  // namespace
}  // namespace sceneria
