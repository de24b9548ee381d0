#include "render/mesh_layout.hpp"

#include <algorithm>
#include <unordered_map>

namespace sceneria {

void lay_out_mesh(const scene::Mesh& mesh, std::span<const scene::Material> materials, MeshLayout& out) {
  out.vertices.clear();
  out.materials.clear();
  out.indices.clear();
  out.parts.clear();
  out.runs.clear();
  const std::size_t n = mesh.positions.size();
  std::vector<scene::Part> parts = mesh.parts;
  if (parts.empty()) parts.push_back({0, 0, static_cast<std::uint32_t>(mesh.indices.size())});
  const scene::Material fallback;
  const auto material = [&](const scene::Part& p) -> const scene::Material& {
    return p.material < materials.size() ? materials[p.material] : fallback;
  };
  const auto blended = [&](const scene::Part& p) { return material(p).alpha == scene::Material::Alpha::blend; };

  out.vertices.reserve(n * 8);
  for (std::size_t i = 0; i < n; ++i) {
    const glm::vec3 p = mesh.positions[i];
    const glm::vec3 nr = i < mesh.normals.size() ? mesh.normals[i] : glm::vec3(0, 1, 0);
    const glm::vec2 uv = i < mesh.uvs.size() ? mesh.uvs[i] : glm::vec2(0.0f);
    out.vertices.insert(out.vertices.end(), {p.x, p.y, p.z, nr.x, nr.y, nr.z, uv.x, uv.y});
  }
  constexpr std::uint32_t kUnset = 0xFFFFFFFFu;
  out.materials.assign(n, kUnset);
  // (vertex, material) -> its copy, for vertices shared across materials (rare: looked up only then).
  std::unordered_map<std::uint64_t, std::uint32_t> copies;
  const auto vertex_for = [&](std::uint32_t v, std::uint32_t m) -> std::uint32_t {
    if (out.materials[v] == kUnset) out.materials[v] = m;
    if (out.materials[v] == m) return v;
    const auto [it, fresh] = copies.try_emplace(std::uint64_t{v} << 32 | m, static_cast<std::uint32_t>(out.materials.size()));
    if (fresh) {
      float copy[8];  // not inserted from itself: the insert may move it
      std::copy_n(out.vertices.begin() + static_cast<std::ptrdiff_t>(v) * 8, 8, copy);
      out.vertices.insert(out.vertices.end(), copy, copy + 8);
      out.materials.push_back(m);
    }
    return it->second;
  };

  out.indices.reserve(mesh.indices.size());
  for (const bool pass_blended : {false, true}) {
    for (const scene::Part& p : parts) {
      if (blended(p) != pass_blended) continue;
      const std::size_t begin = std::min<std::size_t>(p.first, mesh.indices.size());
      const std::size_t end = begin + std::min<std::size_t>(p.count, mesh.indices.size() - begin);
      scene::Part laid{p.material, static_cast<std::uint32_t>(out.indices.size()), 0};
      for (std::size_t i = begin; i + 3 <= end; i += 3) {
        const std::uint32_t a = mesh.indices[i], b = mesh.indices[i + 1], c = mesh.indices[i + 2];
        if (a >= n || b >= n || c >= n) continue;
        out.indices.insert(out.indices.end(), {vertex_for(a, p.material), vertex_for(b, p.material), vertex_for(c, p.material)});
      }
      laid.count = static_cast<std::uint32_t>(out.indices.size()) - laid.first;
      if (!laid.count) continue;
      const bool two_sided = material(p).two_sided;
      if (out.runs.empty() || out.runs.back().blended != pass_blended || out.runs.back().two_sided != two_sided)
        out.runs.push_back({laid.first, 0, 0, pass_blended, two_sided});
      out.runs.back().count += laid.count;
      ++out.runs.back().parts;
      out.parts.push_back(laid);
    }
  }
  // A vertex no triangle uses still needs a material to read (any will do).
  for (std::uint32_t& m : out.materials)
    if (m == kUnset) m = 0;
}

}  // namespace sceneria
