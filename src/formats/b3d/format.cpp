#include "formats/b3d/format.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/b3d/document.hpp"
#include "formats/b3d/json.hpp"
#include "formats/open_file.hpp"
#include "formats/textures.hpp"
#include "formats/typed_writer.hpp"
#include "io/assets.hpp"
#include "io/json_io.hpp"

namespace sceneria::b3d {
namespace {

using ojson = nlohmann::ordered_json;

bool is_b3d(std::span<const std::uint8_t> head) { return head.size() >= 24 && std::memcmp(head.data(), "b3d\0", 4) == 0; }
bool probe(std::span<const std::uint8_t> head, std::string_view name) { return is_b3d(head) || json_form_is(head, name, "b3d"); }

std::string stem_of(std::string_view path) {
  std::string name(path.substr(path.find_last_of("/\\") == std::string_view::npos ? 0 : path.find_last_of("/\\") + 1));
  if (const auto dot = name.rfind('.'); dot != std::string::npos) name.resize(dot);
  return name;
}

// The module's own .res (or .rmp) beside it, then the shared COMMON/COMMON.RES (notes §7): each
// found is read; the module's own missing is listed.
std::vector<Resources> find_resources(AssetResolver& assets, std::string_view source_name, std::vector<std::string>& missing) {
  std::vector<Resources> out;
  const std::string folder = folder_of(source_name), stem = stem_of(source_name);
  const auto load = [&](const std::vector<std::string>& candidates, bool required) {
    auto source = required ? assets.open_first(candidates, candidates.front()) : assets.open_quietly(candidates);
    if (!source) return;
    auto bytes = source->read_vector(0, source->size());
    if (!bytes) return missing.push_back(fmt::format("{}: {}", candidates.front(), bytes.error().message));
    auto res = read_res(*bytes);
    if (!res) return missing.push_back(fmt::format("{}: {}", source->name(), res.error().message));
    Resources r;
    r.name = source->name();
    r.res = std::move(res).value();
    if (const ResSection* p = r.res.section("PALETTEFILES"); p && !p->entries.empty())
      if (auto palette = decode_plm(p->entries.front().data)) r.palette = std::move(palette).value();
    out.push_back(std::move(r));
  };
  load({folder + stem + ".res", folder + stem + ".rmp"}, true);
  load({folder + "common/common.res", "common/common.res"}, false);
  for (const std::string& m : assets.missing())
    if (std::find(missing.begin(), missing.end(), m) == missing.end()) missing.push_back(m);
  return out;
}

// The modules among the files opened with this one that hold the objects its links insert and it
// lacks (wheels from TRUCKS.b3d): its own folder's first, then the rest in name order, each read
// only while a name is still wanted, and at most kMaxLinkedBytes of them read in all.
constexpr std::uint64_t kMaxLinkedBytes = std::uint64_t{256} << 20;
std::vector<LinkedModule> find_linked(AssetResolver& assets, std::string_view source_name, const File& file, std::vector<std::string>& missing) {
  std::vector<LinkedModule> out;
  std::vector<std::string> wanted = unresolved_links(file);
  if (wanted.empty()) return out;
  const std::string self = normalize_asset_path(source_name).value_or(std::string(source_name));
  const std::string folder = folder_of(self);
  std::vector<std::string> candidates;
  for (std::string& path : assets.listing())
    if (path != self && path.size() > 4 && iequals(std::string_view(path).substr(path.size() - 4), ".b3d")) candidates.push_back(std::move(path));
  std::stable_sort(candidates.begin(), candidates.end(), [&](const std::string& a, const std::string& b) {
    const bool ha = folder_of(a) == folder, hb = folder_of(b) == folder;
    return ha != hb ? ha : a < b;
  });
  std::uint64_t read = 0;
  for (const std::string& path : candidates) {
    if (wanted.empty()) break;
    auto source = assets.open_quietly({path});
    if (!source || source->size() > kMaxLinkedBytes - read) continue;
    read += source->size();
    auto bytes = source->read_vector(0, source->size());
    if (!bytes) continue;
    auto other = read_b3d(*bytes);
    if (!other) continue;
    const auto before = wanted.size();
    std::erase_if(wanted, [&](const std::string& name) { return has_block(*other, name); });
    if (wanted.size() == before) continue;
    LinkedModule m;
    m.name = source->name();
    m.resources = find_resources(assets, m.name, missing);
    m.file = std::move(other).value();
    out.push_back(std::move(m));
  }
  return out;
}

Result<File> read(ByteSource& source) {
  return read_binary_or_json(source, "b3d", is_b3d, "module", read_b3d_json, [](std::span<const std::uint8_t> bytes) { return read_b3d(bytes); });
}

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  ViewOptions view;
  // Each module has its own number of groups: any number is taken (one past its last draws
  // its last), anything else refused before reading.
  const std::string group = options.param("group", "0");
  if (group.empty() || group.size() > 9 || group.find_first_not_of("0123456789") != std::string::npos)
    return Error{Errc::bad_value, 0, fmt::format("group: '{}' is not a group number (0, 1, …)", group)};
  view.group = static_cast<std::uint32_t>(std::stoul(group));
  view.show_hidden = options.param("hidden") == "true";
  auto file = read(source);
  if (!file) return file.error();
  // A file that ends inside a block, or whose counts outrun it, is cut: refused with where it
  // breaks. An unknown block type or marker is kept with what came before it (blocks carry no
  // length, so a module of a later game reads up to its first block of a new kind).
  if (file->incomplete && (file->incomplete->code == Errc::truncated || file->incomplete->code == Errc::bad_count)) return *file->incomplete;
  std::vector<std::string> missing;
  std::vector<Resources> resources;
  std::vector<LinkedModule> linked;
  if (options.assets) {
    resources = find_resources(*options.assets, source.name(), missing);
    linked = find_linked(*options.assets, source.name(), *file, missing);
  }
  return std::unique_ptr<Document>(
      new B3dDocument(std::move(file).value(), source.size(), source.name(), std::move(resources), view, std::move(missing), std::move(linked)));
}

Result<std::vector<std::uint8_t>> write(const B3dDocument& doc, const WriteOptions& options) {
  if (doc.file().incomplete && options.losses)
    options.losses->push_back(fmt::format("the module was read up to a break ({}): written as it was read", doc.file().incomplete->message));
  return write_b3d(doc.file());
}

// ---- .res on its own: its sections and entries, written back byte for byte ----

class ResDocument final : public Document {
 public:
  ResDocument(ResFile res, std::uint64_t size, std::string name) : res_(std::move(res)), size_(size), name_(std::move(name)) {}
  const ResFile& res() const { return res_; }
  std::string_view format_id() const override { return "b3d-res"; }
  std::string headline() const override {
    std::string parts;
    for (const ResSection& s : res_.sections) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", s.count, s.name);
    return fmt::format("Hard Truck resources: {}", parts.empty() ? "empty" : parts);
  }
  ojson summary(std::size_t) const override {
    ojson j{{"format", "b3d-res"}, {"version", 0}, {"size", size_}};
    ojson counts = ojson::object(), structure = ojson::array();
    for (const ResSection& s : res_.sections) counts[s.name] = s.count;
    j["sections"] = counts;
    j["counts"] = counts;
    if (!res_.trailing.empty()) j["trailing_bytes"] = res_.trailing.size();
    j["structure"] = structure;
    return j;
  }
  std::vector<ListInfo> lists() const override {
    std::vector<ListInfo> out;
    for (const ResSection& s : res_.sections)
      if (!s.entries.empty()) out.push_back({s.name, s.name, s.entries.size()});
    return out;
  }
  ojson rows(std::string_view list, std::uint64_t first, std::uint64_t count) const override {
    auto out = ojson::array();
    if (const ResSection* s = res_.section(list))
      for (std::uint64_t i = first; i < s->entries.size() && i < first + count; ++i) out.push_back(row(*s, i));
    return out;
  }
  ojson search(std::string_view list, std::string_view query, std::uint64_t limit) const override {
    auto out = ojson::array();
    if (const ResSection* s = res_.section(list))
      for (std::uint64_t i = 0; i < s->entries.size() && out.size() < limit; ++i)
        if (icontains(display_cp1251(s->entries[static_cast<std::size_t>(i)].text), query)) out.push_back(row(*s, i));
    return out;
  }
  ojson record(std::string_view list, std::uint64_t index) const override {
    const ResSection* s = res_.section(list);
    if (!s || index >= s->entries.size()) return nullptr;
    const ResEntry& e = s->entries[static_cast<std::size_t>(index)];
    ojson j{{"text", display_cp1251(e.text)}};
    if (e.has_data) j["bytes"] = e.data.size();
    if (s->name == "TEXTUREFILES") {
      if (auto im = decode_txr(e.data)) j["width"] = im->width, j["height"] = im->height, j["pixel_format"] = im->format, j["mips"] = im->mips;
      else j["decode"] = im.error().message;
    }
    if (s->name == "MATERIALS") {
      const ResMaterial m = parse_material(e.text);
      j["name"] = m.name, j["params"] = m.params;
      if (m.texture) j["texture"] = m.texture;
      if (m.colour) j["colour"] = m.colour;
    }
    return j;
  }
  Result<scene::Scene> scene() const override {
    scene::Scene s;
    s.add_material({});
    s.finish();
    return s;
  }

