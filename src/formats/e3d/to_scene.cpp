// A model as a scene: a mesh per drawn submodel (triangles, and a marker for each light or
// point) placed by its world matrix, its textures and skins as materials, and the submodel tree
// as the scene's nodes.
#include "formats/e3d/document.hpp"

#define GLM_ENABLE_EXPERIMENTAL
#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/text.hpp"

namespace sceneria::e3d {

namespace {

using ojson = nlohmann::ordered_json;

std::uint32_t rgba8(const std::array<float, 4>& c, float alpha) {
  auto byte = [](float v) { return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  return byte(c[0]) | byte(c[1]) << 8 | byte(c[2]) << 16 | byte(alpha) << 24;
}

}  // namespace

// Lights and points have no surface: a small octahedron marks each (up to 4096; a star shows
// its colour, white here, a light its diffuse colour).
scene::Mesh ModelDocument::marker_mesh(const Submodel& sub, scene::Scene& s) const {
  scene::Mesh mesh;
  const float r = sub.type == free_spotlight ? 0.06f : 0.03f;
  const glm::vec3 corner[6] = {{r, 0, 0}, {-r, 0, 0}, {0, r, 0}, {0, -r, 0}, {0, 0, r}, {0, 0, -r}};
  static const std::uint32_t kFaces[24] = {0, 2, 4, 4, 2, 1, 1, 2, 5, 5, 2, 0, 4, 3, 0, 1, 3, 4, 5, 3, 1, 0, 3, 5};
  const std::int32_t shown = std::min(sub.vertex_count, 4096);
  for (std::int32_t v = 0; v < shown; ++v) {
    const Vertex x = m_.vertex(static_cast<std::size_t>(sub.vertex_offset) + static_cast<std::size_t>(v));
    const glm::vec3 p(x.position[0], x.position[1], x.position[2]);
    const auto base = static_cast<std::uint32_t>(mesh.positions.size());
    for (const glm::vec3& c : corner) {
      mesh.positions.push_back(p + c);
      mesh.normals.push_back(glm::normalize(c));
      mesh.uvs.emplace_back(0.0f, 0.0f);
    }
    for (std::uint32_t k : kFaces) mesh.indices.push_back(base + k);
  }
  scene::Material look;
  look.name = sub.type == free_spotlight ? "light" : sub.type == stars ? "stars" : "points";
  look.color = sub.type == stars ? 0xFFFFFFFFu : rgba8(sub.diffuse, 1.0f);
  mesh.parts.push_back({s.add_material(look), 0, static_cast<std::uint32_t>(mesh.indices.size())});
  return mesh;
}

// Its triangles as stored (indexed, or the vertex block itself), with its material: the loaded
// texture (or skin) when there is one.
scene::Mesh ModelDocument::triangle_mesh(const Submodel& sub, scene::Scene& s) const {
  scene::Mesh mesh;
  const auto first = static_cast<std::size_t>(sub.vertex_offset), count = static_cast<std::size_t>(sub.vertex_count);
  mesh.positions.resize(count), mesh.normals.resize(count), mesh.uvs.resize(count);
  const auto put = [&](std::size_t v, glm::vec3 p, glm::vec3 n, glm::vec2 uv) {
    const float len = glm::length(n);
    mesh.positions[v] = p;
    mesh.normals[v] = len > 1e-12f && std::isfinite(len) ? n / len : glm::vec3(0, 1, 0);  // VNT0 normals may be non-unit
    mesh.uvs[v] = uv;
  };
  if ((m_.vertex_variant & 3) == 1) {  // packed: halves and 10-bit normals, decoded one by one
    for (std::size_t v = 0; v < count; ++v) {
      const Vertex x = m_.vertex(first + v);
      put(v, {x.position[0], x.position[1], x.position[2]}, {x.normal[0], x.normal[1], x.normal[2]}, {x.uv[0], x.uv[1]});
    }
  } else {  // floats: position, normal and uv lead every vertex, read in place
    const std::size_t stride = m_.vertex_stride();
    const std::uint8_t* p = m_.vertex_bytes.data() + first * stride;
    for (std::size_t v = 0; v < count; ++v, p += stride) {
      const auto f = [p](std::size_t k) {
        float x;
        std::memcpy(&x, p + 4 * k, sizeof x);
        return x;
      };
      put(v, {f(0), f(1), f(2)}, {f(3), f(4), f(5)}, {f(6), f(7)});
    }
  }
  if (sub.index_count > 0) {
    const auto n = static_cast<std::size_t>(sub.index_count);
    mesh.indices.resize(n);
    const std::uint8_t* p = m_.index_bytes.data() + static_cast<std::size_t>(sub.index_offset) * static_cast<std::size_t>(m_.index_size);
    if (m_.index_size == 4) std::memcpy(mesh.indices.data(), p, n * 4);
    else if (m_.index_size == 2)
      for (std::size_t k = 0; k < n; ++k) mesh.indices[k] = static_cast<std::uint32_t>(p[2 * k] | p[2 * k + 1] << 8);
    else
      for (std::size_t k = 0; k < n; ++k) mesh.indices[k] = p[k];
  } else {
    mesh.indices.resize(count / 3 * 3);
    for (std::size_t k = 0; k < mesh.indices.size(); ++k) mesh.indices[k] = static_cast<std::uint32_t>(k);
  }
  scene::Material look;
  look.name = display_text(m_.material_of(sub));
  look.color = rgba8(sub.diffuse, 1.0f);
  if (auto it = loaded_.find(look_name(sub)); it != loaded_.end()) {
    look.texture = s.add_texture(it->first);
    if (s.textures[look.texture].levels.empty()) s.textures[look.texture] = it->second, s.textures[look.texture].name = it->first;
    look.color = 0xFFFFFFFFu;  // a textured submodel's diffuse is a lighting term, not a tint
  } else if (sub.texture > 0 && m_.material_of(sub) != "colored") {
    look.texture = s.add_texture(m_.material_of(sub));  // named, not found: drawn in its colour
  }
  if (sub.flags & flag::translucent && !(sub.flags & flag::opaque)) look.alpha = scene::Material::Alpha::blend;
  mesh.parts.push_back({s.add_material(look), 0, static_cast<std::uint32_t>(mesh.indices.size())});
  return mesh;
}

Result<scene::Scene> ModelDocument::scene() const {
  scene::Scene s;
  s.grid = {.cell = 1000.0, .centre = 250, .cells = 500};
  const std::uint32_t kind = s.add_kind("submodels");
  std::vector<std::int32_t> mesh_of(m_.submodels.size(), -1);
  std::vector<std::uint32_t> object_of(m_.submodels.size(), scene::kNoObject);
  for (std::size_t i = 0; i < m_.submodels.size(); ++i) {
    const Submodel& sub = m_.submodels[i];
    const bool marker = sub.type == free_spotlight || sub.type == points || sub.type == stars;
    if ((sub.type != triangles && !marker) || sub.vertex_count <= 0 || (m_.hidden_by_default(sub, !placed_) && !show_hidden_)) continue;
    scene::Mesh mesh = marker ? marker_mesh(sub, s) : triangle_mesh(sub, s);
    mesh.name = display_text(m_.name_of(sub));
    glm::vec3 lo(INFINITY), hi(-INFINITY);
    for (const glm::vec3& p : mesh.positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
    mesh.bounds_min = lo, mesh.bounds_max = hi;
    const std::uint32_t mesh_id = static_cast<std::uint32_t>(s.meshes.size());
    s.meshes.push_back(std::move(mesh));

    scene::Instance& inst = scene::add_instance(s, world_[i], mesh_id);
    inst.range_sq_min = sub.min_distance_sq;
    inst.range_sq_max = sub.max_distance_sq > 0 ? sub.max_distance_sq : 1e30f;
    const glm::dvec3 centre = glm::dvec3(world_[i] * glm::dvec4(glm::dvec3((lo + hi) * 0.5f), 1.0));
    inst.object = s.add_object(kind, i, centre, std::max(0.05f, glm::length(hi - lo) / 2));
    mesh_of[i] = static_cast<std::int32_t>(mesh_id);
    object_of[i] = inst.object;
  }
  add_hierarchy(s, mesh_of, object_of);
  s.finish();
  return s;
}

void ModelDocument::add_hierarchy(scene::Scene& s, const std::vector<std::int32_t>& mesh_of, const std::vector<std::uint32_t>& object_of) const {
  // A node per submodel, each with its own matrix, parents first (the reader linked them and
  // refused cycles; a submodel no link reaches is a root).
  const std::size_t n = m_.submodels.size();
  std::vector<std::int32_t> node_of(n, -1);
  std::vector<std::int32_t> up;
  for (std::size_t i = 0; i < n; ++i) {
    up.clear();
    for (auto j = static_cast<std::int32_t>(i); j >= 0 && node_of[static_cast<std::size_t>(j)] < 0; j = m_.submodels[static_cast<std::size_t>(j)].parent)
      up.push_back(j);
    for (auto k = up.rbegin(); k != up.rend(); ++k) {
      const auto at = static_cast<std::size_t>(*k);
      const Submodel& sub = m_.submodels[at];
      scene::Node node;
      const std::string_view name = m_.name_of(sub);
      node.name = name.empty() ? fmt::format("submodel {}", at) : display_text(name);
      node.parent = sub.parent >= 0 ? node_of[static_cast<std::size_t>(sub.parent)] : -1;
      if (sub.matrix >= 0) {
        if (scene::Trs t; scene::decompose_trs(glm::make_mat4(m_.matrices[static_cast<std::size_t>(sub.matrix)].data()), t))
          node.translation = glm::vec3(t.translation), node.rotation = glm::quat(t.rotation), node.scale = glm::vec3(t.scale);
      }
      node.mesh = mesh_of[at];
      node.object = object_of[at];
      node_of[at] = static_cast<std::int32_t>(s.nodes.size());
      s.nodes.push_back(std::move(node));
    }
  }
}

std::string ModelDocument::look_name(const Submodel& s) const {
  if (s.texture < 0) return fmt::format("skin {}", -s.texture);
  return m_.material_of(s);
}

}  // namespace sceneria::e3d
