#include "formats/eu7b/format.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "formats/textures.hpp"
#include "core/text.hpp"
#include "formats/eu7b/browse.hpp"
#include "formats/eu7b/convert.hpp"
#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/stream.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "formats/eu7b/validate.hpp"
#include "formats/eu7b/writer.hpp"
#include "formats/typed_writer.hpp"

namespace sceneria::eu7b {

namespace {

using ojson = nlohmann::ordered_json;

}  // namespace

std::set<Sid> model_file_ids(const Module& m, bool with_pack) {
  std::set<Sid> ids;
  for (const Chunk& c : m.chunks) {
    if (const auto* list = std::get_if<ModelList>(&c.data))
      for (const Model& r : list->models) ids.insert(r.model_file);
    if (const auto* protos = std::get_if<PrototypeList>(&c.data))
      for (const Prototype& p : protos->prototypes) ids.insert(p.model_file);
  }
  if (const PackChunk* pack = m.pack(); with_pack && pack && pack->decoded)
    for (const PackSection& s : pack->sections)
      for (const ExpandedModel& e : expand_section(s, m.prototypes())) ids.insert(e.file);
  return ids;
}

std::vector<std::string> header_model_files(const Module& m, bool with_pack) {
  std::vector<std::string> out;
  for (Sid id : model_file_ids(m, with_pack))
    if (id != kNoString && id < m.strings.size() && !m.strings[id].empty()) out.push_back(std::string(m.strings[id]));
  return out;
}

namespace {

// The module's scene for an export: everything but PACK first (SceneBuilder::build(false)), then
// one delta per PACK section, decoded as it is reached and let go with the next (the viewer's
// streaming steps), so a module of millions of models is never held decoded. A PACK model's
// fields come from its section's models expanded once, the other records from the module.
class Eu7bPieces final : public scene::Pieces {
 public:
  Eu7bPieces(const Module& module, const Vehicles* vehicles)
      : module_(module), builder_(module, vehicles), browser_(module, RecordBrowser::Live{}), cursor_(module, prefix_, problems_) {}

  Result<scene::Scene> base() override { return builder_.build(false); }
  std::vector<std::pair<glm::dvec3, glm::dvec3>> later_bounds() const override {
    std::vector<std::pair<glm::dvec3, glm::dvec3>> out;
    std::uint64_t last = UINT64_MAX;
    for (const PidxEntry* e : cursor_.entries()) {
      if (e->pack_offset == last) continue;  // entries sharing a section
      last = e->pack_offset;
      out.push_back(cell_of(*e));
    }
    return out;
  }
  void only(std::function<bool(const std::pair<glm::dvec3, glm::dvec3>&)> wanted) override { wanted_ = std::move(wanted); }
  Result<std::optional<scene::Scene>> next() override {
    const PackChunk* pack = module_.pack();
    for (;;) {
      first_ += models_.size();
      models_.clear();
      if (pack && pack->decoded) {
        if (decoded_next_ >= pack->sections.size()) return std::optional<scene::Scene>();
        current_ = &pack->sections[decoded_next_++];
        const auto& entries = cursor_.entries();  // sorted by offset
        const auto it = std::lower_bound(entries.begin(), entries.end(), current_->offset,
                                         [](const PidxEntry* e, std::uint64_t offset) { return e->pack_offset < offset; });
        entry_ = it != entries.end() && (*it)->pack_offset == current_->offset ? *it : nullptr;
        if (entry_ && !wanted(*entry_)) {
          first_ += expand_section(*current_, module_.prototypes()).size();
          continue;
        }
      } else {
        // A section out of the export's way is passed by undecoded; its models keep their numbers.
        if (const PidxEntry* next = cursor_.upcoming(); next && !wanted(*next)) {
          cursor_.skip();
          first_ += next->model_count;
          continue;
        }
        auto section = cursor_.next();
        if (!section) return section.error();
        if (!*section) return std::optional<scene::Scene>();
        section_ = std::move(**section);
        current_ = &section_;
        entry_ = cursor_.entry();
      }
      models_ = expand_section(*current_, module_.prototypes());
      return std::optional<scene::Scene>(builder_.pack_section(*current_, first_));
    }
  }
  ojson fields(const scene::Object& object, const std::string& kind) override {
    if (kind != "pack_models") return browser_.record(kind, object.index);
    if (!current_ || object.index < first_ || object.index - first_ >= models_.size()) return nullptr;
    return expanded_model_record(module_, *current_, entry_, models_[static_cast<std::size_t>(object.index - first_)]);
  }

