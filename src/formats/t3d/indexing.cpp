// Why indexes: the engine's SeekFaceNormal scans every later face for each vertex it smooths and
// calculate_indices compares each vertex with the 999 after it, so a 20,000-triangle submodel
// costs hundreds of millions of compares. Both searches only ever find vertices that share a
// position (exactly, or within the tolerance), so a hash of the position answers them from a
// handful of candidates; the candidates are then tested with the engine's own float compares, in
// an order that makes the engine's choice (the first face, the last claim) fall out unchanged.
#include "formats/t3d/indexing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>

#include <glm/glm.hpp>
#include <glm/gtc/epsilon.hpp>
#include <glm/gtx/norm.hpp>

namespace sceneria::t3d {
namespace {

constexpr std::size_t kWindow = 1000;  // calculate_indices compares a vertex with those before idx + 1000
constexpr std::int64_t kNone = -1;

glm::vec3 position_of(const Vertex& x) { return {x.position[0], x.position[1], x.position[2]}; }

// The shared part of the smoothing: face normals, then for each vertex without one the sum over the
// chain of vertices `seek` finds (a face turned against the sum is left out). `seek(a, mask, p)`
// is the first vertex at p in a face after a's that shares a bit of mask, or kNone.
template <class Seek>
void smooth(std::span<Vertex> v, std::span<const std::uint32_t> masks, std::span<std::int64_t> from, Seek&& seek) {
  const std::size_t faces = v.size() / 3;
  std::vector<glm::vec3> face_normals;
  face_normals.reserve(faces);
  for (std::size_t f = 0; f < faces; ++f) {
    const glm::vec3 a = position_of(v[3 * f]);
    const glm::vec3 n = glm::cross(a - position_of(v[3 * f + 1]), a - position_of(v[3 * f + 2]));
    face_normals.push_back(glm::length2(n) > 0.0f ? glm::normalize(n) : glm::vec3());
  }
  std::vector<glm::vec3> normals(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) normals[i] = glm::vec3(v[i].normal[0], v[i].normal[1], v[i].normal[2]);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (from[i] >= 0) {
      normals[i] = normals[static_cast<std::size_t>(from[i])];
      continue;
    }
    glm::vec3 sum{};
    const glm::vec3 position = position_of(v[i]);
    for (std::int64_t adj = static_cast<std::int64_t>(i); adj >= 0;) {
      const auto a = static_cast<std::size_t>(adj);
      if (glm::dot(sum, face_normals[a / 3]) > -0.99f) {
        from[a] = static_cast<std::int64_t>(i);
        sum += face_normals[a / 3];
      }
      adj = seek(a, masks[i / 3], position);
    }
    normals[i] = glm::length2(sum) > 0.0f ? glm::normalize(sum) : face_normals[i / 3];
  }
  for (std::size_t i = 0; i < v.size(); ++i) v[i].normal = {normals[i].x, normals[i].y, normals[i].z};
}

// glm::epsilonEqual over position, normal and uv, as calculate_indices compares two vertices.
bool same_vertex(const Vertex& x, const Vertex& y, float tolerance) {
  const auto vec3 = [](const std::array<float, 3>& a) { return glm::vec3(a[0], a[1], a[2]); };
  return glm::all(glm::epsilonEqual(vec3(x.position), vec3(y.position), tolerance)) && glm::all(glm::epsilonEqual(vec3(x.normal), vec3(y.normal), tolerance)) &&
         glm::all(glm::epsilonEqual(glm::vec2(x.uv[0], x.uv[1]), glm::vec2(y.uv[0], y.uv[1]), tolerance));
}

// A position's bits with -0 as +0, so equal positions (float ==) have equal keys; NaN has none.
struct PositionKey {
  std::array<std::uint32_t, 3> bits;
  bool operator==(const PositionKey&) const = default;
};
std::size_t position_hash(const PositionKey& k) {
  std::uint64_t h = k.bits[0] * 0x9E3779B97F4A7C15ull;
  h ^= k.bits[1] + 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
  h ^= k.bits[2] + 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
  return static_cast<std::size_t>(h);
}

std::uint64_t cell_hash(std::int64_t x, std::int64_t y, std::int64_t z) {
  std::uint64_t h = static_cast<std::uint64_t>(x) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(y) * 0xC2B2AE3D27D4EB4Full ^
                    static_cast<std::uint64_t>(z) * 0x165667B19E3779F9ull;
  return h ^ (h >> 29);
}

}  // namespace

