#include "scene/deltas.hpp"

#include <limits>

namespace sceneria::scene {

DeltaQueue::DeltaQueue(Scene rest, std::uint32_t mesh_base, std::uint32_t object_base)
    : rest_(std::move(rest)),
      given_(rest_.sections.size(), false),
      mesh_(rest_.meshes.size(), kUnset),
      object_(rest_.objects.size(), kUnset),
      meshes_(mesh_base),
      objects_(object_base),
      left_(rest_.sections.size()) {}

std::optional<Scene> DeltaQueue::next(const glm::dvec3& near) {
  std::size_t pick = given_.size();
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < rest_.sections.size(); ++i) {
    if (given_[i]) continue;
    const Section& s = rest_.sections[i];
    const glm::dvec3 centre = s.origin + glm::dvec3(s.bounds_min + s.bounds_max) * 0.5;
    const double d = glm::length(centre - near);
    if (pick == given_.size() || d < best) pick = i, best = d;
  }
  if (pick == given_.size()) return std::nullopt;
  given_[pick] = true;
  --left_;

  Scene d;
  d.mesh_base = meshes_;
  d.object_base = objects_;
  d.grid = rest_.grid;
  d.kinds = rest_.kinds;
  // Materials and textures are the delta's own (merge_delta renumbers them): each delta carries
  // those it uses, under local ids.
  std::vector<std::uint32_t> material(rest_.materials.size(), kUnset), texture(rest_.textures.size(), kUnset);
  auto texture_of = [&](std::uint32_t t) {
    if (t >= rest_.textures.size()) return t;
    if (texture[t] == kUnset) {
      texture[t] = static_cast<std::uint32_t>(d.textures.size());
      d.textures.push_back(rest_.textures[t]);
    }
    return texture[t];
  };
  auto material_of = [&](std::uint32_t m) {
    if (m >= rest_.materials.size()) m = 0;
    if (material[m] == kUnset) {
      material[m] = static_cast<std::uint32_t>(d.materials.size());
      Material copy = rest_.materials[m];
      copy.texture = texture_of(copy.texture);
      d.materials.push_back(copy);
    }
    return material[m];
  };
  // Meshes and objects keep the viewer's ids once given; a new one takes the next id.
  auto object_of = [&](std::uint32_t o) {
    if (o >= rest_.objects.size()) return kNoObject;
    if (object_[o] == kUnset) {
      object_[o] = objects_++;
      d.objects.push_back(rest_.objects[o]);
    }
    return object_[o];
  };
  auto mesh_of = [&](std::uint32_t m) {
    if (mesh_[m] == kUnset) {
      mesh_[m] = meshes_++;
      Mesh copy = rest_.meshes[m];
      for (Part& p : copy.parts) p.material = material_of(p.material);
      d.meshes.push_back(std::move(copy));
    }
    return mesh_[m];
  };

  const Section& from = rest_.sections[pick];
  Section& to = d.sections.emplace_back();
  to.row = from.row;
  to.col = from.col;
  to.origin = from.origin;
  for (const Batch& b : from.batches) {
    Batch& copy = to.batches.emplace_back(b);
    copy.material = material_of(b.material);
    for (std::uint32_t& o : copy.objects) o = object_of(o);
  }
  for (const Instance& i : from.instances) {
    if (i.mesh >= rest_.meshes.size()) continue;
    Instance copy = i;
    copy.mesh = mesh_of(i.mesh);
    copy.object = object_of(i.object);
    to.instances.push_back(copy);
  }
  to.static_instances = 0;  // all of it streamed in
  d.update_bounds(to);
  d.bounds_min = to.origin + glm::dvec3(to.bounds_min);
  d.bounds_max = to.origin + glm::dvec3(to.bounds_max);
  return d;
}

}  // namespace sceneria::scene
