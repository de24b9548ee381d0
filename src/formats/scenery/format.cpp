#include "formats/scenery/format.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "formats/textures.hpp"
#include "io/json_io.hpp"

#include "formats/eu7b/browse.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "formats/eu7b/writer.hpp"
#include "formats/open_file.hpp"
#include "formats/scenery/bake.hpp"
#include "formats/scenery/decompile.hpp"
#include "formats/scenery/interpret.hpp"
#include "formats/scenery/root_pack.hpp"
#include "formats/scenery/twin_json.hpp"
#include "formats/typed_writer.hpp"
#include "scene/deltas.hpp"

namespace sceneria::scenery {
namespace {

using ojson = nlohmann::ordered_json;

// One document for both: the source bytes (text) or the twin, and what the grammar made of them.
class SceneryDocument final : public Document {
 public:
  // `read`: how the grammar reads the file; now, or (opened for a conversion,
  // OpenOptions::deferred) when something first asks for what it makes.
  SceneryDocument(std::string_view format, std::string name, SharedBytes bytes, std::optional<Twin> twin,
                  const InterpretOptions& read, bool now)
      : format_(format), name_(std::move(name)), bytes_(std::move(bytes)), twin_(std::move(twin)), later_(read) {
    if (now) (void)in();
  }

  std::string_view format_id() const override { return format_; }
  std::span<const std::uint8_t> bytes() const { return bytes_.view; }
  const std::optional<Twin>& twin() const { return twin_; }
  const Interpreted& interpreted() const { return in(); }
  // Where a root compile reads the `.inc` files from: what the opening kept of them, or the
  // resolver itself while the document is not read yet (deferred).
  AssetResolver* include_files() const { return read_ ? in_.kept_files.get() : later_.assets; }
  // The document's tokens from the start, from the twin or the text it was opened from.
  std::unique_ptr<TokenSource> tokens(TokenizerOptions options = {}) const {
    if (twin_) return std::make_unique<TwinTokenSource>(*twin_);
    return std::make_unique<TextTokenSource>(bytes_.view, options);
  }
  const std::string& name() const { return name_; }

  // The twin's JSON form; a text's is the twin it bakes to (what the engine reads of it).
  Error dump_to(ByteSink& sink, int indent) const override {
    if (twin_) return write_twin_json(*twin_, sink, indent);
    const auto bytes = bake_bytes(bytes_.view, kind_for(name_));
    auto twin = read_twin(bytes);
    if (!twin) return twin.error();
    return write_twin_json(*twin, sink, indent);
  }

  std::string headline() const override {
    const std::string what = twin_ ? fmt::format("scenery twin v{} ({})", twin_->version, kind_name(twin_->kind)) : "MaSzyna text scenery";
    return fmt::format("{}, {} nodes, {} includes{}", what, in().nodes, count("includes"),
                       in().files.size() > 1 ? fmt::format(", {} files read", in().files.size()) : "");
  }

  ojson summary(std::size_t string_sample) const override {
    ojson j;
    j["format"] = format_;
    j["version"] = twin_ ? ojson(twin_->version) : ojson("text");
    j["size"] = bytes_.view.size();
    ojson counts;
    counts["nodes"] = in().nodes;
    for (const ListInfo& l : lists()) counts[l.id] = l.count;
    j["counts"] = std::move(counts);
    auto structure = ojson::array();
    if (twin_) {
      const Twin& t = *twin_;
      std::uint64_t infra = 0, visual = 0;
      for (const TwinMarker& m : t.markers) ++(m.cls == NodeClass::infra ? infra : visual);
      structure.push_back({{"name", "header"}, {"offset", 0}, {"size", 9}, {"note", fmt::format("kind {}, flags {:#x}", kind_name(t.kind), t.flags)}});
      structure.push_back({{"name", "strings"}, {"offset", t.strings_offset}, {"size", t.entries_offset - t.strings_offset}, {"count", t.strings.size()}});
      structure.push_back({{"name", "entries"}, {"offset", t.entries_offset}, {"size", bytes_.view.size() - t.entries_offset}, {"count", t.entries.size()}});
      structure.push_back({{"name", "infra nodes"}, {"offset", t.markers.empty() ? 0 : t.markers.front().offset}, {"size", 0}, {"count", infra}});
      structure.push_back({{"name", "visual nodes"}, {"offset", t.markers.empty() ? 0 : t.markers.front().offset}, {"size", 0}, {"count", visual}});
      j["structureName"] = "twin parts";
    } else {
      for (std::size_t f = 0; f < in().files.size(); ++f) structure.push_back({{"name", in().files[f]}, {"offset", 0}, {"size", f == 0 ? bytes_.view.size() : 0}});
      j["structureName"] = "files";
    }
    j["structure"] = std::move(structure);
    j["missingIncludes"] = in().missing;
    const auto& strings = in().module.strings;
    auto sample = ojson::array();
    for (std::size_t i = 0; i < std::min<std::size_t>(string_sample, strings.size()); ++i) sample.push_back(display_text(strings[i]));
    j["stringSample"] = std::move(sample);
    return j;
  }