 private:
  const Module& module_;
  SceneBuilder builder_;
  RecordBrowser browser_;
  std::vector<std::uint8_t> prefix_;
  std::vector<Problem> problems_;
  PackCursor cursor_;
  PackSection section_;                     // decoded here (PACK kept encoded)
  std::size_t decoded_next_ = 0;            // or the next of PackChunk::sections
  const PackSection* current_ = nullptr;    // the latest piece's section
  const PidxEntry* entry_ = nullptr;        // and its PIDX entry
  std::vector<ExpandedModel> models_;  // current_'s
  std::uint64_t first_ = 0;            // its first model in the pack_models list
  std::function<bool(const std::pair<glm::dvec3, glm::dvec3>&)> wanted_;

  // The section's 1 km cell on the ground: its models lie in it (the writers put them there).
  static std::pair<glm::dvec3, glm::dvec3> cell_of(const PidxEntry& e) {
    const glm::dvec3 lo = kSectionGrid.origin(e.row, e.col);
    return {lo, lo + glm::dvec3(kSectionGrid.cell, 0.0, kSectionGrid.cell)};
  }
  bool wanted(const PidxEntry& e) const { return !wanted_ || wanted_(cell_of(e)); }
};

class Eu7bDocument final : public Document {
 public:
  // A module whose PACK is loaded but not decoded (opened for a conversion) is decoded the first
  // time something needs its records; writing it as EU7B or JSON never does.
  // `threads`: what the opener allowed (OpenOptions::threads), for dumping it.
  Eu7bDocument(Module module, std::string name, std::vector<std::string> missing, unsigned threads)
      : name_(std::move(name)), missing_(std::move(missing)), threads_(threads) {
    const PackChunk* pack = module.pack();
    if (pack && !pack->decoded) pending_ = std::move(module);
    else browser_ = std::make_unique<RecordBrowser>(std::move(module));
  }
  // Decoded: what browsing, drawing and converting need.
  const Module& module() const { return browser().module(); }
  // As opened, decoded or not: enough to write it back or dump it.
  const Module& stored() const {
    std::lock_guard lock(mutex_);
    return browser_ ? browser_->module() : pending_;
  }

  std::string_view format_id() const override { return "eu7b"; }
  std::string headline() const override { return eu7b::headline(stored()); }
  // A module opened from a mapped file stays encoded for what needs no records: its summary,
  // lists, warnings and validation walk the sections one at a time (walk()).
  ojson summary(std::size_t string_sample) const override {
    if (!pending()) return summary_json(module(), string_sample);
    ojson j = summary_json(stored(), string_sample);
    const Walk& w = walk();
    if (const auto* pidx = stored().pidx()) {  // rows in PIDX order
      std::size_t i = 0;
      for (auto& row : j["sections"])
        if (i < pidx->size())
          if (auto it = w.format_at.find((*pidx)[i++].pack_offset); it != w.format_at.end())
            row["format"] = std::string(section_format_name(it->second));
    }
    return j;
  }
  std::vector<ListInfo> lists() const override {
    if (!pending()) {
      std::vector<ListInfo> out = browser().lists();
      for (ListInfo& l : out)
        if (l.id == "dynamics") l.groups = trainset_groups(module()), l.all_groups = "All vehicles";
      return out;
    }
    std::vector<ListInfo> out = RecordBrowser(stored(), RecordBrowser::Live{}).lists();
    if (const std::uint64_t n = pack_model_count(stored()); n > 0) out.insert(out.begin(), ListInfo{"pack_models", "PACK models", n});
    return out;
  }
  ojson rows(std::string_view list, std::uint64_t first, std::uint64_t count) const override {
    return browser().rows(list, first, count);
  }
  ojson search(std::string_view list, std::string_view query, std::uint64_t limit) const override {
    return browser().search(list, query, limit);
  }
  ojson rows_in_group(std::string_view list, std::uint64_t group, std::uint64_t first, std::uint64_t count) const override {
    return list == "dynamics" ? trainset_rows(*this, module(), group, first, count) : ojson::array();
  }
  ojson record(std::string_view list, std::uint64_t index) const override {
    ojson r = browser().record(list, index);
    return list == "dynamics" ? with_vehicle(std::move(r), module(), vehicles_, index) : r;
  }

  Result<scene::Scene> scene() const override { return to_scene(module(), &vehicles_); }
  // Its vehicles' sizes and files, read while the opener's files were at hand.
  void set_vehicles(Vehicles vehicles) { vehicles_ = std::move(vehicles); }
  // A module opened decoded has its sections at hand; one opened for a conversion keeps PACK
  // encoded and they are decoded one at a time.
  std::unique_ptr<scene::Pieces> scene_pieces() const override { return std::make_unique<Eu7bPieces>(stored(), &vehicles_); }
  std::vector<Warning> warnings() const override {
    if (!pending()) return as_warnings(module().problems);
    std::vector<Problem> all = stored().problems;
    all.insert(all.end(), walk().problems.begin(), walk().problems.end());
    return as_warnings(all);
  }
  std::vector<Warning> validate() const override { return as_warnings(eu7b::validate(pending() ? stored() : module())); }
  std::vector<std::string> missing_assets() const override { return missing_; }
  Error dump_to(ByteSink& sink, int indent) const override { return write_module_json(stored(), sink, indent, threads_); }
  // Still encoded in a mapped file (nothing needed its records yet).
  bool encoded() const { return pending(); }

