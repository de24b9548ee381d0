#include "formats/e3d/document.hpp"

#define GLM_ENABLE_EXPERIMENTAL
#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/e3d/json.hpp"
#include "formats/textures.hpp"

namespace sceneria::e3d {
namespace {

using ojson = nlohmann::ordered_json;

std::string type_name(std::int32_t type) {
  switch (type) {
    case points: return "points";
    case lines: return "lines";
    case triangles: return "triangles";
    case rotator: return "transform";
    case free_spotlight: return "free spotlight";
    case stars: return "stars";
    case text: return "text";
    default: return fmt::format("type {}", type);
  }
}

std::uint32_t rgba8(const std::array<float, 4>& c, float alpha) {
  auto byte = [](float v) { return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  return byte(c[0]) | byte(c[1]) << 8 | byte(c[2]) << 16 | byte(alpha) << 24;
}

ojson floats(std::span<const float> v) {
  auto out = ojson::array();
  for (float f : v) out.push_back(std::isfinite(f) ? ojson(f) : ojson(nullptr));
  return out;
}

}  // namespace

ModelDocument::ModelDocument(Model model, std::uint64_t size) : m_(std::move(model)), size_(size) {
  // World matrices: parent world x own, each submodel's ancestors first (the reader set the
  // parents and refused cycles).
  const std::size_t n = m_.submodels.size();
  world_.assign(n, glm::dmat4(1.0));
  std::vector<char> done(n, 0);
  std::vector<std::int32_t> up;  // a submodel and its ancestors not yet done, nearest first
  for (std::size_t i = 0; i < n; ++i) {
    up.clear();
    for (auto j = static_cast<std::int32_t>(i); j >= 0 && !done[static_cast<std::size_t>(j)]; j = m_.submodels[static_cast<std::size_t>(j)].parent) up.push_back(j);
    for (auto k = up.rbegin(); k != up.rend(); ++k) {
      const Submodel& s = m_.submodels[static_cast<std::size_t>(*k)];
      glm::dmat4 own(1.0);
      if (s.matrix >= 0) own = glm::make_mat4(m_.matrices[static_cast<std::size_t>(s.matrix)].data());
      world_[static_cast<std::size_t>(*k)] = (s.parent >= 0 ? world_[static_cast<std::size_t>(s.parent)] : glm::dmat4(1.0)) * own;
      done[static_cast<std::size_t>(*k)] = 1;
    }
  }
}

Error ModelDocument::dump_to(ByteSink& sink, int indent) const { return write_model_json(m_, sink, indent); }

std::string ModelDocument::headline() const {
  return fmt::format("E3D model, {} submodels, {} vertices, {} indices, {} textures", m_.submodels.size(), vertices(), indices(),
                     texture_count());
}

ojson ModelDocument::summary(std::size_t) const {
  ojson j;
  j["format"] = "e3d";
  j["version"] = 0;  // E3D0: the container has no other version; the chunks' digits say the layout
  j["layout"] = fmt::format("SUB{} VNT{} IDX{} TRA{}", m_.sub_variant, m_.vertex_variant, m_.index_size, m_.matrices_f64 ? 1 : 0);
  j["size"] = size_;
  // The engine's counts (what `sceneria info --json` reports for a model).
  j["submodels"] = m_.submodels.size();
  j["vertices"] = vertices();
  j["indices"] = indices();
  j["textures"] = texture_count();
  j["counts"] = {{"submodels", m_.submodels.size()}, {"vertices", vertices()}, {"indices", indices()}, {"textures", texture_count()}};
  j["textures_loaded"] = loaded_.size();
  j["hidden_submodels"] = hidden_submodels();
  j["hidden_shown"] = show_hidden_;
  if (!skin_sets_.empty()) {
    j["skin_set"] = display_text(skin_set_);
    auto sets = ojson::array();
    for (const std::string& set : skin_sets_) sets.push_back(display_text(set));
    j["skin_sets"] = std::move(sets);
  }
  auto structure = ojson::array();
  structure.push_back({{"name", "E3D0"}, {"offset", 0}, {"size", size_ - m_.trailing.size()}});
  for (const ChunkInfo& c : m_.chunks) structure.push_back({{"name", std::string(c.id.data(), 4)}, {"offset", c.offset}, {"size", c.size}});
  j["structure"] = std::move(structure);
  j["structureName"] = "chunks";
  return j;
}

std::vector<ListInfo> ModelDocument::lists() const {
  std::vector<ListInfo> out{{"submodels", "Submodels", m_.submodels.size()}};
  if (!m_.textures.empty()) out.push_back({"textures", "Textures", m_.textures.size()});
  return out;
}

ojson ModelDocument::rows(std::string_view list, std::uint64_t first, std::uint64_t count) const {
  auto out = ojson::array();
  for (std::uint64_t i = first; i < list_size(list) && i < first + count; ++i) out.push_back(row(list, i));
  return out;
}

ojson ModelDocument::search(std::string_view list, std::string_view query, std::uint64_t limit) const {
  auto out = ojson::array();
  for (std::uint64_t i = 0; i < list_size(list) && out.size() < limit; ++i) {
    ojson r = row(list, i);
    if (icontains(r["name"].get<std::string>() + " " + r["detail"].get<std::string>(), query)) out.push_back(std::move(r));
  }
  return out;
}

ojson ModelDocument::record(std::string_view list, std::uint64_t index) const {
  if (index >= list_size(list)) return nullptr;
  if (list == "textures") {
    std::uint64_t used = 0;
    for (const Submodel& s : m_.submodels) used += s.texture == static_cast<std::int32_t>(index);
    return ojson{{"name", display_text(m_.textures[static_cast<std::size_t>(index)])}, {"used_by", used}};
  }
  const Submodel& s = m_.submodels[static_cast<std::size_t>(index)];
  ojson r;
  r["name"] = display_text(m_.name_of(s));
  r["type"] = type_name(s.type);
  r["anim"] = s.anim;
  r["flags"] = fmt::format("{:#x}", s.flags);
  r["parent"] = s.parent >= 0 ? ojson(s.parent) : ojson(nullptr);
  r["next"] = s.next > 0 ? ojson(s.next) : ojson(nullptr);
  r["child"] = s.child > 0 ? ojson(s.child) : ojson(nullptr);
  std::array<float, 16> matrix{};
  if (s.matrix >= 0)
    for (std::size_t e = 0; e < 16; ++e) matrix[e] = static_cast<float>(m_.matrices[static_cast<std::size_t>(s.matrix)][e]);
  else
    matrix = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  r["matrix"] = floats(matrix);
  r["vertices"] = {{"count", s.vertex_count}, {"offset", s.vertex_offset}};
  r["indices"] = {{"count", s.index_count}, {"offset", s.index_offset}};
  r["material"] = display_text(m_.material_of(s));
  r["self_illum"] = s.self_illum;
  r["diffuse"] = floats(s.diffuse);
  r["ambient"] = floats(s.ambient);
  r["specular"] = floats(s.specular);
  r["emission"] = floats(s.emission);
  r["range"] = {{"min", std::sqrt(std::max(0.0f, s.min_distance_sq))}, {"max", std::sqrt(std::max(0.0f, s.max_distance_sq))}};
  r["hidden_by_default"] = {{"scenery", m_.hidden_by_default(s, false)}, {"vehicle", m_.hidden_by_default(s, true)}};
  if (s.type == free_spotlight)
    r["light"] = {{"near_atten_start", s.light.near_atten_start}, {"near_atten_end", s.light.near_atten_end},
                  {"far_decay_radius", s.light.far_decay_radius}, {"cos_falloff", s.light.cos_falloff}, {"cos_hotspot", s.light.cos_hotspot}};
  return r;
}

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
  const auto first = static_cast<std::size_t>(sub.vertex_offset);
  for (std::int32_t v = 0; v < sub.vertex_count; ++v) {
    const Vertex x = m_.vertex(first + static_cast<std::size_t>(v));
    glm::vec3 n(x.normal[0], x.normal[1], x.normal[2]);
    const float len = glm::length(n);
    n = len > 1e-12f && std::isfinite(len) ? n / len : glm::vec3(0, 1, 0);  // VNT0 normals may be non-unit
    mesh.positions.emplace_back(x.position[0], x.position[1], x.position[2]);
    mesh.normals.push_back(n);
    mesh.uvs.emplace_back(x.uv[0], x.uv[1]);
  }
  if (sub.index_count > 0)
    for (std::int32_t k = 0; k < sub.index_count; ++k) mesh.indices.push_back(m_.index(static_cast<std::size_t>(sub.index_offset + k)));
  else
    for (std::int32_t k = 0; k < sub.vertex_count / 3 * 3; ++k) mesh.indices.push_back(static_cast<std::uint32_t>(k));
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

std::uint64_t ModelDocument::list_size(std::string_view list) const {
  if (list == "submodels") return m_.submodels.size();
  if (list == "textures") return m_.textures.size();
  return 0;
}

ojson ModelDocument::row(std::string_view list, std::uint64_t i) const {
  if (list == "textures") return ojson{{"i", i}, {"name", display_text(m_.textures[static_cast<std::size_t>(i)])}, {"detail", i == 0 ? "(the list's empty first entry)" : ""}};
  const Submodel& s = m_.submodels[static_cast<std::size_t>(i)];
  const std::string_view name = m_.name_of(s);
  // Its place in the tree, for the outliner's indentation (a hostile file's loop stops at 64).
  int depth = 0;
  for (std::int64_t p = s.parent; p >= 0 && static_cast<std::size_t>(p) < m_.submodels.size() && depth < 64; ++depth)
    p = m_.submodels[static_cast<std::size_t>(p)].parent;
  return ojson{{"i", i}, {"name", name.empty() ? std::string("(unnamed)") : display_text(name)},
               {"detail", fmt::format("{}, {}", type_name(s.type), display_text(m_.material_of(s)))}, {"depth", depth}};
}

std::uint64_t ModelDocument::vertices() const {
  std::uint64_t n = 0;
  for (const Submodel& s : m_.submodels) n += static_cast<std::uint64_t>(std::max(0, s.vertex_count));
  return n;
}

std::uint64_t ModelDocument::hidden_submodels() const {
  std::uint64_t hidden = 0;
  for (const Submodel& sub : m_.submodels) hidden += sub.type != rotator && sub.vertex_count > 0 && m_.hidden_by_default(sub, true);
  return hidden;
}

const std::vector<Choice>& model_choices() {
  static const std::vector<Choice> choices = {
      {.param = "skin-set",
       .label = "Skin set",
       .help = "The replaceable skins (<name>,1 … <name>,4 among the files, a .mat or an image) the model is drawn with; by default the first set"},
      {.param = "hidden",
       .label = "Show submodels lights switch on",
       .help = "Draws the submodels hidden until lights or events switch them on (*_on, Light_On*)",
       .toggle = true,
       .value = "false"},
  };
  return choices;
}

std::vector<Choice> ModelDocument::choices() const {
  std::vector<Choice> out;
  if (!skin_sets_.empty()) {
    Choice c = model_choices()[0];
    for (const std::string& set : skin_sets_) c.values.push_back({set, set});
    c.value = skin_set_;
    out.push_back(std::move(c));
  }
  if (const std::uint64_t hidden = hidden_submodels(); hidden > 0) {
    Choice c = model_choices()[1];
    c.label = fmt::format("Show {} submodel{} lights switch on", hidden, hidden == 1 ? "" : "s");
    c.value = show_hidden_ ? "true" : "false";
    out.push_back(std::move(c));
  }
  return out;
}

std::uint64_t ModelDocument::indices() const {
  std::uint64_t n = 0;
  for (const Submodel& s : m_.submodels) n += static_cast<std::uint64_t>(std::max(0, s.index_count));
  return n;
}

std::string ModelDocument::look_name(const Submodel& s) const {
  if (s.texture < 0) return fmt::format("skin {}", -s.texture);
  return m_.material_of(s);
}

void ModelDocument::apply(const OpenOptions& options, std::string_view source_name) {
  placed_ = !options.texture_base.empty();
  const std::string base = placed_ ? options.texture_base : folder_of(source_name);
  if (options.assets) load_textures(*options.assets, base, options.param("skin-set"));
  show_hidden_ = options.param("hidden") == "true";
}

void ModelDocument::load_textures(AssetResolver& assets, std::string_view base, std::string_view skin_set) {
  loaded_.clear(), missing_.clear(), skin_sets_.clear();
  std::vector<std::string> tried;  // each material once, found or not
  const auto load = [&](const std::string& look, std::string_view folder, std::string_view name) {
    if (std::find(tried.begin(), tried.end(), look) != tried.end()) return;
    tried.push_back(look);
    std::string why;
    if (auto t = load_material_texture(assets, folder, name, &why)) loaded_.emplace(look, std::move(*t));
    else missing_.push_back(look.rfind("skin ", 0) == 0 ? fmt::format("{} (replaceable {})", why, look) : why);
  };
  bool skins = false;
  for (const Submodel& s : m_.submodels) {
    if (s.type != triangles || s.vertex_count <= 0) continue;
    if (s.texture < 0) skins = true;
    if (s.texture > 0 && m_.material_of(s) != "colored") load(look_name(s), base, m_.material_of(s));
  }
  if (!skins || placed_) return;  // a scenery gives each instance its skins
  // Skin sets: "<set>,<n>" files (a .mat or an image) anywhere among the files, by folder and set.
  std::map<std::string, std::string> sets;  // set path (folder/set) -> folder
  for (const std::string& path : assets.listing()) {
    const auto slash = path.rfind('/');
    const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string file = path.substr(folder.size());
    const auto comma = file.rfind(',');
    const auto dot = file.rfind('.');
    if (comma == std::string::npos || dot == std::string::npos || dot < comma + 2) continue;
    const std::string n = file.substr(comma + 1, dot - comma - 1);
    if (n.size() != 1 || n[0] < '1' || n[0] > '4') continue;
    sets.emplace(folder + file.substr(0, comma), folder);
  }
  for (const auto& [set, folder] : sets) skin_sets_.push_back(set);
  if (sets.empty()) {
    missing_.push_back("no skin set among the files (\"<name>,1.dds\" or \"<name>,1.mat\" gives replaceable skin 1)");
    return;
  }
  auto chosen = sets.begin();
  for (auto it = sets.begin(); it != sets.end(); ++it)
    if (!skin_set.empty() && (iequals(it->first, skin_set) || iends_with(it->first, "/" + std::string(skin_set)))) chosen = it;
  skin_set_ = chosen->first;
  const std::string name = chosen->first.substr(chosen->second.size());
  for (const Submodel& s : m_.submodels)
    if (s.texture < 0 && s.texture >= -4) load(look_name(s), chosen->second, fmt::format("{},{}", name, -s.texture));
}

}  // namespace sceneria::e3d
