// A module as the inspector and `sceneria info` see it: the headline, the summary with its
// structure and open choices, the block tree, materials and resources lists, each block's fields
// by the catalogue.
#include "formats/b3d/document.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/b3d/catalogue.hpp"
#include "formats/b3d/json.hpp"
#include "formats/row_lists.hpp"

namespace sceneria::b3d {

namespace {

using ojson = nlohmann::ordered_json;

// ---- fields for the inspector ----
ojson value_json(char kind, const std::uint32_t* w) {
  if (kind == 'f') {
    const float f = as_float(*w);
    return std::isfinite(f) ? ojson(static_cast<double>(f)) : ojson(fmt::format("{:#010x}", *w));
  }
  if (kind == 'i') return static_cast<std::int32_t>(*w);
  return *w;
}

ojson pattern_json(std::string_view pattern, const std::uint32_t*& w) {
  if (pattern == "n") {
    Name n;
    std::memcpy(n.data(), w, 32);
    w += 8;
    return name_text(n);
  }
  if (pattern.size() == 1) return value_json(pattern[0], w++);
  ojson a = ojson::array();
  for (char c : pattern) a.push_back(value_json(c, w++));
  return a;
}

// How many groups the LOD and switch containers have (the most of any), and how many blocks are
// hidden unless shown: what the module's choices offer.
std::pair<std::uint64_t, std::uint64_t> choice_counts(const File& f) {
  std::uint64_t group_count = 0, hidden = 0;
  for (const Block& b : f.blocks) {
    if (const Layout* l = layout_of(b.type); l && l->grouped) {
      std::uint64_t groups = 1;
      for (const Item& i : b.items) groups += i.separator();
      group_count = std::max(group_count, groups);
    }
    hidden += hidden_type(b.type);
  }
  return {group_count, hidden};
}

}  // namespace

ojson block_fields(const Block& b) {
  ojson j = ojson::object();
  const Layout* l = layout_of(b.type);
  if (!l) return j;
  const std::uint32_t* w = b.words.data();
  const std::uint32_t* end = w + b.words.size();
  std::vector<const std::uint32_t*> starts;
  for (const Field& f : l->fields) {
    starts.push_back(w);
    using K = Field::Kind;
    if (f.kind == K::plain && w + f.words <= end) {
      j[std::string(f.name)] = pattern_json(f.pattern, w);
    } else if (f.kind == K::counted) {
      const std::uint32_t n = *starts[static_cast<std::size_t>(f.count_of)];
      ojson a = ojson::array();
      for (std::uint32_t k = 0; k < n && w + f.words <= end; ++k) {
        if (k == 64) {  // a long list: its first items and how many
          a.push_back(fmt::format("… {} in all", n));
          w += std::size_t{n - k} * f.words;
          break;
        }
        a.push_back(pattern_json(f.pattern, w));
      }
      j[std::string(f.name)] = std::move(a);
    } else if (f.kind == K::extra_word && b.extra_word && w < end) {
      j[std::string(f.name)] = *w++;
    } else if (f.kind == K::vertices || f.kind == K::formatted_vertices) {
      if (f.kind == K::formatted_vertices) {
        const VertexLayout vl = vertex_layout(b.vertices.format);
        j["vertex_format"] = b.vertices.format;
        j["vertex_layout"] = fmt::format("position, uv{}{}", vl.extra_uvs ? fmt::format(", {} more uv set{}", vl.extra_uvs, vl.extra_uvs == 1 ? "" : "s") : "",
                                         vl.normal == 3 ? ", normal" : ", a scalar");
      }
      j["vertices"] = b.vertices.count();
    } else if (f.kind == K::polygons || f.kind == K::sprites || f.kind == K::collision) {
      j["polygons"] = f.kind == K::collision ? b.collision.size() : b.polygons.size();
      if (f.kind != K::collision) {
        std::size_t corners = 0;
        std::map<std::uint32_t, std::size_t> formats;
        for (const Polygon& p : b.polygons) corners += p.count(), ++formats[p.format];
        j["corners"] = corners;
        ojson fm = ojson::object();
        for (const auto& [format, n] : formats) fm[std::to_string(format)] = n;
        j["polygon_formats"] = std::move(fm);
      }
    } else if (f.kind == K::children) {
      std::size_t children = 0, groups = 1;
      for (const Item& i : b.items) children += !i.separator(), groups += i.separator();
      j["child_count"] = b.child_count;
      if (children != b.child_count) j["children_held"] = children;
      if (l->grouped) j["groups"] = groups;
    }
  }
  return j;
}

std::string B3dDocument::headline() const {
  std::set<std::uint32_t> types;
  std::size_t triangles = 0;
  for (const Block& b : f_.blocks) {
    types.insert(b.type);
    for (const Polygon& p : b.polygons) triangles += p.count() >= 3 ? p.count() - 2 : 0;
  }
  return fmt::format("B3D, {} block{} ({} type{}), {} material{}, {} triangle{}{}", f_.blocks.size(), f_.blocks.size() == 1 ? "" : "s", types.size(),
                     types.size() == 1 ? "" : "s", f_.materials.size(), f_.materials.size() == 1 ? "" : "s", triangles, triangles == 1 ? "" : "s",
                     f_.incomplete ? " (read up to a break)" : "");
}

const std::vector<Choice>& module_choices() {
  static const std::vector<Choice> choices = {
      {.param = "group",
       .label = "Groups",
       .help = "LOD levels and switch states: every LOD and switch container draws this group of its children (its last, if it has fewer)",
       .value = "0"},
      {.param = "hidden",
       .label = "Show collision, trigger and portal blocks",
       .help = "Draws the blocks the game does not show: collision, triggers, portals and generators",
       .toggle = true,
       .value = "false"},
  };
  return choices;
}

std::vector<Choice> B3dDocument::choices() const {
  const auto [group_count, hidden] = choice_counts(f_);
  std::vector<Choice> out;
  if (group_count >= 2) {
    Choice c = module_choices()[0];
    for (std::uint64_t g = 0; g < group_count; ++g) c.values.push_back({std::to_string(g), g == 0 ? "group 0 (the default)" : fmt::format("group {}", g)});
    c.value = std::to_string(std::min<std::uint64_t>(view_.group, group_count - 1));
    out.push_back(std::move(c));
  }
  if (hidden > 0) {
    Choice c = module_choices()[1];
    c.label = fmt::format("Show {} collision, trigger and portal block{}", hidden, hidden == 1 ? "" : "s");
    c.value = view_.show_hidden ? "true" : "false";
    out.push_back(std::move(c));
  }
  return out;
}

ojson B3dDocument::summary(std::size_t) const {
  ojson j;
  j["format"] = "b3d";
  j["version"] = 0;
  j["size"] = size_;
  std::map<std::uint32_t, std::uint64_t> blocks, vertices, polygons, corners;
  std::uint64_t triangles = 0;
  for (const Block& b : f_.blocks) {
    ++blocks[b.type];
    if (b.type == 6 || b.type == 7 || b.type == 36 || b.type == 37) vertices[b.type] += b.vertices.count();
    if (b.type == 8 || b.type == 28 || b.type == 35) {
      polygons[b.type] += b.polygons.size();
      for (const Polygon& p : b.polygons) corners[b.type] += p.count(), triangles += triangulate(p.count(), corner_layout(p.format, b.type == 28).strip).size();
    }
  }
  const auto by_type = [](const std::map<std::uint32_t, std::uint64_t>& m) {
    ojson o = ojson::object();
    for (const auto& [t, n] : m) o[std::to_string(t)] = n;
    return o;
  };
  std::uint64_t total_vertices = 0, total_polygons = 0, total_corners = 0;
  for (const auto& [t, n] : vertices) total_vertices += n;
  for (const auto& [t, n] : polygons) total_polygons += n;
  for (const auto& [t, n] : corners) total_corners += n;
  // What `sceneria info X.b3d --json` promises (issue 14).
  j["blocks"] = by_type(blocks);
  j["materials"] = f_.materials.size();
  j["vertices"] = by_type(vertices);
  j["polygons"] = by_type(polygons);
  j["corners"] = by_type(corners);
  j["triangles"] = triangles;
  j["material_names"] = ojson::array();
  for (const Name& m : f_.materials) j["material_names"].push_back(name_text(m));
  j["counts"] = {{"blocks", f_.blocks.size()}, {"materials", f_.materials.size()}, {"vertices", total_vertices},
                 {"polygons", total_polygons}, {"corners", total_corners}, {"triangles", triangles}};
  j["resources"] = ojson::array();
  for (const Resources& r : resources_) {
    ojson o{{"name", r.name}};
    for (const ResSection& s : r.res.sections) o[s.name] = s.count;
    j["resources"].push_back(std::move(o));
  }
  // The other modules its links insert objects from.
  if (!linked_.empty()) {
    j["linked_modules"] = ojson::array();
    for (const LinkedModule& l : linked_) j["linked_modules"].push_back(l.name);
  }
  // Without its .res a module's materials are names only: say what would give them their textures.
  if (resources_.empty() && !f_.materials.empty()) {
    const std::string file = name_.substr(name_.find_last_of("/\\") == std::string::npos ? 0 : name_.find_last_of("/\\") + 1);
    const std::string stem = file.substr(0, file.rfind('.'));
    j["advice"] = ojson::array({fmt::format("no {}.res was opened with {}: its {} materials are drawn in placeholder colours; open its folder "
                                            "(the .b3d with its .res) for the textures", stem, file, f_.materials.size())});
  }
  const auto [group_count, hidden] = choice_counts(f_);
  j["group_count"] = group_count;
  j["group_shown"] = view_.group;
  j["hidden_blocks"] = hidden;
  j["hidden_shown"] = view_.show_hidden;
  if (f_.incomplete) j["incomplete"] = f_.incomplete->message;
  auto structure = ojson::array();
  structure.push_back({{"name", "header"}, {"offset", 0}, {"size", 24}});
  const std::uint64_t materials_at = 24 + f_.lead.size();
  structure.push_back({{"name", "materials"}, {"offset", materials_at}, {"size", 4 + 32 * f_.materials.size()}, {"detail", fmt::format("{} names", f_.materials.size())}});
  // The top-level blocks, each from its 333 to the next item.
  std::vector<std::uint64_t> tops;
  for (const Item& i : f_.top)
    if (!i.separator()) tops.push_back(static_cast<std::size_t>(i.block));
  const std::uint64_t data_end = std::uint64_t{f_.header[3]} * 4 + std::uint64_t{f_.header[4]} * 4;
  for (std::size_t k = 0; k < tops.size(); ++k) {
    const Block& b = f_.blocks[static_cast<std::size_t>(tops[k])];
    const std::uint64_t end = k + 1 < tops.size() ? f_.blocks[static_cast<std::size_t>(tops[k + 1])].offset : std::max(b.offset, data_end - 4);
    structure.push_back({{"name", name_text(b.name).empty() ? std::string("(unnamed)") : name_text(b.name)}, {"offset", b.offset}, {"size", end - b.offset},
                         {"detail", fmt::format("block {} ({})", b.type, type_label(b.type))}});
  }
  j["structure"] = std::move(structure);
  j["structureName"] = "top-level blocks";
  return j;
}

std::vector<ListInfo> B3dDocument::lists() const {
  std::vector<ListInfo> out{{"blocks", "Blocks", f_.blocks.size()}, {"materials", "Materials", f_.materials.size()}};
  std::uint64_t textures = 0;
  for (const Resources& r : resources_)
    if (const ResSection* t = r.res.section("TEXTUREFILES")) textures += t->entries.size();
  if (textures) out.push_back({"textures", "Textures", textures});
  return out;
}

std::uint64_t B3dDocument::list_size(std::string_view list) const {
  for (const ListInfo& l : lists())
    if (l.id == list) return l.count;
  return 0;
}

ojson B3dDocument::row(std::string_view list, std::uint64_t i) const {
  if (list == "blocks") {
    const Block& b = f_.blocks[static_cast<std::size_t>(i)];
    std::string detail = fmt::format("{} {}", b.type, type_label(b.type));
    if (b.vertices.count()) detail += fmt::format(", {} vertices", b.vertices.count());
    if (!b.polygons.empty()) detail += fmt::format(", {} polygons", b.polygons.size());
    if (!b.collision.empty()) detail += fmt::format(", {} polygons", b.collision.size());
    const std::string name = name_text(b.name);
    return ojson{{"i", i}, {"name", name.empty() ? std::string("(unnamed)") : name}, {"detail", detail}, {"depth", std::min<std::uint32_t>(b.depth, 64)}};
  }
  if (list == "materials") {
    const auto l = look(static_cast<std::uint32_t>(i));
    return ojson{{"i", i}, {"name", name_text(f_.materials[static_cast<std::size_t>(i)])},
                 {"detail", l ? l->material.params : std::string(resources_.empty() ? "(no .res)" : "(not in the .res)")}};
  }
  std::uint64_t k = i;
  for (const Resources& r : resources_)
    if (const ResSection* t = r.res.section("TEXTUREFILES")) {
      if (k < t->entries.size()) {
        const ResEntry& e = t->entries[static_cast<std::size_t>(k)];
        auto im = decode_txr(e.data);
        return ojson{{"i", i}, {"name", display_cp1251(e.path())},
                     {"detail", im ? fmt::format("{}x{} {}, {}", im->width, im->height, im->format, r.name) : im.error().message}};
      }
      k -= t->entries.size();
    }
  return nullptr;
}


ojson B3dDocument::record(std::string_view list, std::uint64_t index) const {
  if (index >= list_size(list)) return nullptr;
  if (list == "blocks") {
    const Block& b = f_.blocks[static_cast<std::size_t>(index)];
    ojson j{{"name", name_text(b.name)}, {"type", b.type}, {"kind", std::string(type_label(b.type))}, {"offset", fmt::format("{:#x}", b.offset)},
            {"depth", b.depth}};
    if (b.parent >= 0) j["parent"] = name_text(f_.blocks[static_cast<std::size_t>(b.parent)].name);
    const ojson fields = block_fields(b);
    for (const auto& [k, v] : fields.items()) j[k] = v;
    if (b.type == 8 || b.type == 35 || b.type == 28) {
      std::set<std::uint32_t> texnums;
      if (b.type == 35 && b.words.size() > 5) texnums.insert(b.words[5]);
      else for (const Polygon& p : b.polygons) texnums.insert(p.texnum);
      ojson m = ojson::array();
      for (std::uint32_t t : texnums) m.push_back(t < f_.materials.size() ? name_text(f_.materials[t]) : fmt::format("texnum {} (out of range)", t));
      j["materials_used"] = std::move(m);
    }
    return j;
  }
  if (list == "materials") {
    ojson j{{"name", name_text(f_.materials[static_cast<std::size_t>(index)])}, {"texnum", index}};
    if (const auto l = look(static_cast<std::uint32_t>(index))) {
      const ResMaterial& m = l->material;
      j["resources"] = resources_[l->resources].name;
      j["params"] = m.params;
      if (m.texture) {
        j["texture"] = m.texture;
        const ResSection* t = resources_[l->resources].res.section("TEXTUREFILES");
        if (t && m.texture <= t->entries.size()) j["texture_file"] = display_cp1251(t->entries[m.texture - 1].path());
        j["texture_use"] = m.use == ResMaterial::Use::ttx ? "ttx (colour-keyed transparency)" : m.use == ResMaterial::Use::itx ? "itx" : "tex";
      }
      if (m.colour) j["colour"] = m.colour;
      if (m.transparency != 0.0f) j["transparency"] = m.transparency;
    } else {
      j["resources"] = nullptr;
    }
    return j;
  }
  return row(list, index);
}

std::vector<Warning> B3dDocument::warnings() const {
  std::vector<Warning> out;
  if (f_.incomplete) out.push_back({name_, f_.incomplete->offset, 0, 0, f_.incomplete->message});
  for (Warning w : f_.warnings) {
    w.file = name_;
    out.push_back(std::move(w));
  }
  if (!scene_built_) (void)scene();  // what drawing it finds (links, textures)
  for (Warning w : scene_warnings_) {
    w.file = name_;
    out.push_back(std::move(w));
  }
  return out;
}

Error B3dDocument::dump_to(ByteSink& sink, int indent) const { return write_b3d_json(f_, sink, indent); }

}  // namespace sceneria::b3d