  std::vector<ListInfo> lists() const override {
    std::vector<ListInfo> out = browser()->lists();
    std::erase_if(out, [](const ListInfo& l) { return l.id == "strings"; });  // the module's, not the file's
    if (!in().directives.empty()) out.push_back({"directives", "Directives", in().directives.size()});
    // The outliner's groups: a list's records by the file they came from, once includes were
    // read (a file included twice is one group, named by its first reading).
    if (in().files.size() > 1)
      for (ListInfo& l : out)
        if (auto it = in().where.find(l.id); it != in().where.end()) {
          std::vector<std::uint64_t> per_file(in().files.size());
          for (const SourceRef& at : it->second) ++per_file[static_cast<std::size_t>(first_reading(at.file))];
          for (std::size_t f = 0; f < per_file.size(); ++f)
            if (per_file[f]) l.groups.push_back({f, in().files[f], per_file[f]});
        }
    // Vehicles by trainset, whatever file they came from: the outliner's trainset -> vehicles.
    for (ListInfo& l : out)
      if (l.id == "dynamics") l.groups = eu7b::trainset_groups(in().module), l.all_groups = "All vehicles";
    return out;
  }

  ojson rows_in_group(std::string_view list, std::uint64_t group, std::uint64_t first, std::uint64_t count) const override {
    if (list == "dynamics") return eu7b::trainset_rows(*this, in().module, group, first, count);
    auto it = in().where.find(std::string(list));
    if (it == in().where.end()) return ojson::array();
    const std::string key = fmt::format("{}\n{}", list, group);
    auto cached = groups_.find(key);
    if (cached == groups_.end()) {
      std::vector<std::uint64_t> members;
      for (std::size_t i = 0; i < it->second.size(); ++i)
        if (first_reading(it->second[i].file) == group) members.push_back(i);
      cached = groups_.emplace(key, std::move(members)).first;
    }
    auto out = ojson::array();
    for (std::uint64_t k = first; k < cached->second.size() && k < first + count; ++k)
      for (auto& row : rows(list, cached->second[static_cast<std::size_t>(k)], 1)) out.push_back(std::move(row));
    return out;
  }

  ojson rows(std::string_view list, std::uint64_t first, std::uint64_t count) const override {
    if (list != "directives") return with_files(list, browser()->rows(list, first, count));
    auto out = ojson::array();
    for (std::uint64_t i = first; i < in().directives.size() && i < first + count; ++i) out.push_back(directive_row(i));
    return out;
  }
  ojson search(std::string_view list, std::string_view query, std::uint64_t limit) const override {
    if (list != "directives") return with_files(list, browser()->search(list, query, limit));
    auto out = ojson::array();
    for (std::uint64_t i = 0; i < in().directives.size() && out.size() < limit; ++i)
      if (icontains(in().directives[i].keyword, query)) out.push_back(directive_row(i));
    return out;
  }
  ojson record(std::string_view list, std::uint64_t index) const override {
    if (list == "directives") {
      if (index >= in().directives.size()) return nullptr;
      const Directive& d = in().directives[index];
      auto values = ojson::array();
      for (const std::string& v : d.values) values.push_back(display_text(v));
      ojson r{{"keyword", d.keyword}, {"values", values}};
      r["source"] = source(d.at);
      return r;
    }
    ojson r = browser()->record(list, index);
    if (r.is_null()) return r;
    if (list == "dynamics") r = eu7b::with_vehicle(std::move(r), in().module, vehicles_, index);
    // Where the record came from: file and line (text) or the entry's offset (twin).
    if (auto it = in().where.find(std::string(list)); it != in().where.end() && index < it->second.size()) r["source"] = source(it->second[index]);
    return r;
  }

