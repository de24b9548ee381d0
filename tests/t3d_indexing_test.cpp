// The T3D loader's indexed searches against the engine's own loops (kept as *_by_scan): random
// submodels built to sit on every edge the indexes have (exact and near-equal positions, -0 and
// +0, NaN and infinities, distances at the tolerance, grid-cell edges, the 999-vertex window,
// tolerances of 0, NaN, infinity and denormals), compared bit for bit and index for index.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "formats/t3d/indexing.hpp"

namespace sceneria::t3d {
namespace {

struct Case {
  std::vector<Vertex> v;
  std::vector<std::uint32_t> masks;
  std::vector<std::int64_t> from;
  float tolerance = 1e-5f;
};

Case random_case(std::uint32_t seed) {
  std::mt19937 rng(seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  Case c;
  const float tolerances[] = {1e-5f, 1e-5f, 1e-5f * 0.37f, 1e-5f * 25.0f, 0.0f, -1e-5f, std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::infinity(), 1e-43f, 1.0f};
  c.tolerance = tolerances[pick(std::size(tolerances))];
  const float t = std::isfinite(c.tolerance) && c.tolerance > 0 ? c.tolerance : 1e-5f;
  // A few base points; each coordinate moved by nothing, by amounts around the tolerance or to a
  // grid cell's edge (the index's grid is 4 tolerances).
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float nudges[] = {0.0f, 0.0f, 0.0f, -0.0f, 0.5f * t, -0.5f * t, 0.999f * t, -0.999f * t, t, -t, 1.001f * t, 2 * t, -2 * t, 0.3f * t, 0.7f * t};
  const std::size_t bases = 1 + pick(12);
  std::vector<std::array<float, 3>> base(bases);
  for (auto& b : base)
    for (float& x : b) x = static_cast<float>(static_cast<int>(pick(5)) - 2) * 4.0f * t + (pick(3) == 0 ? 0.25f * t : 0.0f);
  const std::array<float, 3> normals[] = {{0, 1, 0}, {0, 1, 0}, {1, 0, 0}, {0, 1.0f + 0.5f * t, 0}, {-0.0f, 1, 0}};
  const std::array<float, 2> uvs[] = {{0, 0}, {0, 0}, {1, 0}, {0.5f * t, 0}, {0, 2 * t}};
  const std::size_t faces = pick(4) == 0 ? 340 + pick(400) : 1 + pick(120);
  c.v.resize(faces * 3);
  c.masks.resize(faces);
  c.from.assign(faces * 3, -1);
  for (std::size_t f = 0; f < faces; ++f) {
    const std::uint32_t masks[] = {0, 1, 1, 2, 3, 4, 0xffffffffu};
    c.masks[f] = masks[pick(std::size(masks))];
  }
  for (std::size_t i = 0; i < c.v.size(); ++i) {
    Vertex& x = c.v[i];
    const auto& b = base[pick(bases)];
    for (std::size_t k = 0; k < 3; ++k) x.position[k] = b[k] + (pick(2) ? nudges[pick(std::size(nudges))] : 0.0f);
    if (pick(200) == 0) x.position[pick(3)] = pick(2) ? nan : (pick(2) ? inf : -inf);
    x.normal = normals[pick(std::size(normals))];
    x.uv = uvs[pick(std::size(uvs))];
    if (pick(300) == 0) x.uv[pick(2)] = nan;
    if (pick(20) == 0) c.from[i] = static_cast<std::int64_t>(i);  // an explicit normal
  }
  return c;
}

bool same_bits(const std::vector<Vertex>& a, const std::vector<Vertex>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Vertex)) == 0);
}

TEST(T3dIndexing, SmoothingMatchesTheEnginesScan) {
  for (std::uint32_t seed = 0; seed < 400; ++seed) {
    Case fast = random_case(seed), slow = fast;
    smooth_normals(fast.v, fast.masks, fast.from);
    smooth_normals_by_scan(slow.v, slow.masks, slow.from);
    ASSERT_TRUE(same_bits(fast.v, slow.v)) << "seed " << seed;
    ASSERT_EQ(fast.from, slow.from) << "seed " << seed;
  }
}

TEST(T3dIndexing, MergingMatchesTheEnginesWindow) {
  std::size_t merged_somewhere = 0, fallbacks = 0;
  for (std::uint32_t seed = 0; seed < 400; ++seed) {
    Case c = random_case(seed);
    std::vector<Vertex> fast = c.v, slow = c.v;
    const auto fast_indices = merge_vertices(fast, c.tolerance);
    const auto slow_indices = merge_vertices_by_scan(slow, c.tolerance);
    ASSERT_EQ(fast_indices, slow_indices) << "seed " << seed << ", tolerance " << c.tolerance;
    ASSERT_TRUE(same_bits(fast, slow)) << "seed " << seed;
    merged_somewhere += fast.size() < c.v.size();
    fallbacks += !std::isfinite(c.tolerance) || c.tolerance == 1e-43f;
  }
  EXPECT_GT(merged_somewhere, 200u);  // the cases do merge, so the comparison says something
  EXPECT_GT(fallbacks, 10u);
}

// The window's edge: a vertex 999 after its twin is claimed, 1000 after is not; a claimed vertex
// claims nothing, so the third copy goes to whichever unclaimed copy came last within reach.
TEST(T3dIndexing, WindowEdgeAndTheLastClaim) {
  for (std::size_t gap : {998u, 999u, 1000u, 1001u}) {
    std::vector<Vertex> v(2100);
    for (std::size_t i = 0; i < v.size(); ++i) v[i].position = {static_cast<float>(i), 0, 0};
    v[gap].position = v[0].position;
    v[2 * gap < v.size() ? 2 * gap : v.size() - 1].position = v[0].position;
    std::vector<Vertex> slow = v;
    const auto indices = merge_vertices(v, 1e-5f);
    EXPECT_EQ(indices, merge_vertices_by_scan(slow, 1e-5f)) << "gap " << gap;
    EXPECT_EQ(indices[gap] == indices[0], gap < 1000) << "gap " << gap;
  }
}

}  // namespace
}  // namespace sceneria::t3d
