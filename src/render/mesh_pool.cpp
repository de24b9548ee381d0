#include "render/mesh_pool.hpp"

#include <algorithm>

namespace sceneria {

namespace {

// Where `n` goes in one dimension of a slab (its vertices or its indices), and the capacity that
// needs: a hole first, then the room before the capacity, then the capacity grown (doubled, or
// to just what is needed where `tight`, never past `cap` unless the slab is empty).
struct Fit {
  std::uint32_t first = 0, capacity = 0;
  bool ok = false;
};
Fit fit(const std::vector<MeshPool::Range>& holes, std::uint32_t end, std::uint32_t capacity, std::uint32_t n,
        std::uint32_t cap, bool tight) {
  for (const MeshPool::Range& h : holes)
    if (h.count >= n) return {h.first, capacity, true};
  const std::uint64_t need = std::uint64_t{end} + n;
  if (need <= capacity) return {end, capacity, true};
  if (need > cap) return {};
  const std::uint64_t grown = tight ? need : std::min<std::uint64_t>(std::max<std::uint64_t>(need, std::uint64_t{capacity} * 2), cap);
  return {end, static_cast<std::uint32_t>(grown), true};
}

// Takes [first, first + n) out of a dimension as `fit` chose it.
void take(std::vector<MeshPool::Range>& holes, std::uint32_t& end, std::uint32_t first, std::uint32_t n) {
  if (first >= end) {
    end = first + n;
    return;
  }
  for (auto h = holes.begin(); h != holes.end(); ++h) {
    if (h->first != first) continue;
    h->first += n;
    h->count -= n;
    if (!h->count) holes.erase(h);
    return;
  }
}

// Gives [first, first + n) back: merged with its neighbours, or the end pulled back.
void give(std::vector<MeshPool::Range>& holes, std::uint32_t& end, std::uint32_t first, std::uint32_t n) {
  if (!n) return;
  auto at = std::lower_bound(holes.begin(), holes.end(), first,
                             [](const MeshPool::Range& h, std::uint32_t f) { return h.first < f; });
  at = holes.insert(at, {first, n});
  if (at + 1 != holes.end() && at->first + at->count == (at + 1)->first) {
    at->count += (at + 1)->count;
    holes.erase(at + 1);
  }
  if (at != holes.begin() && (at - 1)->first + (at - 1)->count == at->first) {
    (at - 1)->count += at->count;
    at = holes.erase(at) - 1;
  }
  if (!holes.empty() && holes.back().first + holes.back().count == end) {
    end = holes.back().first;
    holes.pop_back();
  }
}

}  // namespace

MeshPool::Plan MeshPool::plan(std::uint32_t vertices, std::uint32_t indices, bool tight) const {
  Plan best;
  bool found = false;
  for (std::uint32_t s = 0; s < slabs_.size(); ++s) {
    const Slab& slab = slabs_[s];
    if (!slab.live) continue;
    const Fit v = fit(slab.vertex_holes, slab.vertex_end, slab.vertex_capacity, vertices, kMaxVertices, tight);
    const Fit i = fit(slab.index_holes, slab.index_end, slab.index_capacity, indices, kMaxIndices, tight);
    if (!v.ok || !i.ok) continue;
    const std::uint64_t bytes = std::uint64_t{v.capacity - slab.vertex_capacity} * kVertexBytes +
                                std::uint64_t{i.capacity - slab.index_capacity} * kIndexBytes;
    if (found && bytes >= best.bytes) continue;
    best = {s, v.capacity, i.capacity, bytes};
    found = true;
    if (!bytes) break;
  }
  if (found) return best;
  return {kNone, vertices, indices, std::uint64_t{vertices} * kVertexBytes + std::uint64_t{indices} * kIndexBytes};
}

MeshPool::Place MeshPool::place(Plan& plan, std::uint32_t vertices, std::uint32_t indices, bool& grown) {
  grown = false;
  if (plan.slab == kNone) {
    auto dead = std::find_if(slabs_.begin(), slabs_.end(), [](const Slab& s) { return !s.live; });
    if (dead == slabs_.end()) dead = slabs_.insert(slabs_.end(), Slab{});
    *dead = Slab{};
    dead->live = true;
    plan.slab = static_cast<std::uint32_t>(dead - slabs_.begin());
  }
  Slab& slab = slabs_[plan.slab];
  if (plan.vertex_capacity > slab.vertex_capacity || plan.index_capacity > slab.index_capacity) {
    slab.vertex_capacity = std::max(slab.vertex_capacity, plan.vertex_capacity);
    slab.index_capacity = std::max(slab.index_capacity, plan.index_capacity);
    grown = true;
  }
  const Fit v = fit(slab.vertex_holes, slab.vertex_end, slab.vertex_capacity, vertices, slab.vertex_capacity, false);
  const Fit i = fit(slab.index_holes, slab.index_end, slab.index_capacity, indices, slab.index_capacity, false);
  take(slab.vertex_holes, slab.vertex_end, v.first, vertices);
  take(slab.index_holes, slab.index_end, i.first, indices);
  slab.vertices_held += vertices;
  slab.indices_held += indices;
  ++slab.meshes;
  return {plan.slab, v.first, i.first};
}

void MeshPool::free(const Place& place, std::uint32_t vertices, std::uint32_t indices) {
  if (place.slab >= slabs_.size() || !slabs_[place.slab].live) return;
  Slab& slab = slabs_[place.slab];
  give(slab.vertex_holes, slab.vertex_end, place.vertex_first, vertices);
  give(slab.index_holes, slab.index_end, place.index_first, indices);
  slab.vertices_held -= std::min(slab.vertices_held, vertices);
  slab.indices_held -= std::min(slab.indices_held, indices);
  if (slab.meshes) --slab.meshes;
}

void MeshPool::compact(std::vector<std::uint32_t>& rebuild, std::vector<std::uint32_t>& gone) const {
  rebuild.clear();
  gone.clear();
  for (std::uint32_t s = 0; s < slabs_.size(); ++s) {
    const Slab& slab = slabs_[s];
    if (!slab.live) continue;
    if (!slab.meshes) {
      gone.push_back(s);
      continue;
    }
    const bool holes = !slab.vertex_holes.empty() || !slab.index_holes.empty();
    const auto mostly_empty = [](std::uint32_t end, std::uint32_t capacity) {
      return std::uint64_t{end} * 4 <= capacity && std::max<std::uint32_t>(end, 1) < capacity;
    };
    if (holes || mostly_empty(slab.vertex_end, slab.vertex_capacity) || mostly_empty(slab.index_end, slab.index_capacity))
      rebuild.push_back(s);
  }
}

void MeshPool::clear_slab(std::uint32_t s, std::uint32_t vertex_capacity, std::uint32_t index_capacity) {
  Slab& slab = slabs_[s];
  const Slab names = slab;
  slab = Slab{};
  slab.live = true;
  slab.vao = names.vao, slab.vbo = names.vbo, slab.ids = names.ids, slab.ibo = names.ibo;
  slab.vertex_capacity = vertex_capacity;
  slab.index_capacity = index_capacity;
}

std::uint64_t MeshPool::bytes() const {
  std::uint64_t total = 0;
  for (const Slab& s : slabs_)
    if (s.live) total += std::uint64_t{s.vertex_capacity} * kVertexBytes + std::uint64_t{s.index_capacity} * kIndexBytes;
  return total;
}

std::uint64_t MeshPool::slack() const {
  std::uint64_t held = 0;
  for (const Slab& s : slabs_)
    if (s.live) held += std::uint64_t{s.vertices_held} * kVertexBytes + std::uint64_t{s.indices_held} * kIndexBytes;
  return bytes() - held;
}

}  // namespace sceneria