  Result<scene::Scene> scene() const override {
    auto s = eu7b::to_scene(in().module, &vehicles_);
    if (s) given_ = {static_cast<std::uint32_t>(s->meshes.size()), static_cast<std::uint32_t>(s->objects.size())};
    return s;
  }

  // Opened by an infrastructure pass: the visual pass runs on the first call, and its models,
  // shapes and lines go out a 1 km section at a time, nearest the camera first.
  bool staging() const override { return in().visual_nodes_left > 0 || (queue_ && queue_->left() > 0); }
  std::optional<scene::Scene> next_stage(const glm::dvec3& camera) override {
    if (!queue_) {
      if (in().visual_nodes_left == 0) return std::nullopt;
      if (!given_) (void)scene();  // the ids the deltas continue
      auto visuals = load_visuals();
      if (!visuals) return std::nullopt;
      queue_.emplace(std::move(*visuals), given_->first, given_->second);
    }
    return queue_->next(camera);
  }

  std::vector<Warning> warnings() const override { return in().warnings; }
  std::vector<std::string> missing_assets() const override { return in().missing; }

 private:
  std::uint64_t count(const std::string& list) const {
    auto it = in().where.find(list);
    return it == in().where.end() ? 0 : it->second.size();
  }
  ojson source(const SourceRef& at) const {
    ojson s{{"file", display_text(in().files.at(at.file))}};
    if (at.line) s["line"] = at.line, s["column"] = at.column;
    else s["offset"] = at.offset;
    return s;
  }
  ojson directive_row(std::uint64_t i) const {
    const Directive& d = in().directives[i];
    std::string detail;
    for (std::size_t k = 0; k < d.values.size() && detail.size() < 60; ++k) detail += (k ? " " : "") + display_text(d.values[k]);
    return ojson{{"i", i}, {"name", d.keyword}, {"detail", detail}};
  }
  // With includes followed, a row says which file it came from ("tree.inc:6").
  // The first index in `files` with the same name as `file` (an include read more than once).
  std::uint64_t first_reading(std::uint32_t file) const {
    if (first_reading_.empty()) {
      std::map<std::string_view, std::uint64_t> first;
      for (std::size_t f = 0; f < in().files.size(); ++f) first_reading_.push_back(first.emplace(in().files[f], f).first->second);
    }
    return file < first_reading_.size() ? first_reading_[file] : file;
  }

  ojson with_files(std::string_view list, ojson rows) const {
    if (in().files.size() < 2) return rows;
    auto it = in().where.find(std::string(list));
    if (it == in().where.end()) return rows;
    for (auto& row : rows) {
      const auto i = row.value("i", std::uint64_t{0});
      if (i >= it->second.size()) continue;
      const SourceRef& at = it->second[i];
      const std::string file = display_text(std::filesystem::path(in().files[at.file]).filename().string());
      const std::string where = at.line ? fmt::format("{}:{}", file, at.line) : fmt::format("{} @{:#x}", file, at.offset);
      const std::string detail = row.value("detail", "");
      row["detail"] = detail.empty() ? where : detail + " · " + where;
    }
    return rows;
  }

