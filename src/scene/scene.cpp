#include "scene/scene.hpp"

#include <algorithm>
#include <cmath>

namespace sceneria::scene {

namespace {
constexpr int kGrid = 500;
constexpr int kCentre = 250;
}  // namespace

std::uint32_t Scene::add_kind(const std::string& kind) {
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] == kind) return static_cast<std::uint32_t>(i);
  kinds.push_back(kind);
  return static_cast<std::uint32_t>(kinds.size() - 1);
}

std::uint32_t Scene::add_object(std::uint32_t kind, std::uint64_t index, const glm::dvec3& anchor, float radius) {
  objects.push_back({kind, index, anchor, radius});
  return static_cast<std::uint32_t>(objects.size() - 1);
}

std::uint32_t Scene::add_material(const std::string& texture, std::uint32_t color, bool translucent) {
  if (materials.empty()) materials.push_back({});
  for (std::size_t i = 0; i < materials.size(); ++i)
    if (materials[i].texture == texture && materials[i].color == color && materials[i].translucent == translucent)
      return static_cast<std::uint32_t>(i);
  materials.push_back({texture, color, translucent});
  return static_cast<std::uint32_t>(materials.size() - 1);
}

Section& Scene::section_at(const glm::dvec3& world) {
  if (section_lookup_.empty()) section_lookup_.assign(kGrid * kGrid, -1);
  const int row = std::clamp(static_cast<int>(std::floor(world.z / kSectionSize + kCentre)), 0, kGrid - 1);
  const int col = std::clamp(static_cast<int>(std::floor(world.x / kSectionSize + kCentre)), 0, kGrid - 1);
  std::int32_t& slot = section_lookup_[static_cast<std::size_t>(row) * kGrid + static_cast<std::size_t>(col)];
  if (slot < 0) {
    Section s;
    s.row = row;
    s.col = col;
    s.origin = {(col - kCentre) * kSectionSize, 0.0, (row - kCentre) * kSectionSize};
    sections.push_back(std::move(s));
    slot = static_cast<std::int32_t>(sections.size() - 1);
  }
  return sections[static_cast<std::size_t>(slot)];
}

void Scene::update_bounds(Section& s) const {
  glm::vec3 lo(1e30f), hi(-1e30f);
  for (const Batch& b : s.batches)
    for (const glm::vec3& p : b.positions) {
      lo = glm::min(lo, p);
      hi = glm::max(hi, p);
    }
  for (const Instance& i : s.instances) {
    // A delta may refer to meshes of the scene it will join: assume a proxy's size then.
    const bool local = i.mesh >= mesh_base && i.mesh - mesh_base < meshes.size();
    const glm::vec3 size = local ? meshes[i.mesh - mesh_base].bounds_max : glm::vec3(4.0f);
    const glm::vec3 extent = size * glm::abs(i.scale) + glm::vec3(1.0f);
    const float r = std::max({extent.x, extent.y, extent.z});
    lo = glm::min(lo, i.offset - glm::vec3(r));
    hi = glm::max(hi, i.offset + glm::vec3(r));
  }
  if (lo.x > hi.x) lo = hi = glm::vec3(0.0f);
  s.bounds_min = lo;
  s.bounds_max = hi;
}

void Scene::finish() {
  bool first = true;
  for (Section& s : sections) {
    update_bounds(s);
    s.static_instances = static_cast<std::uint32_t>(s.instances.size());
    const glm::dvec3 wlo = s.origin + glm::dvec3(s.bounds_min), whi = s.origin + glm::dvec3(s.bounds_max);
    bounds_min = first ? wlo : glm::min(bounds_min, wlo);
    bounds_max = first ? whi : glm::max(bounds_max, whi);
    first = false;
  }
}

Result<std::size_t> merge_delta(Scene& scene, Scene&& delta) {
  if (delta.mesh_base != scene.meshes.size() || delta.object_base != scene.objects.size())
    return Error{Errc::bad_value, 0, "scene delta does not continue this scene's mesh and object ids"};
  if (delta.sections.size() != 1) return Error{Errc::bad_value, 0, "a scene delta carries exactly one section"};
  for (Mesh& m : delta.meshes) scene.meshes.push_back(std::move(m));
  for (const Object& o : delta.objects) scene.objects.push_back(o);
  Section& incoming = delta.sections.front();
  std::size_t index = scene.sections.size();
  for (std::size_t i = 0; i < scene.sections.size(); ++i)
    if (scene.sections[i].row == incoming.row && scene.sections[i].col == incoming.col) index = i;
  if (index == scene.sections.size()) {
    Section fresh;
    fresh.row = incoming.row;
    fresh.col = incoming.col;
    fresh.origin = incoming.origin;
    scene.sections.push_back(std::move(fresh));
  }
  Section& target = scene.sections[index];
  target.instances.resize(target.static_instances);  // a section streams in whole, never twice
  target.instances.insert(target.instances.end(), incoming.instances.begin(), incoming.instances.end());
  scene.update_bounds(target);
  scene.bounds_min = glm::min(scene.bounds_min, target.origin + glm::dvec3(target.bounds_min));
  scene.bounds_max = glm::max(scene.bounds_max, target.origin + glm::dvec3(target.bounds_max));
  return index;
}

std::ptrdiff_t drop_streamed(Scene& scene, int row, int col) {
  for (std::size_t i = 0; i < scene.sections.size(); ++i) {
    Section& s = scene.sections[i];
    if (s.row != row || s.col != col) continue;
    s.instances.resize(s.static_instances);
    s.instances.shrink_to_fit();
    scene.update_bounds(s);
    return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

glm::dvec3 bezier_point(const glm::dvec3 p[4], double t) {
  const double u = 1 - t;
  return u * u * u * p[0] + 3 * u * u * t * p[1] + 3 * u * t * t * p[2] + t * t * t * p[3];
}

glm::dvec3 bezier_direction(const glm::dvec3 p[4], double t) {
  const double u = 1 - t;
  glm::dvec3 d = 3 * u * u * (p[1] - p[0]) + 6 * u * t * (p[2] - p[1]) + 3 * t * t * (p[3] - p[2]);
  if (glm::length(d) < 1e-9) d = p[3] - p[0];
  return glm::length(d) < 1e-9 ? glm::dvec3(0, 0, 1) : glm::normalize(d);
}

std::uint32_t rgba(float r, float g, float b, float a) {
  auto c = [](float v) { return static_cast<std::uint32_t>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
  return c(r) | c(g) << 8 | c(b) << 16 | c(a) << 24;
}

std::uint32_t color_for_name(std::string_view name) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (char ch : name) h = (h ^ static_cast<std::uint8_t>(ch)) * 16777619u;
  // A hue from the hash, moderate saturation and value so boxes read as placeholders.
  const float hue = static_cast<float>(h % 360u) / 60.0f;
  const float x = 1.0f - std::fabs(std::fmod(hue, 2.0f) - 1.0f);
  glm::vec3 c = hue < 1 ? glm::vec3(1, x, 0) : hue < 2 ? glm::vec3(x, 1, 0) : hue < 3 ? glm::vec3(0, 1, x)
              : hue < 4 ? glm::vec3(0, x, 1) : hue < 5 ? glm::vec3(x, 0, 1) : glm::vec3(1, 0, x);
  c = glm::vec3(0.35f) + c * 0.5f;
  return rgba(c.r, c.g, c.b);
}

}  // namespace sceneria::scene