void smooth_normals_by_scan(std::span<Vertex> v, std::span<const std::uint32_t> masks, std::span<std::int64_t> from) {
  const std::size_t faces = v.size() / 3;
  smooth(v, masks, from, [&](std::size_t a, std::uint32_t m, const glm::vec3& position) -> std::int64_t {
    for (std::size_t f = a / 3 + 1; f < faces; ++f)
      if (masks[f] & m)
        for (std::size_t k = 0; k < 3; ++k)
          if (position_of(v[3 * f + k]) == position) return static_cast<std::int64_t>(3 * f + k);
    return kNone;
  });
}

void smooth_normals(std::span<Vertex> v, std::span<const std::uint32_t> masks, std::span<std::int64_t> from) {
  // next[a]: the next vertex (in file order) at a's position; the scan's first hit after a's face
  // is the first vertex along this list past that face whose face shares a mask bit.
  const std::size_t used = v.size() / 3 * 3;
  std::vector<std::int64_t> next(v.size(), kNone);
  // Open addressing, each slot the latest vertex of one position: no allocation per position.
  std::size_t slots = 16;
  while (slots < 2 * used) slots *= 2;
  std::vector<std::int64_t> latest(slots, kNone);
  std::vector<PositionKey> keys(used);
  for (std::size_t a = 0; a < used; ++a) {
    PositionKey& key = keys[a];
    bool nan = false;
    for (std::size_t c = 0; c < 3; ++c) {
      const float f = v[a].position[c] + 0.0f;  // -0 + 0 is +0
      nan |= f != f;
      std::memcpy(&key.bits[c], &f, sizeof f);
    }
    if (nan) continue;  // a NaN position equals nothing, itself included
    for (std::size_t h = position_hash(key) & (slots - 1);; h = (h + 1) & (slots - 1)) {
      std::int64_t& slot = latest[h];
      if (slot == kNone) {
        slot = static_cast<std::int64_t>(a);
        break;
      }
      if (keys[static_cast<std::size_t>(slot)] == key) {
        next[static_cast<std::size_t>(slot)] = static_cast<std::int64_t>(a);
        slot = static_cast<std::int64_t>(a);
        break;
      }
    }
  }
  smooth(v, masks, from, [&](std::size_t a, std::uint32_t m, const glm::vec3&) -> std::int64_t {
    const auto after = static_cast<std::int64_t>((a / 3 + 1) * 3);
    std::int64_t b = next[a];
    while (b != kNone && (b < after || !(masks[static_cast<std::size_t>(b) / 3] & m))) b = next[static_cast<std::size_t>(b)];
    return b;
  });
}

std::vector<std::uint32_t> merge_vertices_by_scan(std::vector<Vertex>& v, float tolerance) {
  std::vector<std::uint32_t> indices(v.size());
  std::iota(indices.begin(), indices.end(), 0u);
  std::vector<Vertex> merged;
  for (std::size_t idx = 0; idx < indices.size(); ++idx) {
    if (indices[idx] < idx) continue;
    indices[idx] = static_cast<std::uint32_t>(merged.size());
    for (std::size_t m = idx + 1; m < indices.size() && m < idx + kWindow; ++m)
      if (same_vertex(v[idx], v[m], tolerance)) indices[m] = indices[idx];
    merged.push_back(v[idx]);
  }
  v = std::move(merged);
  return indices;
}

