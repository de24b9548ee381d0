#include "export/walk.hpp"

#include <cmath>
#include <utility>

namespace sceneria::exports {

SceneWalk::SceneWalk(scene::Pieces& pieces, const Options& options, AssetResolver* assets, bool replay)
    : pieces_(pieces), options_(options), assets_(assets), replay_(replay) {}

Error SceneWalk::start() {
  if (options_.area.kind != Area::Kind::all)
    pieces_.only([area = options_.area](Bounds b) {  // later pieces' heights are not known yet
      b.first.y = -INFINITY, b.second.y = INFINITY;
      return reaches(b, area);
    });
  auto base = pieces_.base();
  if (!base) return base.error();
  world_ = std::move(base).value();
  if (assets_) {
    models_.track(world_);
    if (Error e = load_models()) return e;
  }
  given_.assign(world_.sections.size(), false);
  // The offset from everything the export may hold: the first piece's sections in the area and
  // the places the later ones will fill.
  std::vector<Bounds> bounds;
  for (std::size_t i : sections_in(world_, options_.area)) {
    const scene::Section& s = world_.sections[i];
    bounds.emplace_back(s.origin + glm::dvec3(s.bounds_min), s.origin + glm::dvec3(s.bounds_max));
  }
  std::size_t later = 0;
  for (Bounds b : pieces_.later_bounds()) {
    Bounds tall = b;
    tall.first.y = -INFINITY, tall.second.y = INFINITY;
    if (reaches(tall, options_.area)) bounds.push_back(b), ++later;
  }
  offset_ = offset_for(bounds, options_);
  total_ = world_.sections.size() + later;
  return {};
}

Error SceneWalk::load_models() {
  while (models_.pending() > 0) {
    if (auto delta = models_.load_next(glm::dvec3(0.0), *assets_)) {
      if (auto replaced = scene::replace_meshes(world_, std::move(*delta)); !replaced) return replaced.error();
    }
  }
  return {};
}

bool SceneWalk::in_area(const scene::Section& s) const {
  return replay_ || reaches({s.origin + glm::dvec3(s.bounds_min), s.origin + glm::dvec3(s.bounds_max)}, options_.area);
}

Result<const scene::Section*> SceneWalk::next() {
  while (!later_done_) {
    auto piece = pieces_.next();
    if (!piece) return piece.error();
    if (!*piece) {
      later_done_ = true;
      break;
    }
    scene::Scene& delta = **piece;
    if (assets_) models_.track(delta);  // its proxies, before its meshes move into the world
    if (auto adopted = scene::adopt_meshes(world_, delta); !adopted) return adopted.error();
    if (assets_)
      if (Error e = load_models()) return e;
    piece_object_base_ = delta.object_base;
    piece_objects_ = std::move(delta.objects);
    piece_kinds_ = std::move(delta.kinds);
    ++walked_;
    index_ = considered_++;
    if (delta.sections.empty()) continue;
    scene::Section& incoming = delta.sections.front();
    // Joined with what the first piece has in the same cell, so the cell is one node.
    current_ = scene::Section{};
    for (std::size_t i = 0; i < world_.sections.size(); ++i) {
      scene::Section& s = world_.sections[i];
      if (given_[i] || s.row != incoming.row || s.col != incoming.col) continue;
      given_[i] = true;
      current_ = std::move(s);
      s = scene::Section{};
      break;
    }
    if (current_.instances.empty() && current_.batches.empty()) {
      current_ = std::move(incoming);
    } else {
      const glm::vec3 shift(incoming.origin - current_.origin);
      for (scene::Instance in : incoming.instances) {
        in.offset += shift;
        current_.instances.push_back(in);
      }
      for (scene::Batch& b : incoming.batches) {
        for (glm::vec3& p : b.positions) p += shift;
        current_.batches.push_back(std::move(b));
      }
    }
    world_.update_bounds(current_);
    if (in_area(current_)) return &current_;
  }
  // Then the first piece's sections no later piece joined.
  piece_objects_.clear();
  piece_kinds_.clear();
  while (next_first_ < world_.sections.size()) {
    const std::size_t i = next_first_++;
    if (given_[i]) continue;
    given_[i] = true;
    ++walked_;
    index_ = considered_++;
    current_ = std::move(world_.sections[i]);
    world_.sections[i] = scene::Section{};
    if (in_area(current_)) return &current_;
  }
  return static_cast<const scene::Section*>(nullptr);
}

SceneWalk::ObjectRef SceneWalk::object(std::uint32_t id) const {
  if (id == scene::kNoObject) return {};
  const auto find = [id](std::uint32_t base, const std::vector<scene::Object>& objects, const std::vector<std::string>& kinds) {
    ObjectRef ref;
    if (id < base || id - base >= objects.size()) return ref;
    ref.object = &objects[id - base];
    static const std::string none;
    ref.kind = ref.object->kind < kinds.size() ? &kinds[ref.object->kind] : &none;
    return ref;
  };
  if (ObjectRef r = find(world_.object_base, world_.objects, world_.kinds); r.object) return r;
  return find(piece_object_base_, piece_objects_, piece_kinds_);
}

}  // namespace sceneria::exports