  // The file read by the grammar, on first need.
  Interpreted& in() const {
    std::call_once(once_, [this] {
      in_ = interpret(*tokens(), name_, later_);
      // Opened in stages with no infrastructure to draw (a file of trees): nothing would show
      // before the visuals, so they are read now.
      if (in_.visual_nodes_left && !draws_infrastructure()) read_visuals();
      browser_ = std::make_unique<eu7b::RecordBrowser>(in_.module, eu7b::RecordBrowser::Live{});
      vehicles_ = eu7b::read_vehicles(in_.module, later_.assets);
      if (later_.assets)  // a vehicle's files not found join the includes not found
        for (const eu7b::VehicleLook& look : vehicles_.looks)
          for (const std::string& m : look.missing)
            if (std::find(in_.missing.begin(), in_.missing.end(), m) == in_.missing.end()) in_.missing.push_back(m);
      later_.assets = nullptr;  // the opener's, which need not outlive the document once it is read
      read_ = true;
    });
    return in_;
  }
  eu7b::RecordBrowser* browser() const { return in(), browser_.get(); }

  bool draws_infrastructure() const {
    for (const char* list : {"tracks", "traction", "launchers", "sounds", "power"})
      if (in_.where.count(list)) return true;
    return false;
  }
  void read_visuals() const { interpret_visuals(*tokens(), in_); }

  // The visual pass: its records join the lists; what they draw comes back as a scene of its own.
  Result<scene::Scene> load_visuals() {
    read_visuals();
    browser_ = std::make_unique<eu7b::RecordBrowser>(in().module, eu7b::RecordBrowser::Live{});
    groups_.clear();
    first_reading_.clear();
    // The visual records alone, lent to the scene builder and given back (the largest data of a
    // scenery is not copied): the same strings, and the same numbering in their lists (the
    // infrastructure pass left those lists empty).
    eu7b::Module visuals;
    std::swap(visuals.strings, in().module.strings);
    std::vector<std::size_t> lent;
    for (std::size_t i = 0; i < in().module.chunks.size(); ++i) {
      const std::uint32_t id = in().module.chunks[i].id;
      if (id != eu7b::chunk::MESH && id != eu7b::chunk::LINE && id != eu7b::chunk::MODL) continue;
      lent.push_back(i);
      visuals.chunks.push_back(std::move(in().module.chunks[i]));
    }
    auto scene = eu7b::to_scene(visuals);
    for (std::size_t k = 0; k < lent.size(); ++k) in().module.chunks[lent[k]] = std::move(visuals.chunks[k]);
    std::swap(visuals.strings, in().module.strings);
    return scene;
  }

