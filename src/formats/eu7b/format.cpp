#include "formats/eu7b/format.hpp"

#include <algorithm>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/eu7b/browse.hpp"
#include "formats/eu7b/convert.hpp"
#include "formats/eu7b/demo.hpp"
#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/stream.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "formats/eu7b/validate.hpp"
#include "formats/eu7b/writer.hpp"

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

class Eu7bDocument final : public Document {
 public:
  Eu7bDocument(Module module, std::string name, std::vector<std::string> missing)
      : browser_(std::move(module)), name_(std::move(name)), missing_(std::move(missing)) {}
  const Module& module() const { return browser_.module(); }

  std::string_view format_id() const override { return "eu7b"; }
  std::string headline() const override { return eu7b::headline(module()); }
  ojson summary(std::size_t string_sample) const override { return summary_json(module(), string_sample); }
  std::vector<ListInfo> lists() const override { return browser_.lists(); }
  ojson rows(std::string_view list, std::uint64_t first, std::uint64_t count) const override {
    return browser_.rows(list, first, count);
  }
  ojson search(std::string_view list, std::string_view query, std::uint64_t limit) const override {
    return browser_.search(list, query, limit);
  }
  ojson record(std::string_view list, std::uint64_t index) const override { return browser_.record(list, index); }
  Result<scene::Scene> scene() const override { return to_scene(module()); }
  std::vector<Warning> warnings() const override { return as_warnings(module().problems); }
  std::vector<Warning> validate() const override { return as_warnings(eu7b::validate(module())); }
  std::vector<std::string> missing_assets() const override { return missing_; }
  Result<ojson> dump() const override { return module_to_json(module()); }

 private:
  std::vector<Warning> as_warnings(const std::vector<Problem>& problems) const {
    std::vector<Warning> out;
    for (const Problem& p : problems) out.push_back({name_, p.offset, 0, 0, p.message});
    return out;
  }
  RecordBrowser browser_;
  std::string name_;
  std::vector<std::string> missing_;
};

bool looks_like_json_form(std::span<const std::uint8_t> head, std::string_view name) {
  if (!iends_with(name, ".json")) return false;
  // docs/eu7b-json.md: the document starts with {"format": "eu7b", ...}; allow whitespace.
  const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  const auto key = text.find("\"format\"");
  return key != std::string_view::npos && key < 64 && text.find("\"eu7b\"", key) < key + 32;
}

bool probe_any(std::span<const std::uint8_t> head, std::string_view name) {
  return probe(head) || looks_like_json_form(head, name);
}

Result<Module> read_json_form(ByteSource& source) {
  if (source.size() > (std::uint64_t{1} << 31))
    return Error{Errc::bad_count, 0, fmt::format("{}: a {} byte JSON document is too big to read", source.name(), source.size())};
  auto bytes = source.read_vector(0, source.size());
  if (!bytes) return bytes.error();
  auto j = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
  if (j.is_discarded()) return Error{Errc::bad_value, 0, fmt::format("{}: not valid JSON", source.name())};
  return module_from_json(j);
}

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  std::vector<std::uint8_t> head(static_cast<std::size_t>(std::min<std::uint64_t>(64, source.size())));
  if (Error e = source.read(0, head)) return e;
  auto module = looks_like_json_form(head, source.name()) ? read_json_form(source)
                                                          : read_module(source, {.load_pack = true, .decode_pack = true, .threads = options.threads});
  if (!module) return module.error();
  std::vector<std::string> missing;
  if (options.assets) {
    for (const std::string& file : header_model_files(*module, true)) options.assets->exists_any(model_candidates(file), file);
    missing = options.assets->missing();
  }
  return std::unique_ptr<Document>(new Eu7bDocument(std::move(module).value(), source.name(), std::move(missing)));
}

std::unique_ptr<stream::RemoteDocument> open_remote(std::uint64_t size, std::string name) {
  return std::make_unique<RemoteModule>(size, std::move(name));
}

const Module* module_of(const Document& document) {
  if (document.format_id() != "eu7b") return nullptr;
  const auto* d = dynamic_cast<const Eu7bDocument*>(&document);
  return d ? &d->module() : nullptr;
}

Result<Module> converted(const Document& document, const WriteOptions& options) {
  const Module* m = module_of(document);
  if (!m) return Error{Errc::bad_value, 0, "only an EU7B module can be written as EU7B"};
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
  if (!change) return *m;
  return convert_module(*m, c);
}

Result<std::vector<std::uint8_t>> write_eu7b(const Document& document, const WriteOptions& options) {
  auto m = converted(document, options);
  if (!m) return m.error();
  return write_module(*m, options.threads);
}

Result<std::vector<std::uint8_t>> write_json(const Document& document, const WriteOptions& options) {
  auto m = converted(document, options);
  if (!m) return m.error();
  auto j = module_to_json(*m);
  if (!j) return j.error();
  const std::string text = j->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return std::vector<std::uint8_t>(text.begin(), text.end());
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
                   "version=4..9 pack-format=flat|1..6", write_eu7b},
                  {"json", ".json", "lossless JSON (docs/eu7b-json.md)", "version=4..9 pack-format=flat|1..6", write_json}},
      .demo = demo_module,
      .generate = generate,
  };
  return f;
}

}  // namespace sceneria::eu7b
