// An object as the inspector and `sceneria info` see it: the headline, the summary with its
// chunks, the open choice, the lists (meshes, surfaces, bones, motions) and each record.
#include "formats/xray/document.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/row_lists.hpp"
#include "formats/xray/json.hpp"

namespace sceneria::xray {

namespace {

using ojson = nlohmann::ordered_json;

std::string surface_detail(const Surface& s) {
  std::string d = s.texture.empty() ? std::string("no texture") : display_cp1251(s.texture);
  if (!s.shader.empty()) d += " · " + display_cp1251(s.shader);
  if (s.two_sided()) d += " · two-sided";
  return d;
}

// The first mesh whose normals come from its smoothing groups (stored groups, no split normals),
// where the automatic reading is told; nullptr: no mesh's normals depend on the reading.
const Mesh* first_with_groups(const Object& o) {
  const auto sg = std::find_if(o.meshes.begin(), o.meshes.end(), [](const Mesh& m) { return !m.smoothing.empty() && m.normals.empty(); });
  return sg == o.meshes.end() ? nullptr : &*sg;
}

}  // namespace

std::string XrayDocument::headline() const {
  const Object& o = f_.object;
  std::size_t faces = 0;
  for (const Mesh& m : o.meshes) faces += m.faces.size();
  return fmt::format("X-Ray object, {} mesh{}, {} face{}, {} surface{}, {} bone{}{}", o.meshes.size(), o.meshes.size() == 1 ? "" : "es", faces,
                     faces == 1 ? "" : "s", o.surfaces.size(), o.surfaces.size() == 1 ? "" : "s", o.bones.size(), o.bones.size() == 1 ? "" : "s",
                     f_.root.chunks.empty() || !f_.root.chunks[0].packed ? "" : " (compressed)");
}

ojson XrayDocument::summary(std::size_t) const {
  const Object& o = f_.object;
  ojson j;
  j["format"] = "xray";
  j["version"] = o.version;
  j["size"] = size_;
  std::size_t points = 0, faces = 0, vmrefs = 0, vmaps = 0;
  for (const Mesh& m : o.meshes) points += m.points.size(), faces += m.faces.size(), vmrefs += m.vmref_count(), vmaps += m.vmaps.size();
  j["counts"] = {{"meshes", o.meshes.size()}, {"surfaces", o.surfaces.size()}, {"points", points},   {"faces", faces},
                 {"vmrefs", vmrefs},          {"vmaps", vmaps},                 {"bones", o.bones.size()}, {"bone_parts", o.bone_parts.size()},
                 {"motions", o.motions.size()}};
  j["compressed"] = !f_.root.chunks.empty() && f_.root.chunks[0].packed;
  if (j["compressed"].get<bool>()) j["unpacked_size"] = f_.root.chunks[0].data.size();
  j["flags"] = o.flags;
  j["dynamic"] = (o.flags & 1) != 0;
  ojson structure = ojson::array();
  if (!f_.root.chunks.empty()) {
    auto inner = read_chunks(f_.root.chunks[0].data, f_.root.chunks[0].offset + 8, "chunk 0x7777");
    if (inner)
      for (const Chunk& c : inner->chunks)
        structure.push_back({{"name", chunk_id_text(c.id)}, {"offset", c.offset}, {"size", c.data.size()}, {"detail", c.packed ? "packed" : ""}});
  }
  j["structure"] = std::move(structure);
  j["structureName"] = "object chunks";
  std::size_t loaded = 0;
  for (const auto& t : textures_) loaded += t.has_value();
  j["textures_loaded"] = loaded;
  j["smoothing"] = smoothing == Smoothing::soc ? "soc" : smoothing == Smoothing::cop ? "cop" : "automatic";
  // What the automatic choice reads the groups as (the first mesh that stores groups), and
  // whether any mesh's normals depend on the choice at all (none stored: all smooth; split
  // normals: taken as they are).
  if (const Mesh* sg = first_with_groups(o)) j["smoothing_detected"] = looks_like_soc(*sg) ? "soc" : "cop";
  return j;
}

const std::vector<Choice>& object_choices() {
  static const std::vector<Choice> choices = {
      {.param = "smoothing",
       .label = "Smoothing groups",
       .help = "X-Ray smoothing groups: SoC files smooth the edges between faces of equal groups; CoP files mark each face's hard edges in bits",
       .values = {{"automatic", "automatic"}, {"soc", "SoC: equal groups are smooth"}, {"cop", "CoP: hard-edge bits"}},
       .value = "automatic"},
  };
  return choices;
}

Smoothing smoothing_named(std::string_view name) { return name == "soc" ? Smoothing::soc : name == "cop" ? Smoothing::cop : Smoothing::automatic; }

std::vector<Choice> XrayDocument::choices() const {
  // Only where a mesh's normals depend on it: none stored means all smooth, and split normals
  // are taken as they are.
  const Mesh* sg = first_with_groups(f_.object);
  if (!sg) return {};
  Choice c = object_choices()[0];
  c.values[0].label = fmt::format("automatic ({})", looks_like_soc(*sg) ? "SoC" : "CoP");
  c.value = smoothing == Smoothing::soc ? "soc" : smoothing == Smoothing::cop ? "cop" : "automatic";
  return {std::move(c)};
}

std::uint64_t XrayDocument::list_size(std::string_view list) const {
  const Object& o = f_.object;
  if (list == "meshes") return o.meshes.size();
  if (list == "surfaces") return o.surfaces.size();
  if (list == "bones") return o.bones.size();
  if (list == "motions") return o.motions.size();
  return 0;
}

std::vector<ListInfo> XrayDocument::lists() const {
  std::vector<ListInfo> out;
  for (const auto& [id, label] : {std::pair{"meshes", "Meshes"}, std::pair{"surfaces", "Surfaces"}, std::pair{"bones", "Bones"}, std::pair{"motions", "Motions"}})
    if (const auto n = list_size(id)) out.push_back({id, label, n});
  return out;
}

ojson XrayDocument::row(std::string_view list, std::uint64_t i) const {
  const Object& o = f_.object;
  const auto k = static_cast<std::size_t>(i);
  if (list == "meshes") {
    const Mesh& m = o.meshes[k];
    return ojson{{"i", i}, {"name", display_cp1251(m.name)}, {"detail", fmt::format("{} points, {} faces", m.points.size(), m.faces.size())}};
  }
  if (list == "surfaces") return ojson{{"i", i}, {"name", display_cp1251(o.surfaces[k].name)}, {"detail", surface_detail(o.surfaces[k])}};
  if (list == "bones") {
    const Bone& b = o.bones[k];
    // Depth from the parent chain (bounded: a cycle of names stops it).
    std::uint32_t depth = 0;
    for (std::string parent = b.parent; !parent.empty() && depth < 64; ++depth) {
      const auto it = std::find_if(o.bones.begin(), o.bones.end(), [&](const Bone& x) { return x.name == parent; });
      parent = it == o.bones.end() ? std::string() : it->parent;
    }
    return ojson{{"i", i}, {"name", display_cp1251(b.name)}, {"detail", b.parent.empty() ? std::string("root") : "under " + display_cp1251(b.parent)}, {"depth", depth}};
  }
  const Motion& m = o.motions[k];
  return ojson{{"i", i}, {"name", display_cp1251(m.name)}, {"detail", fmt::format("frames {}-{} at {} fps", m.frame_start, m.frame_end, m.fps)}};
}

ojson XrayDocument::record(std::string_view list, std::uint64_t index) const {
  if (index >= list_size(list)) return nullptr;
  const Object& o = f_.object;
  const auto k = static_cast<std::size_t>(index);
  const auto text = [](const std::string& s) { return display_cp1251(s); };
  if (list == "meshes") {
    const Mesh& m = o.meshes[k];
    ojson vmaps = ojson::array();
    for (const VMap& v : m.vmaps)
      vmaps.push_back({{"name", text(v.name)}, {"kind", v.type == 1 ? "weight" : "uv"}, {"entries", v.size()}, {"polymap", v.polymap}});
    ojson surfaces = ojson::array();
    for (const SurfaceFaces& s : m.surfaces) surfaces.push_back({{"surface", text(s.surface)}, {"faces", s.faces.size()}});
    ojson j{{"name", text(m.name)},          {"version", m.version}, {"flags", m.flags},
            {"visible", (m.flags & 1) != 0}, {"points", m.points.size()}, {"faces", m.faces.size()},
            {"vmrefs", m.vmref_count()},      {"vmaps", std::move(vmaps)}, {"surfaces", std::move(surfaces)}};
    j["bbox"] = {{m.bbox[0], m.bbox[1], m.bbox[2]}, {m.bbox[3], m.bbox[4], m.bbox[5]}};
    j["smoothing_groups"] = m.smoothing.size();
    j["smoothing"] = m.smoothing.empty() ? "none stored (all smooth)" : looks_like_soc(m) ? "SoC (equal groups)" : "CoP (hard-edge bits)";
    if (!m.normals.empty()) j["split_normals"] = m.normals.size();
    if (m.adjacency_bytes) j["adjacency_bytes"] = m.adjacency_bytes;
    return j;
  }
  if (list == "surfaces") {
    const Surface& s = o.surfaces[k];
    return ojson{{"name", text(s.name)},         {"shader", text(s.shader)},           {"compiler_shader", text(s.compiler_shader)},
                 {"game_material", text(s.game_material)}, {"texture", text(s.texture)}, {"vmap", text(s.vmap)},
                 {"two_sided", s.two_sided()},   {"flags", s.flags},                    {"fvf", fmt::format("{:#x}", s.fvf)},
                 {"uv_sets", s.uv_sets},         {"texture_loaded", textures_[k].has_value()}};
  }
  if (list == "bones") {
    const Bone& b = o.bones[k];
    return ojson{{"name", text(b.name)},
                 {"parent", text(b.parent)},
                 {"weight_map", text(b.weight_map)},
                 {"game_material", text(b.game_material)},
                 {"version", b.version},
                 {"offset", {b.offset[0], b.offset[1], b.offset[2]}},
                 {"rotate", {b.rotate[0], b.rotate[1], b.rotate[2]}},
                 {"length", b.length},
                 {"shape_type", b.shape_type},
                 {"ik_type", b.ik_type},
                 {"mass", b.mass}};
  }
  const Motion& m = o.motions[k];
  std::size_t keys = 0;
  for (const MotionBone& b : m.bones)
    for (const Envelope& e : b.channels) keys += e.keys.size();
  return ojson{{"name", text(m.name)}, {"frame_start", m.frame_start}, {"frame_end", m.frame_end}, {"fps", m.fps},
               {"version", m.version}, {"bones", m.bones.size()},        {"keys", keys}};
}

Error XrayDocument::dump_to(ByteSink& sink, int indent) const { return write_xray_json(f_, sink, indent); }

std::vector<Warning> XrayDocument::warnings() const {
  std::vector<Warning> out = f_.warnings;
  for (Warning& w : out) w.file = name_;
  return out;
}

}  // namespace sceneria::xray