  std::string_view format_;
  std::string name_;
  SharedBytes bytes_;  // the source's own bytes where it can share them (a mapped file)
  std::optional<Twin> twin_;
  mutable InterpretOptions later_;
  mutable std::once_flag once_;
  mutable bool read_ = false;
  mutable Interpreted in_;
  mutable std::unique_ptr<eu7b::RecordBrowser> browser_;
  mutable eu7b::Vehicles vehicles_;  // read with the file, while the opener's files are at hand  // made again when the visual pass adds records
  mutable std::optional<std::pair<std::uint32_t, std::uint32_t>> given_;  // meshes, objects of the last scene()
  std::optional<scene::DeltaQueue> queue_;
  mutable std::map<std::string, std::vector<std::uint64_t>> groups_;
  mutable std::vector<std::uint64_t> first_reading_;  // "list\ngroup" → record indices
};

constexpr std::string_view kTextExtensions[] = {".scn", ".scm", ".inc", ".ctr"};

// Text without magic: by its name, or by a sniff for a `node` with a known type early on.
bool probe_text(std::span<const std::uint8_t> head, std::string_view name) {
  for (std::string_view e : kTextExtensions)
    if (iends_with(name, e)) return true;
  if (head.empty() || is_twin(head)) return false;
  for (std::uint8_t c : head)
    if (c == 0) return false;
  TextTokenizer tok(head);
  TextToken t;
  for (int n = 0; n < 64 && tok.next(t); ++n) {
    if (!iequals(t.text, "node")) continue;
    for (int k = 0; k < 4 && tok.next(t); ++k)
      if (k == 3)
        for (std::string_view type : {"track", "traction", "model", "triangles", "triangle_strip", "triangle_fan", "lines",
                                      "line_strip", "line_loop", "memcell", "eventlauncher", "sound", "dynamic", "tractionpowersource"})
          if (iequals(t.text, type)) return true;
    return false;
  }
  return false;
}

// The binary twin, or its JSON form (docs/json-forms.md).
bool probe_twin(std::span<const std::uint8_t> head, std::string_view name) {
  return is_twin(head) || json_form_is(head, name, "scenery-twin");
}

// Read as the engine reads it, includes followed and kept (for the visual pass and a later root
// compile). Staged: the infrastructure pass first.
InterpretOptions viewing(const OpenOptions& options) {
  InterpretOptions o;
  o.assets = options.assets;
  o.keep_files = true;
  if (options.staged) o.pass = LoadPass::infrastructure;
  return o;
}

Result<std::unique_ptr<Document>> open_text(ByteSource& source, const OpenOptions& options) {
  auto bytes = read_whole(source, "scenery");
  if (!bytes) return bytes.error();
  return std::unique_ptr<Document>(
      new SceneryDocument("scenery-text", source.name(), std::move(*bytes), std::nullopt, viewing(options), !options.deferred));
}

Result<std::unique_ptr<Document>> open_twin(ByteSource& source, const OpenOptions& options) {
  auto json = is_json_form(source, "scenery-twin", is_twin);
  if (!json) return json.error();
  if (*json) {
    auto read = read_twin_json(source);
    if (!read) return read.error();
    return std::unique_ptr<Document>(new SceneryDocument("scenery-twin", source.name(), SharedBytes::own(std::move(read->bytes)),
                                                         std::move(read->twin), viewing(options), !options.deferred));
  }
  auto bytes = read_whole(source, "scenery");
  if (!bytes) return bytes.error();
  auto twin = read_twin(bytes->view);
  if (!twin) return twin.error();
  return std::unique_ptr<Document>(
      new SceneryDocument("scenery-twin", source.name(), std::move(*bytes), std::move(*twin), viewing(options), !options.deferred));
}

Result<std::vector<std::uint8_t>> write_twin_file(const SceneryDocument& s, const WriteOptions& options) {
  if (s.twin()) return write_twin(*s.twin());
  return bake_bytes(s.bytes(), kind_for(s.name()), {}, nullptr, options.threads);
}

Result<std::vector<std::uint8_t>> write_text_file(const SceneryDocument& s, const WriteOptions& options) {
  if (!s.twin()) return std::vector<std::uint8_t>(s.bytes().begin(), s.bytes().end());
  if (options.losses) options.losses->push_back("comments, number spellings and line breaks are not in a twin: the text is rebuilt from its tokens");
  const std::string text = decompile(*s.twin());
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

Result<std::vector<std::uint8_t>> write_module_file(const SceneryDocument& s, const WriteOptions& options) {
  bool root = false;
  if (auto it = options.params.find("version"); it != options.params.end()) {
    if (it->second != "6" && it->second != "9")
      return Error{Errc::bad_value, 0, fmt::format("version {}: a scenery compiles to version 6 (a module) or 9 (the root of a scenery, with the models of its .inc files in PACK)", it->second)};
    root = it->second == "9";
  }
  // Compiled again with the reference writer's reading, so the simulator gets what its own
  // compiler would give it (TD.v6.eu7 byte for byte). A root's PACK is composed from the files
  // it reaches (root_pack.hpp): from the scenery folder given, else from what the document kept
  // of its includes when it opened.
  PackModels pack;
  // The bar covers the files the compose reads, then the root read once more for its module,
  // and never steps back.
  double shown = 0;
  const auto show = [&](double share) { options.progress(shown = std::max(shown, share)); };
  std::uint64_t composed = 0, own = 0;  // bytes of the files the compose found; of the root
  if (root) {
    // The writer reads text only: a twin is read as the text it holds.
    const std::string text = s.twin() ? decompile(*s.twin()) : std::string();
    const std::span<const std::uint8_t> bytes =
        s.twin() ? std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()) : s.bytes();
    std::vector<std::string> notes, missing;
    AssetResolver* files = options.assets ? options.assets : s.include_files();
    own = bytes.size();
    const auto report = [&](std::uint64_t done, std::uint64_t known) {
      composed = known;
      show(static_cast<double>(done) / static_cast<double>(known + own));
    };
    auto made = compose_root_pack(bytes, {.root_path = options.relative_name.empty() ? s.name() : options.relative_name,
                                          .files = files, .warnings = &notes, .missing = &missing,
                                          .progress = options.progress ? report : std::function<void(std::uint64_t, std::uint64_t)>(),
                                          .read_ahead = options.threads > 1 ? 3u : 0u});
    if (!made) return made.error();
    pack = std::move(made).value();
    if (options.losses) {
      for (std::string& n : notes) options.losses->push_back(std::move(n));
      // One line for what was not found: a scenery may name hundreds of absent files.
      if (!missing.empty()) {
        std::string names;
        for (std::size_t i = 0; i < missing.size() && i < 5; ++i) names += (i ? ", " : "") + missing[i];
        if (missing.size() > 5) names += fmt::format(" and {} more", missing.size() - 5);
        options.losses->push_back(fmt::format("{} included file{} not found, so not in PACK: {}", missing.size(),
                                              missing.size() == 1 ? "" : "s", names));
      }
    }
  }
  InterpretOptions how;
  how.reference_writer = true;
  how.root = root;
  how.pack_models = &pack;
  how.progress = options.progress;
  if (root && options.progress && composed)
    how.progress = [&](double f) {
      show((static_cast<double>(composed) + f * static_cast<double>(own)) / static_cast<double>(composed + own));
    };
  how.threads = options.threads;
  how.sources = false;
  Interpreted compiled = interpret(*s.tokens({.writer = true}), s.name(), how);
  if (options.losses)
    for (const Warning& w : compiled.warnings) options.losses->push_back(w.message);
  return eu7b::write_module(compiled.module, options.threads);
}

std::vector<Writer> writers() {
  return {{"text", ".scn", "scenery text (a twin's tokens written back as text)", "", typed<SceneryDocument, write_text_file>, {".scm", ".inc", ".ctr"}},
          {"twin", ".scnb", "scenery binary twin v10, as the reference baker writes it", "", typed<SceneryDocument, write_twin_file>, {".scmb", ".incb", ".ctrb"}},
          {"eu7b", ".eu7", "EU7B compiled from the scenery: a module (version 6), or a root with its .inc files' models in PACK (version 9)", "version=6|9", typed<SceneryDocument, write_module_file>},
          dump_writer("lossless JSON of the twin (a text: of the twin it bakes to; docs/json-forms.md)")};
}

}  // namespace

const Format& text_format() {
  static const Format f{
      .id = "scenery-text",
      .name = "MaSzyna text scenery (.scn .scm .inc .ctr)",
      .extensions = {".scn", ".scm", ".inc", ".ctr"},
      .probe = probe_text,
      .open = open_text,
      .writers = writers(),
      .companions = "as its game folder: the files it includes, models/, textures/ and dynamic/",
      .companion_extensions = texture_file_extensions(),
      .bake = bake_tree,
      .assets_folder = "scenery",
  };
  return f;
}

const Format& twin_format() {
  static const Format f{
      .id = "scenery-twin",
      .name = "MaSzyna scenery binary twin (.scnb .scmb .incb .ctrb)",
      .extensions = {".scnb", ".scmb", ".incb", ".ctrb"},
      .probe = probe_twin,
      .open = open_twin,
      .writers = writers(),
      .companions = "as its game folder: the files it includes, models/, textures/ and dynamic/",
      .companion_extensions = texture_file_extensions(),
      .assets_folder = "scenery",
  };
  return f;
}

}  // namespace sceneria::scenery