 private:
  ojson row(const ResSection& s, std::uint64_t i) const {
    const ResEntry& e = s.entries[static_cast<std::size_t>(i)];
    std::string detail = e.has_data ? fmt::format("{} bytes", e.data.size()) : "";
    if (s.name == "TEXTUREFILES")
      if (auto im = decode_txr(e.data)) detail = fmt::format("{}x{} {}", im->width, im->height, im->format);
    return ojson{{"i", i}, {"name", display_cp1251(s.name == "MATERIALS" ? parse_material(e.text).name : e.path())},
                 {"detail", s.name == "MATERIALS" ? display_cp1251(parse_material(e.text).params) : detail}};
  }
  ResFile res_;
  std::uint64_t size_;
  std::string name_;
};

bool probe_res(std::span<const std::uint8_t> head, std::string_view name) {
  // No magic: a .res/.rmp whose first C-string is a section header.
  if (!iends_with(name, ".res") && !iends_with(name, ".rmp")) return false;
  const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  for (std::string_view section : {"COLORS ", "MATERIALS ", "SOUNDS ", "TEXTUREFILES ", "PALETTEFILES ", "MASKFILES ", "SOUNDFILES ", "BACKFILES "})
    if (text.substr(0, section.size()) == section) return true;
  return false;
}

Result<std::unique_ptr<Document>> open_res(ByteSource& source, const OpenOptions&) {
  auto bytes = source.read_vector(0, source.size());
  if (!bytes) return bytes.error();
  auto res = read_res(*bytes);
  if (!res) return res.error();
  return std::unique_ptr<Document>(new ResDocument(std::move(res).value(), source.size(), source.name()));
}

Result<std::vector<std::uint8_t>> write_res_document(const ResDocument& doc, const WriteOptions&) {
  return write_res(doc.res());
}

}  // namespace

const Format& format() {
  static const Format f{
      .id = "b3d",
      .name = "Hard Truck B3D module (.b3d)",
      .extensions = {".b3d"},
      .probe = probe,
      .open = open,
      .writers = {{"b3d", ".b3d", "B3D module, block by block as read", "", typed<B3dDocument, write>}, dump_writer("lossless JSON (docs/json-forms.md)")},
      .companions = "with its .res (textures and materials) beside it, and the game's COMMON/COMMON.RES",
      .companion_extensions = {".res", ".rmp"},
      // The game's root, so that a module in ENV/ finds the shared resources (find_resources).
      .assets_root_holds = "common/common.res",
      .choices = module_choices(),
  };
  return f;
}

const Format& res_format() {
  static const Format f{
      .id = "b3d-res",
      .name = "Hard Truck resources (.res .rmp)",
      .extensions = {".res", ".rmp"},
      .probe = probe_res,
      .open = open_res,
      .writers = {{"res", ".res", "resource file, section by section as read", "", typed<ResDocument, write_res_document>}},
      .companions = "with the .b3d modules that use it",
      .draws = false,  // resources only: no scene exports
  };
  return f;
}

}  // namespace sceneria::b3d