std::vector<std::uint32_t> merge_vertices(std::vector<Vertex>& v, float tolerance) {
  // The scan, turned around: vertex m ends up with the index of the last vertex in the window
  // before it that was not merged itself when its turn came and that matches m. Those vertices
  // (the representatives) go into hash chains by a grid of 4 tolerances, so a match lies in m's
  // cell or, near a cell's edge, the neighbouring one.
  const std::size_t n = v.size();
  if (!(tolerance > 0.0f)) {  // |a - b| < 0 (or NaN) holds for nothing: every vertex is its own
    std::vector<std::uint32_t> indices(n);
    std::iota(indices.begin(), indices.end(), 0u);
    return indices;
  }
  if (!std::isfinite(tolerance)) return merge_vertices_by_scan(v, tolerance);
  const double cell = 4.0 * static_cast<double>(tolerance), per_cell = 1.0 / cell;
  constexpr double kCellLimit = 1e15;  // grid coordinates beyond this do not fit the int64 cells
  for (const Vertex& x : v)
    for (float c : x.position)
      if (std::isfinite(c) && std::abs(c / cell) > kCellLimit) return merge_vertices_by_scan(v, tolerance);

  constexpr std::size_t kSlots = 4096;  // a power of two above the window's 999 representatives
  std::vector<std::int64_t> head(kSlots, kNone), chain(n, kNone);
  std::vector<std::uint32_t> indices(n);
  std::vector<Vertex> merged;
  merged.reserve(n);
  for (std::size_t m = 0; m < n; ++m) {
    const Vertex& y = v[m];
    bool finite = true;  // a NaN or infinite component compares unequal to everything
    for (float c : y.position) finite &= std::isfinite(c);
    for (float c : y.normal) finite &= std::isfinite(c);
    for (float c : y.uv) finite &= std::isfinite(c);
    std::array<std::int64_t, 3> at{}, lo{}, hi{};
    std::int64_t best = kNone;
    if (finite) {
      for (std::size_t c = 0; c < 3; ++c) {
        // One rounding more than a division: the cells stay consistent and the margins below
        // (a twentieth of a cell either way) dwarf it.
        const double q = static_cast<double>(y.position[c]) * per_cell, f = std::floor(q);
        at[c] = static_cast<std::int64_t>(f);
        lo[c] = q - f < 0.3 ? -1 : 0;  // |a - b| < tolerance moves a quarter cell at most
        hi[c] = q - f > 0.7 ? 1 : 0;
      }
      const auto oldest = static_cast<std::int64_t>(m) - static_cast<std::int64_t>(kWindow - 1);
      for (std::int64_t dx = lo[0]; dx <= hi[0]; ++dx)
        for (std::int64_t dy = lo[1]; dy <= hi[1]; ++dy)
          for (std::int64_t dz = lo[2]; dz <= hi[2]; ++dz) {
            // Chains run newest first: the first match is this chain's last claim.
            for (std::int64_t r = head[cell_hash(at[0] + dx, at[1] + dy, at[2] + dz) & (kSlots - 1)]; r > best && r >= oldest; r = chain[static_cast<std::size_t>(r)])
              if (same_vertex(v[static_cast<std::size_t>(r)], y, tolerance)) {
                best = r;
                break;
              }
          }
    }
    if (best != kNone) {
      indices[m] = indices[static_cast<std::size_t>(best)];
      continue;
    }
    indices[m] = static_cast<std::uint32_t>(merged.size());
    merged.push_back(y);
    if (finite) {
      std::int64_t& slot = head[cell_hash(at[0], at[1], at[2]) & (kSlots - 1)];
      chain[m] = slot;
      slot = static_cast<std::int64_t>(m);
    }
  }
  v = std::move(merged);
  return indices;
}

}  // namespace sceneria::t3d