 private:
  bool pending() const {
    std::lock_guard lock(mutex_);
    return !browser_ && pending_.pack() && pending_.pack()->in_file();
  }
  // One pass over the sections of a module kept encoded: what reading them finds, and their
  // formats. Each is decoded and let go.
  struct Walk {
    std::vector<Problem> problems;
    std::map<std::uint64_t, SectionFormat> format_at;
  };
  const Walk& walk() const {
    std::call_once(walked_, [this] {
      std::vector<std::uint8_t> prefix;
      if (Error e = for_each_section(pending_, prefix, walk_.problems, [&](PackSection&& s) {
            walk_.format_at[s.offset] = s.format;
            return Error{};
          }))
        walk_.problems.push_back({e.offset, e.message});
    });
    return walk_;
  }
  mutable std::once_flag walked_;
  mutable Walk walk_;

  const RecordBrowser& browser() const {
    std::lock_guard lock(mutex_);
    if (!browser_) {
      if (Error e = decode_pack(pending_)) pending_.problems.push_back({e.offset, e.message});
      browser_ = std::make_unique<RecordBrowser>(std::move(pending_));
    }
    return *browser_;
  }
  std::vector<Warning> as_warnings(const std::vector<Problem>& problems) const {
    std::vector<Warning> out;
    for (const Problem& p : problems) out.push_back({name_, p.offset, 0, 0, p.message});
    return out;
  }
  mutable std::mutex mutex_;
  mutable Module pending_;
  mutable std::unique_ptr<RecordBrowser> browser_;
  std::string name_;
  std::vector<std::string> missing_;
  unsigned threads_;
  Vehicles vehicles_;
};

// docs/eu7b-json.md: the document starts with {"format": "eu7b", ...}.
bool looks_like_json_form(std::span<const std::uint8_t> head, std::string_view name) { return json_form_is(head, name, "eu7b"); }

bool probe_any(std::span<const std::uint8_t> head, std::string_view name) {
  return probe(head) || looks_like_json_form(head, name);
}

Result<Module> read_json_form(ByteSource& source, bool decode, unsigned threads) {
  auto m = read_module_json(source, kJsonTreeLimit, threads);
  if (!m) return m.error();
  if (decode && m->pack() && !m->pack()->decoded) {
    if (Error e = decode_pack(*m)) return e;
  }
  return m;
}

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  std::vector<std::uint8_t> head(static_cast<std::size_t>(std::min<std::uint64_t>(64, source.size())));
  if (Error e = source.read(0, head)) return e;
  // For a conversion PACK stays encoded until something needs its records (Eu7bDocument).
  // A mapped file's PACK stays where it lies, encoded, whatever the reason for opening it: what
  // needs its records decodes it then (Eu7bDocument).
  const bool mapped = source.mapped().has_value();
  auto module = looks_like_json_form(head, source.name())
                    ? read_json_form(source, !options.deferred, options.threads)
                    : read_module(source, {.load_pack = true, .decode_pack = !options.deferred && !mapped, .map_pack = mapped,
                                           .threads = options.threads});
  if (!module) return module.error();
  std::vector<std::string> missing;
  Vehicles vehicles = read_vehicles(*module, options.assets);
  if (options.assets) {
    for (const std::string& file : header_model_files(*module, true)) options.assets->exists_any(model_candidates(file), file);
    missing = options.assets->missing();
  }
  auto doc = std::make_unique<Eu7bDocument>(std::move(module).value(), source.name(), std::move(missing), options.threads);
  doc->set_vehicles(std::move(vehicles));
  return std::unique_ptr<Document>(std::move(doc));
}

std::unique_ptr<stream::RemoteDocument> open_remote(std::uint64_t size, std::string name) {
  return std::make_unique<RemoteModule>(size, std::move(name));
}

// What the options ask a module to become; nullopt: it stays as it is.
Result<std::optional<ConvertOptions>> conversion(const WriteOptions& options) {
  ConvertOptions c;
  c.allow_lossy = options.lossy;
  c.losses = options.losses;
  bool change = false;
  if (auto it = options.params.find("version"); it != options.params.end()) {
    char* end = nullptr;
    const long v = std::strtol(it->second.c_str(), &end, 10);
    if (*end || v < 4 || v > 9) return Error{Errc::bad_value, 0, fmt::format("version must be 4 to 9, not '{}'", it->second)};
    c.version = static_cast<std::uint32_t>(v);
    change = true;
  }
  if (auto it = options.params.find("pack-format"); it != options.params.end()) {
    if (!parse_section_format(it->second, c.pack_format))
      return Error{Errc::bad_value, 0, fmt::format("pack-format must be flat, 1, 2, 3, 4, 5 or 6, not '{}'", it->second)};
    c.keep_pack_format = false;
    change = true;
  }
  return change ? std::optional(c) : std::nullopt;
}

// The module to write: the document's own, not a copy, unless the options change it (into `storage`).
Result<const Module*> converted(const Eu7bDocument& d, const WriteOptions& options, Module& storage) {
  auto c = conversion(options);
  if (!c) return c.error();
  if (!*c) return &d.stored();
  auto m = convert_module(d.module(), **c);
  if (!m) return m.error();
  storage = std::move(m).value();
  return &storage;
}

Result<std::vector<std::uint8_t>> write_eu7b(const Eu7bDocument& document, const WriteOptions& options) {
  Module storage;
  auto m = converted(document, options, storage);
  if (!m) return m.error();
  return write_module(**m, options.threads);
}

Error stream_eu7b(const Eu7bDocument& document, const WriteOptions& options, ByteSink& sink) {
  // A module kept encoded in its mapped file converts a section at a time.
  if (document.encoded()) {
    auto c = conversion(options);
    if (!c) return c.error();
    if (*c) return write_converted(document.stored(), **c, sink);
  }
  Module storage;
  auto m = converted(document, options, storage);
  if (!m) return m.error();
  return write_module(**m, sink);
}

Error stream_json(const Eu7bDocument& document, const WriteOptions& options, ByteSink& sink) {
  Module storage;
  auto m = converted(document, options, storage);
  if (!m) return m.error();
  if (Error e = write_module_json(**m, sink, -1, options.threads)) return e;
  return sink.put(std::string_view("\n"));
}

Result<std::vector<std::uint8_t>> generate(const GenerateOptions& options) {
  GeneratorOptions g;
  g.models = options.models;
  g.seed = options.seed;
  for (const auto& [key, value] : options.params) {
    if (key == "version") {
      g.version = static_cast<std::uint32_t>(std::strtoul(value.c_str(), nullptr, 10));
      if (g.version < 7 || g.version > 9) return Error{Errc::bad_value, 0, "version must be 7 to 9"};
    } else if (key == "pack-format") {
      if (!parse_section_format(value, g.pack_format)) return Error{Errc::bad_value, 0, "pack-format must be flat, 2, 3, 4, 5 or 6"};
      g.keep_default_format = false;
    } else if (key == "track-km") {
      g.track_km = std::strtod(value.c_str(), nullptr);
    } else if (key == "models-per-section") {
      g.models_per_section = static_cast<std::uint32_t>(std::strtoul(value.c_str(), nullptr, 10));
      if (g.models_per_section == 0) return Error{Errc::bad_value, 0, "models-per-section must be at least 1"};
    } else {
      return Error{Errc::bad_value, 0, fmt::format("unknown generator option '{}'", key)};
    }
  }
  auto m = generate_module(g);
  if (!m) return m.error();
  return write_module(*m);
}

}  // namespace

