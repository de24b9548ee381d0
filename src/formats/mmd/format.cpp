#include "formats/mmd/format.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/catalog.hpp"
#include "formats/mmd/mmd.hpp"
#include "formats/mmd/vehicle.hpp"
#include "formats/maszyna/definition_file.hpp"
#include "formats/row_lists.hpp"
#include "formats/textures.hpp"
#include "formats/typed_writer.hpp"
#include "io/json_io.hpp"
#include "scene/scene.hpp"

namespace sceneria::mmd {
namespace {

using ojson = nlohmann::ordered_json;

// A vehicle's folder: its models, its physics and its textures and skins.
std::vector<std::string_view> vehicle_file_extensions() {
  std::vector<std::string_view> out{".e3d", ".t3d", ".fiz"};
  for (std::string_view ext : texture_file_extensions()) out.push_back(ext);
  return out;
}

// A model file the definition names, and what became of it.
struct Part {
  std::string role;   // "body", "low-poly interior", "cab 1", "attachment", "coupler adapter"
  std::string name;   // as the .mmd gives it
  std::string file;   // the file opened ("" if none was)
  std::string status; // "drawn", "not drawn (seen from inside)", or why it is missing
  bool drawn = false;
};

// A location along the vehicle: its ends (from the .fiz), bogies, motors, doors (from the .mmd).
struct Location {
  std::string what;
  double z = 0;  // metres ahead of the centre
  std::string detail;
};

std::string stem_of(std::string_view name) {
  std::string s(name);
  std::replace(s.begin(), s.end(), '\\', '/');
  if (const auto slash = s.rfind('/'); slash != std::string::npos) s.erase(0, slash + 1);
  if (const auto dot = s.rfind('.'); dot != std::string::npos) s.resize(dot);
  return s;
}

// Whether a listed file's folder is the vehicle's: the same path, or one ending the other (a
// dropped folder's files are listed from wherever the drop started).
bool same_folder(std::string_view dir, std::string_view folder) {
  if (dir == folder) return true;
  if (dir.empty() || folder.empty()) return false;
  const auto ends = [](std::string_view a, std::string_view b) { return a.size() > b.size() && a[a.size() - b.size() - 1] == '/' && a.substr(a.size() - b.size()) == b; };
  return ends(dir, folder) || ends(folder, dir);
}

// Skin sets in the vehicle's folder: "<set>,<n>.<ext>" files, n 1 to 4 (material_data::assign).
std::vector<std::string> skin_sets(AssetResolver& assets, const std::string& folder) {
  std::string want = normalize_asset_path(folder + "x").value_or("x");
  want.resize(want.size() - 1);
  if (!want.empty()) want.pop_back();  // its '/'
  std::vector<std::string> sets;
  for (const std::string& path : assets.listing()) {
    const auto slash = path.rfind('/');
    const std::string_view dir = slash == std::string::npos ? std::string_view() : std::string_view(path).substr(0, slash);
    // A vehicle opened without its folder in its name (a file picked from a dropped folder): the
    // sets anywhere among the files, found by name as its models are.
    if (!want.empty() && !same_folder(dir, want)) continue;
    const std::string file = path.substr(slash == std::string::npos ? 0 : slash + 1);
    const auto comma = file.rfind(','), dot = file.rfind('.');
    if (comma == std::string::npos || dot == std::string::npos || dot != comma + 2 || file[comma + 1] < '1' || file[comma + 1] > '4') continue;
    const std::string set = file.substr(0, comma);
    if (std::find(sets.begin(), sets.end(), set) == sets.end()) sets.push_back(set);
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

class MmdDocument final : public RowsByIndex {
 public:
  MmdDocument(File file, std::uint64_t size, std::string name) : file_(std::move(file)), size_(size), name_(std::move(name)) {}
  const File& file() const { return file_; }

  // The vehicle assembled from its folder: its models, skins and size, through `assets`.
  void assemble(AssetResolver* assets, const std::string& skin_param, bool markers) {
    const std::string folder = folder_of(name_), type = stem_of(name_);
    skin_ = skin_param;
    if (assets) {
      sets_ = skin_sets(*assets, folder);
      if (skin_.empty()) skin_ = sets_.empty() ? "none" : sets_.front();
    }
    if (skin_.empty()) skin_ = "none";
    const auto bytes = write_file(file_);
    if (assets) {
      type_ = read_vehicle_type(*assets, folder, type, {type, type, skin_}, &bytes);
      missing_ = type_.missing;
    } else {  // nothing beside it: no includes, no .fiz
      type_.folder = folder;
      type_.type = type;
      type_.has_mmd = true;
      type_.definition = read_definition(bytes, {type, type, skin_});
      for (const std::string& m : type_.definition.missing) missing_.push_back(folder + m);
    }
    list_parts();
    list_locations();
    build_scene(assets, markers);
  }

  std::string_view format_id() const override { return "mmd"; }
  std::string headline() const override {
    const Definition& d = type_.definition;
    return fmt::format("MaSzyna vehicle media, {} entries{}{}", file_.entries.size(), d.model.empty() ? "" : ", model " + display_text(d.model),
                       type_.sized() ? fmt::format(", {:g} m long", type_.length()) : "");
  }

  ojson summary(std::size_t) const override {
    const Definition& d = type_.definition;
    ojson j;
    j["format"] = "mmd";
    j["version"] = 0;
    j["size"] = size_;
    std::map<std::string, std::uint64_t> per_block;
    for (const Entry& e : file_.entries) ++per_block[e.block.empty() ? "top" : e.block];
    j["counts"] = {{"entries", file_.entries.size()}, {"parts", parts_.size()}, {"locations", locations_.size()}};
    ojson def;
    def["model"] = display_text(d.model);
    def["multi_textures"] = d.multi_textures;
    def["lowpoly_interior"] = display_text(d.lowpoly_interior);
    def["animations"] = d.animations;
    def["bogies"] = d.bogies;
    def["motors"] = d.motors;
    auto cabs = ojson::array();
    for (const std::string& c : d.cabs) cabs.push_back(display_text(c));
    def["cabs"] = std::move(cabs);
    auto includes = ojson::array();
    for (const std::string& i : d.includes) includes.push_back(display_text(i));
    def["includes"] = std::move(includes);
    j["definition"] = std::move(def);
    if (type_.has_fiz) {
      j["dimensions"] = {{"L", type_.length()}, {"W", type_.width()}, {"H", type_.height()}};
    }
    j["skin_set"] = display_text(skin_);
    auto structure = ojson::array();
    for (const Entry& e : file_.entries)
      if (e.block.empty() || e.key == "models:" || e.key == "sounds:" || e.key == "locations:" || e.key == "internaldata:")
        structure.push_back({{"name", display_text(e.key)}, {"offset", e.offset}, {"size", e.text.size()}, {"detail", fmt::format("line {}", e.line)}});
    j["structure"] = std::move(structure);
    j["structureName"] = "blocks";
    return j;
  }

  std::vector<ListInfo> lists() const override {
    std::vector<ListInfo> out;
    if (!parts_.empty()) out.push_back({"parts", "Model files", parts_.size()});
    if (!locations_.empty()) out.push_back({"locations", "Locations along the vehicle", locations_.size()});
    if (!file_.entries.empty()) out.push_back({"entries", "Entries", file_.entries.size()});
    return out;
  }
  ojson record(std::string_view list, std::uint64_t index) const override {
    if (index >= list_size(list)) return nullptr;
    const auto i = static_cast<std::size_t>(index);
    if (list == "parts") {
      const Part& p = parts_[i];
      return ojson{{"role", p.role}, {"name", display_text(p.name)}, {"file", display_text(p.file)}, {"status", display_text(p.status)}};
    }
    if (list == "locations") {
      const Location& l = locations_[i];
      return ojson{{"what", l.what}, {"ahead_of_centre_m", l.z}, {"detail", display_text(l.detail)}};
    }
    const Entry& e = file_.entries[i];
    auto values = ojson::array();
    for (const std::string& v : e.values) values.push_back(display_text(v));
    return ojson{{"key", display_text(e.key)}, {"block", e.block.empty() ? std::string("(top)") : e.block}, {"values", std::move(values)}, {"line", e.line}, {"offset", e.offset}};
  }

  Result<scene::Scene> scene() const override { return scene_; }
  std::vector<std::string> missing_assets() const override { return missing_; }
  std::vector<Warning> warnings() const override {
    std::vector<Warning> out;
    for (const std::string& f : failed_) out.push_back(note(f));
    if (!type_.has_fiz) out.push_back(note(fmt::format("no {}.fiz beside it: drawn {:g} m long, a stand-in size", display_text(type_.type), VehicleType::kDefaultLength)));
    return out;
  }
  std::vector<Choice> choices() const override {
    if (sets_.empty()) return {};
    Choice c{.param = "skin-set", .label = "Skin set", .help = "The livery: the textures <set>,1 … <set>,4 the vehicle's replaceable skins take"};
    for (const std::string& s : sets_) c.values.push_back({s, s});
    c.values.push_back({"none", "none (the model's own textures)"});
    c.value = skin_;
    return {c};
  }

  Error dump_to(ByteSink& sink, int indent) const override {
    JsonText t(sink, indent);
    t.open_form("mmd", 1);
    t.key("lead");
    string_text(t, file_.lead);
    t.key("entries");
    t.open_array();
    for (const Entry& e : file_.entries) {
      t.open_object();
      t.key("block");
      t.string(e.block);
      t.key("key");
      string_text(t, e.key);
      t.key("values");
      t.open_array();
      for (const std::string& v : e.values) string_text(t, v);
      t.close();
      t.key("text");
      string_text(t, e.text);
      t.close();
    }
    t.close();
    t.close();
    return t.flush();
  }

 private:
  void list_parts() {
    const Definition& d = type_.definition;
    const auto add = [&](std::string role, const std::string& name, bool drawn) {
      if (!name.empty()) parts_.push_back({std::move(role), name, "", drawn ? "" : "not drawn (seen from inside)", drawn});
    };
    add("body", d.model, true);
    add("low-poly interior", d.lowpoly_interior, true);
    for (const std::string& a : d.attachments) add("attachment", a, true);
    for (std::size_t c = 0; c < d.cabs.size(); ++c) add(fmt::format("cab {}", c), d.cabs[c], false);
    add("coupler adapter", d.coupler_adapter, false);
  }

  void list_locations() {
    Definition& d = type_.definition;
    // Along a vehicle: a location a broken file puts past a kilometre is no location.
    const auto far = [](double z) { return !(std::abs(z) < 1000); };
    std::erase_if(d.bogies, far), std::erase_if(d.motors, far);
    std::erase_if(d.doors, [&](const auto& door) { return far(door.first); });
    if (type_.sized()) {
      locations_.push_back({"front end", type_.length() / 2, "half the .fiz length L ahead"});
      locations_.push_back({"rear end", -type_.length() / 2, "half the .fiz length L behind"});
    }
    for (std::size_t i = 0; i < d.bogies.size(); ++i) locations_.push_back({fmt::format("bogie {}", i + 1), d.bogies[i], "locations: bogies:"});
    for (std::size_t i = 0; i < d.motors.size(); ++i) locations_.push_back({fmt::format("traction motor {}", i + 1), d.motors[i], "locations: tractionmotors:"});
    for (std::size_t i = 0; i < d.doors.size(); ++i) locations_.push_back({fmt::format("door {}", i + 1), d.doors[i].first, "locations: doors: " + d.doors[i].second});
  }

  void build_scene(AssetResolver* assets, bool markers) {
    scene::Scene& s = scene_;
    s.grid = {.cell = 1000.0, .centre = 250, .cells = 500};
    s.add_material({});
    const std::uint32_t k_parts = s.add_kind("parts"), k_locations = s.add_kind("locations");
    const double l = type_.length(), w = type_.width(), h = type_.height();
    bool body = false;
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      Part& p = parts_[i];
      if (!p.drawn) continue;
      p.drawn = false;
      const auto files = model_files(type_.folder, p.name);
      std::unique_ptr<ByteSource> src = assets ? assets->open_first(files, type_.folder + p.name) : nullptr;
      if (!src) {
        if (assets) missing_.push_back(type_.folder + p.name);
        p.status = assets ? "missing: " + (files.empty() ? p.name : files.front()) + " (or .t3d)" : "not looked for (no files beside it)";
        continue;
      }
      p.file = src->name();
      auto model = open_model_scene(*src, *assets, type_.folder, {{"skin-set", skin_}});
      if (!model) {
        p.status = "not drawn: " + model.error().describe();
        failed_.push_back(fmt::format("{}: {}", p.name, model.error().describe()));
        continue;
      }
      scene::Scene flat = scene::single_mesh(*model, 0, p.name);
      if (flat.meshes.empty() || flat.meshes.front().indices.empty()) {
        p.status = "not drawn: nothing to draw in it";
        continue;
      }
      flat.mesh_base = static_cast<std::uint32_t>(s.meshes.size());
      flat.replaces.clear();
      if (auto adopted = scene::adopt_meshes(s, flat); !adopted) {
        p.status = "not drawn: " + adopted.error().describe();
        continue;
      }
      const std::uint32_t mesh = static_cast<std::uint32_t>(s.meshes.size() - 1);
      const scene::Mesh& m = s.meshes[mesh];
      scene::Instance& inst = scene::add_instance(s, glm::dmat4(1.0), mesh);
      inst.object = s.add_object(k_parts, i, glm::dvec3(m.bounds_min + m.bounds_max) * 0.5, glm::length(m.bounds_max - m.bounds_min) / 2);
      p.status = "drawn";
      p.drawn = true;
      body = body || p.role == "body";
    }
    if (!body) {  // the body's box, the size the .fiz gives (or a stand-in)
      scene::Material look;
      look.name = "body (model not loaded)";
      look.color = scene::color_for_name(type_.type);
      scene::Mesh box = scene::box_mesh(look.name, {static_cast<float>(-w / 2), 0, static_cast<float>(-l / 2)},
                                        {static_cast<float>(w / 2), static_cast<float>(h), static_cast<float>(l / 2)}, s.add_material(look));
      box.proxy = true;
      s.meshes.push_back(std::move(box));
      scene::Instance& inst = scene::add_instance(s, glm::dmat4(1.0), static_cast<std::uint32_t>(s.meshes.size() - 1));
      if (!parts_.empty() && parts_.front().role == "body") inst.object = s.add_object(k_parts, 0, glm::dvec3(0, h / 2, 0), static_cast<float>(l / 2));
    }
    if (markers) {
      // The length and the bogies, motors and doors as lines on the rails' plane.
      scene::Section& sec = s.section_at(glm::dvec3(0));
      scene::Batch lines;
      lines.primitive = scene::Batch::Primitive::lines;
      const auto line = [&](glm::dvec3 a, glm::dvec3 b, std::uint32_t color, std::uint32_t object) {
        for (const glm::dvec3& p : {a, b}) {
          lines.positions.emplace_back(p - sec.origin);
          lines.normals.emplace_back(0, 1, 0);
          lines.colors.push_back(color);
          lines.objects.push_back(object);
        }
      };
      const double y = 0.02, half = w / 2 + 0.3;
      for (std::size_t i = 0; i < locations_.size(); ++i) {
        const Location& loc = locations_[i];
        const std::uint32_t object = s.add_object(k_locations, i, glm::dvec3(0, y, loc.z), 1.5f);
        const bool end = loc.what.find("end") != std::string::npos;
        const std::uint32_t color = end ? scene::rgba(1.0f, 0.85f, 0.1f) : loc.what.rfind("bogie", 0) == 0 ? scene::rgba(0.1f, 0.8f, 1.0f)
                                                                                                          : scene::rgba(0.9f, 0.4f, 0.9f);
        const double reach = end ? half : half * 0.7;
        line({-reach, y, loc.z}, {reach, y, loc.z}, color, object);
        if (end && loc.z > 0) {  // the length itself, along both sides
          line({-half, y, -l / 2}, {-half, y, l / 2}, color, object);
          line({half, y, -l / 2}, {half, y, l / 2}, color, object);
        }
      }
      if (!lines.positions.empty()) sec.batches.push_back(std::move(lines));
    }
    s.finish();
  }

  std::uint64_t list_size(std::string_view list) const override {
    return list == "parts" ? parts_.size() : list == "locations" ? locations_.size() : list == "entries" ? file_.entries.size() : 0;
  }
  ojson row(std::string_view list, std::uint64_t index) const override {
    const auto i = static_cast<std::size_t>(index);
    if (list == "parts") return ojson{{"i", index}, {"name", display_text(parts_[i].name)}, {"detail", parts_[i].role + ": " + display_text(parts_[i].status)}};
    if (list == "locations")
      return ojson{{"i", index}, {"name", locations_[i].what}, {"detail", fmt::format("{:+.2f} m from the centre", locations_[i].z)}};
    const Entry& e = file_.entries[i];
    std::string values;
    for (const std::string& v : e.values) values += (values.empty() ? "" : " ") + v;
    if (values.size() > 120) values = values.substr(0, 117) + "...";
    return ojson{{"i", index}, {"name", display_text(e.key)}, {"detail", display_text((e.block.empty() ? "" : e.block + ": ") + values)}, {"line", e.line}};
  }

  File file_;
  std::uint64_t size_ = 0;
  std::string name_;
  std::string skin_;
  std::vector<std::string> sets_;
  VehicleType type_;
  std::vector<Part> parts_;
  std::vector<Location> locations_;
  std::vector<std::string> missing_, failed_;
  scene::Scene scene_;
};

bool probe(std::span<const std::uint8_t> head, std::string_view name) { return iends_with(name, ".mmd") || json_form_is(head, name, "mmd"); }

Result<File> read_json(std::span<const std::uint8_t> bytes) {
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "mmd") return Error{Errc::bad_value, 0, "not a .mmd JSON document (\"format\": \"mmd\" missing)"};
  if (!j.contains("schema") || j["schema"] != 1) return Error{Errc::bad_value, 0, "unsupported .mmd JSON schema (this build reads schema 1)"};
  std::string text;
  if (!j.contains("lead") || !string_from_json(j["lead"], text)) return Error{Errc::bad_value, 0, "\"lead\": missing or not a string"};
  if (!j.contains("entries") || !j["entries"].is_array()) return Error{Errc::bad_value, 0, "\"entries\": missing or not a list"};
  for (std::size_t i = 0; i < j["entries"].size(); ++i) {
    const auto& e = j["entries"][i];
    std::string piece;
    if (!e.is_object() || !e.contains("text") || !string_from_json(e["text"], piece)) return Error{Errc::bad_value, 0, fmt::format("entries[{}].text: missing or not a string", i)};
    text += piece;
  }
  // The entries are the text's: read again, so what they say is what the bytes say.
  return read_file(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  auto opened = maszyna::open_definition(source, "mmd");
  if (!opened) return opened.error();
  auto file = opened->json ? read_json(opened->bytes.view) : read_file(opened->bytes.view);
  if (!file) return file.error();
  auto doc = std::make_unique<MmdDocument>(std::move(file).value(), source.size(), source.name());
  // A vehicle placed by a scenery draws without its markers.
  doc->assemble(options.assets, options.param("skin-set"), options.texture_base.empty() && options.param("markers", "true") == "true");
  return std::unique_ptr<Document>(std::move(doc));
}

Result<std::vector<std::uint8_t>> write(const MmdDocument& doc, const WriteOptions&) { return write_file(doc.file()); }

}  // namespace

const Format& format() {
  static const Format f{
      .id = "mmd",
      .name = "MaSzyna vehicle media definition (.mmd)",
      .extensions = {".mmd"},
      .probe = probe,
      .open = open,
      .writers = {{"mmd", ".mmd", "the vehicle media file, entry by entry as read", "", typed<MmdDocument, write>},
                  dump_writer("lossless JSON: its entries with their text (docs/json-forms.md#mmd)")},
      .companions = "as the vehicle's folder: its models, skin sets and .fiz",
      .companion_extensions = vehicle_file_extensions(),
      .choices = {{.param = "skin-set", .label = "Skin set", .help = "The livery: the textures <set>,1 … <set>,4 the vehicle's replaceable skins take"},
                  {.param = "markers", .label = "Markers", .help = "Draw the vehicle's length, bogies, motors and doors", .toggle = true, .value = "true"}},
  };
  return f;
}

}  // namespace sceneria::mmd
