// A model as the inspector and `sceneria info` see it: the headline, the engine's counts, the
// open choices, the submodel tree and texture lists, and every field of a record.
#include "formats/e3d/document.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/e3d/json.hpp"

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

ojson floats(std::span<const float> v) {
  auto out = ojson::array();
  for (float f : v) out.push_back(std::isfinite(f) ? ojson(f) : ojson(nullptr));
  return out;
}

}  // namespace

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

}  // namespace sceneria::e3d