std::vector<std::string> model_candidates(std::string_view name) {
  std::string base(name);
  for (char& c : base) c = c == '\\' ? '/' : (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  const auto slash = base.rfind('/'), dot = base.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) base.resize(dot);
  std::vector<std::string> out;
  for (const std::string& c : {base + ".e3d", "models/" + base + ".e3d", base + ".t3d", "models/" + base + ".t3d"})
    if (auto key = normalize_asset_path(c)) out.push_back(*key);
  return out;
}

const Format& format() {
  static const Format f{
      .id = "eu7b",
      .name = "EU7B compiled MaSzyna scenery module",
      .extensions = {".eu7"},
      .probe = probe_any,
      .open = open,
      .open_remote = open_remote,
      .writers = {{"eu7b", ".eu7", "EU7B module, optionally at another version and PACK format",
                   "version=4..9 pack-format=flat|1..6", typed<Eu7bDocument, write_eu7b>, {}, false,
                   typed_stream<Eu7bDocument, stream_eu7b>},
                  {"json", ".json", "lossless JSON (docs/eu7b-json.md)", "version=4..9 pack-format=flat|1..6",
                   gathered<typed_stream<Eu7bDocument, stream_json>>, {}, false, typed_stream<Eu7bDocument, stream_json>}},
      .companions = "as its game folder (scenery/, models/, textures/, dynamic/) for its models, textures and trains",
      .companion_extensions = texture_file_extensions(),
      .generate = generate,
      .assets_folder = "scenery",
      .converts_in_pieces = true,
  };
  return f;
}

}  // namespace sceneria::eu7b
