// A model's scene flattened into one instancing mesh, and such meshes put in place of proxies.
#include <algorithm>
#include <cmath>
#include <map>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "scene/scene.hpp"

namespace sceneria::scene {

namespace {

// How far a mesh reaches from its origin along any axis: what the section bounds assume of each
// instance (Scene::update_bounds).
float reach(const Mesh& m) {
  const glm::vec3 r = glm::max(glm::abs(m.bounds_min), glm::abs(m.bounds_max));
  return std::max({r.x, r.y, r.z});
}

}  // namespace

Scene single_mesh(const Scene& model, std::uint32_t replaced, std::string name) {
  // Where each mesh is placed: by the model's nodes (parents first) and by its sections' instances.
  std::vector<std::pair<std::uint32_t, glm::dmat4>> placed;
  std::vector<glm::dmat4> node_world(model.nodes.size(), glm::dmat4(1.0));
  for (std::size_t k = 0; k < model.nodes.size(); ++k) {
    const Node& n = model.nodes[k];
    const glm::dmat4 own = glm::translate(glm::dmat4(1.0), glm::dvec3(n.translation)) * glm::mat4_cast(glm::dquat(n.rotation)) *
                           glm::scale(glm::dmat4(1.0), glm::dvec3(n.scale));
    node_world[k] = (n.parent >= 0 && static_cast<std::size_t>(n.parent) < k ? node_world[static_cast<std::size_t>(n.parent)] : glm::dmat4(1.0)) * own;
    if (n.mesh >= 0) placed.emplace_back(static_cast<std::uint32_t>(n.mesh), node_world[k]);
  }
  // A model with nodes places its meshes by them alone; its instances place them again for the renderer.
  if (model.nodes.empty())
    for (const Section& sec : model.sections)
      for (const Instance& i : sec.instances)
        placed.emplace_back(i.mesh, glm::translate(glm::dmat4(1.0), sec.origin + glm::dvec3(i.offset)) *
                                      glm::mat4_cast(glm::dquat(i.rotation)) * glm::scale(glm::dmat4(1.0), glm::dvec3(i.scale)));

  Scene out;
  out.grid = model.grid;
  out.replaces = {replaced};
  Mesh mesh;
  mesh.name = std::move(name);
  // Indices by material, in the order materials first appear: one part each.
  std::vector<std::uint32_t> material_order;
  std::map<std::uint32_t, std::vector<std::uint32_t>> by_material;
  for (const auto& [id, world] : placed) {
    if (id < model.mesh_base || id - model.mesh_base >= model.meshes.size()) continue;
    const Mesh& m = model.meshes[id - model.mesh_base];
    const auto base = static_cast<std::uint32_t>(mesh.positions.size());
    const glm::dmat3 normal_matrix = glm::transpose(glm::inverse(glm::dmat3(world)));
    for (std::size_t v = 0; v < m.positions.size(); ++v) {
      mesh.positions.push_back(glm::vec3(world * glm::dvec4(glm::dvec3(m.positions[v]), 1.0)));
      const glm::dvec3 n = v < m.normals.size() ? normal_matrix * glm::dvec3(m.normals[v]) : glm::dvec3(0, 1, 0);
      const double length = glm::length(n);
      mesh.normals.push_back(length > 1e-12 ? glm::vec3(n / length) : glm::vec3(0, 1, 0));
      mesh.uvs.push_back(v < m.uvs.size() ? m.uvs[v] : glm::vec2(0.0f));
    }
    std::vector<Part> parts = m.parts;
    if (parts.empty()) parts.push_back({0, 0, static_cast<std::uint32_t>(m.indices.size())});
    for (const Part& p : parts) {
      if (p.first > m.indices.size() || p.count > m.indices.size() - p.first) continue;
      auto [slot, fresh] = by_material.try_emplace(p.material);
      if (fresh) material_order.push_back(p.material);
      for (std::uint32_t k = p.first; k < p.first + p.count; ++k)
        if (m.indices[k] < m.positions.size()) slot->second.push_back(base + m.indices[k]);
    }
  }
  // The materials used, and their textures, under the delta's own ids.
  std::map<std::uint32_t, std::uint32_t> texture_id;
  for (std::uint32_t material : material_order) {
    Material look = material < model.materials.size() ? model.materials[material] : Material{};
    if (look.texture != kNoTexture) {
      if (look.texture < model.textures.size()) {
        auto [t, fresh] = texture_id.try_emplace(look.texture, static_cast<std::uint32_t>(out.textures.size()));
        if (fresh) out.textures.push_back(model.textures[look.texture]);
        look.texture = t->second;
      } else {
        look.texture = kNoTexture;
      }
    }
    std::vector<std::uint32_t>& indices = by_material[material];
    const auto first = static_cast<std::uint32_t>(mesh.indices.size());
    mesh.indices.insert(mesh.indices.end(), indices.begin(), indices.end());
    mesh.parts.push_back({out.add_material(look), first, static_cast<std::uint32_t>(indices.size())});
  }
  glm::vec3 lo(0.0f), hi(0.0f);
  if (!mesh.positions.empty()) lo = hi = mesh.positions.front();
  for (const glm::vec3& p : mesh.positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
  mesh.bounds_min = lo, mesh.bounds_max = hi;
  out.meshes.push_back(std::move(mesh));
  return out;
}

Result<std::vector<std::uint32_t>> replace_meshes(Scene& scene, Scene&& delta) {
  if (delta.replaces.size() != delta.meshes.size() || delta.replaces.empty() || !delta.sections.empty())
    return Error{Errc::bad_value, 0, "a replacing delta names one mesh per mesh it brings, and no sections"};
  for (std::uint32_t id : delta.replaces)
    if (id >= scene.meshes.size()) return Error{Errc::bad_value, 0, "a replacing delta names a mesh the scene does not have"};
  for (const Material& m : delta.materials)
    if (m.texture != kNoTexture && m.texture >= delta.textures.size()) return Error{Errc::bad_value, 0, "a replacing delta's material names a missing texture"};
  for (const Mesh& m : delta.meshes)
    for (const Part& p : m.parts)
      if (p.material >= delta.materials.size()) return Error{Errc::bad_value, 0, "a replacing delta's part names a missing material"};
  const std::uint32_t material_base = adopt_looks(scene, delta);
  std::vector<bool> grew(scene.meshes.size(), false);
  bool any_grew = false;
  for (std::size_t k = 0; k < delta.meshes.size(); ++k) {
    Mesh& m = delta.meshes[k];
    for (Part& p : m.parts) p.material += material_base;
    Mesh& target = scene.meshes[delta.replaces[k]];
    if (reach(m) > reach(target)) grew[delta.replaces[k]] = any_grew = true;
    target = std::move(m);
  }
  // Only sections with a model reaching further than its proxy did get their bounds again: a
  // smaller one leaves them a little generous (culling stays right), which saves a pass over
  // every instance for most models.
  if (any_grew)
    for (Section& s : scene.sections)
      if (std::any_of(s.instances.begin(), s.instances.end(), [&](const Instance& i) { return i.mesh < grew.size() && grew[i.mesh]; })) {
        scene.update_bounds(s);
        scene.bounds_min = glm::min(scene.bounds_min, s.origin + glm::dvec3(s.bounds_min));
        scene.bounds_max = glm::max(scene.bounds_max, s.origin + glm::dvec3(s.bounds_max));
      }
  return std::move(delta.replaces);
}

}  // namespace sceneria::scene
