#include "formats/registry.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "export/writers.hpp"
#include "formats/b3d/format.hpp"
#include "formats/dds/format.hpp"
#include "formats/e3d/format.hpp"
#include "formats/eu7b/format.hpp"
#include "formats/scenery/format.hpp"
#include "formats/t3d/format.hpp"
#include "formats/xray/format.hpp"

namespace sceneria {

namespace {

// Every format, in probe order. One line per format.
const std::vector<Format>& registry() {
  static const std::vector<Format> all = {
      // Each format's own writers, then the scene exports every drawable format has.
      exports::with_scene_writers(eu7b::format()),
      // Text before its twin: a dropped folder holding both opens the text (the page ranks files
      // by this order), as the engine prefers a text newer than its twin. The text sniff refuses
      // twins' bytes, so the order costs nothing in detection.
      exports::with_scene_writers(scenery::text_format()),
      exports::with_scene_writers(scenery::twin_format()),
      exports::with_scene_writers(e3d::format()),
      exports::with_scene_writers(t3d::format()),
      exports::with_scene_writers(b3d::format()),
      exports::with_scene_writers(xray::format()),
      // Textures after the models: a dropped model folder opens its model.
      exports::with_scene_writers(dds::format()),
      // A resource file draws nothing: no scene exports.
      b3d::res_format(),
  };
  return all;
}

Error with_file(Error e, const std::string& name) {
  if (e.file.empty()) e.file = name;
  return e;
}

}  // namespace

namespace {

// scene() whole as the one piece; fields from the document's records.
class WholeScene final : public scene::Pieces {
 public:
  explicit WholeScene(const Document& document) : document_(document) {}
  Result<scene::Scene> base() override { return document_.scene(); }
  nlohmann::ordered_json fields(const scene::Object& object, const std::string& kind) override {
    return document_.record(kind, object.index);
  }

 private:
  const Document& document_;
};

}  // namespace

std::unique_ptr<scene::Pieces> Document::scene_pieces() const { return std::make_unique<WholeScene>(*this); }

nlohmann::ordered_json lists_json(const Document& document) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& l : document.lists()) {
    out.push_back({{"id", l.id}, {"label", l.label}, {"count", l.count}});
    if (!l.browsable) out.back()["browsable"] = false;
    if (!l.groups.empty()) {
      auto groups = nlohmann::ordered_json::array();
      for (const ListGroup& g : l.groups) groups.push_back({{"id", g.id}, {"label", display_text(g.label)}, {"count", g.count}});
      out.back()["groups"] = std::move(groups);
    }
  }
  return out;
}

nlohmann::ordered_json choices_json(const std::vector<Choice>& choices) {
  auto out = nlohmann::ordered_json::array();
  for (const Choice& c : choices) {
    auto values = nlohmann::ordered_json::array();
    // Values may be names from the file (skin sets): kept as text, whatever their bytes.
    for (const ChoiceValue& v : c.values) values.push_back({{"value", display_text(v.value)}, {"label", display_text(v.label)}});
    out.push_back({{"param", c.param}, {"label", c.label}, {"help", c.help}, {"toggle", c.toggle}, {"values", std::move(values)}, {"value", display_text(c.value)}});
  }
  return out;
}

namespace {

Error stream_dump(const Document& document, const WriteOptions&, ByteSink& sink) {
  if (Error e = document.dump_to(sink, -1)) return e;
  return sink.put(std::string_view("\n"));
}

}  // namespace

Writer dump_writer(std::string_view description) { return {"json", ".json", description, "", gathered<stream_dump>, {}, false, stream_dump}; }

const Writer* Format::writer_for(std::string_view path_or_id) const {
  for (const Writer& w : writers)
    if (w.id == path_or_id) return &w;
  for (const Writer& w : writers)
    if (iends_with(path_or_id, w.extension)) return &w;
  for (const Writer& w : writers)
    for (std::string_view e : w.more_extensions)
      if (iends_with(path_or_id, e)) return &w;
  return nullptr;
}

std::span<const Format> formats() { return registry(); }

const Format* find_format(std::string_view id) {
  for (const Format& f : registry())
    if (f.id == id) return &f;
  return nullptr;
}

const Format* format_for_name(std::string_view name) {
  for (const Format& f : registry())
    for (std::string_view ext : f.extensions)
      if (iends_with(name, ext)) return &f;
  return nullptr;
}

Result<const Format*> detect(std::span<const std::uint8_t> head, std::string_view name, std::uint64_t size) {
  for (const Format& f : registry())
    if (f.probe(head, name)) return &f;
  if (const Format* f = format_for_name(name)) return f;
  std::string tried;
  for (const Format& f : registry()) {
    std::string exts;
    for (std::string_view ext : f.extensions) exts += (exts.empty() ? "" : " ") + std::string(ext);
    tried += fmt::format("{}{} ({})", tried.empty() ? "" : ", ", f.name, exts);
  }
  Error e{Errc::unknown_format, 0, fmt::format("{}: not a recognised file ({} bytes; tried: {})", name, size, tried)};
  e.file = std::string(name);
  return e;
}

Result<const Format*> detect(ByteSource& source) {
  std::vector<std::uint8_t> head(static_cast<std::size_t>(std::min<std::uint64_t>(kProbeBytes, source.size())));
  if (Error e = source.read(0, head)) return with_file(std::move(e), source.name());
  return detect(head, source.name(), source.size());
}

std::string OpenOptions::param(std::string_view key, std::string_view fallback) const {
  const auto it = params.find(std::string(key));
  return it == params.end() ? std::string(fallback) : it->second;
}

namespace {

// What open_document refuses: a param the format does not declare, a value outside its list.
Error check_params(const Format& format, const OpenOptions& options) {
  for (const auto& [key, value] : options.params) {
    const auto c = std::find_if(format.choices.begin(), format.choices.end(), [&](const Choice& d) { return d.param == key; });
    if (c == format.choices.end()) {
      std::string takes;
      for (const Choice& d : format.choices) takes += (takes.empty() ? "" : ", ") + d.param;
      return Error{Errc::bad_value, 0, fmt::format("{} has no open choice '{}' ({})", format.name, key, takes.empty() ? "it has none" : "it has " + takes)};
    }
    std::vector<std::string> allowed;
    if (c->toggle) allowed = {"false", "true"};
    for (const ChoiceValue& v : c->values) allowed.push_back(v.value);
    if (allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end()) continue;
    std::string listed;
    for (const std::string& a : allowed) listed += (listed.empty() ? "'" : ", '") + a + "'";
    return Error{Errc::bad_value, 0, fmt::format("{}: '{}' is not one of {}", key, value, listed)};
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<Document>> open_document(ByteSource& source, const OpenOptions& options) {
  auto format = detect(source);
  if (!format) return format.error();
  if (Error e = check_params(**format, options)) return with_file(std::move(e), source.name());
  auto document = (*format)->open(source, options);
  if (!document) return with_file(document.error(), source.name());
  return document;
}

std::pair<std::string, std::vector<std::uint8_t>> demo_file() {
  for (const Format& f : registry())
    if (f.demo) return {fmt::format("demo{}", f.extensions.empty() ? "" : f.extensions.front()), f.demo()};
  return {};
}

std::string accepted_extensions() {
  std::string out;
  for (const Format& f : registry())
    for (std::string_view ext : f.extensions) out += (out.empty() ? "" : ",") + std::string(ext);
  return out;
}

namespace {
// A writer as the page and `formats --json` see it.
nlohmann::ordered_json writer_json(const Writer& w) {
  return {{"id", w.id}, {"extension", w.extension}, {"description", w.description}, {"params", w.params}, {"files", w.makes_files}};
}
}  // namespace

nlohmann::ordered_json formats_json() {
  auto out = nlohmann::ordered_json::array();
  for (const Format& f : registry()) {
    nlohmann::ordered_json j;
    j["id"] = f.id;
    j["name"] = f.name;
    j["extensions"] = nlohmann::ordered_json::array();
    for (std::string_view ext : f.extensions) j["extensions"].push_back(ext);
    j["reads"] = f.open != nullptr;
    j["streams"] = f.open_remote != nullptr;
    j["writes"] = nlohmann::ordered_json::array();
    for (const Writer& w : f.writers) j["writes"].push_back(writer_json(w));
    j["demo"] = f.demo != nullptr;
    j["generate"] = f.generate != nullptr;
    j["assetsFolder"] = f.assets_folder;
    j["assetsRootHolds"] = f.assets_root_holds;
    j["choices"] = choices_json(f.choices);
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::ordered_json describe(const Document& document, std::size_t string_sample) {
  nlohmann::ordered_json j = document.summary(string_sample);
  j["lists"] = lists_json(document);
  j["choices"] = choices_json(document.choices());
  j["missingFiles"] = document.missing_assets();
  auto warnings = nlohmann::ordered_json::array();
  for (const Warning& w : document.warnings()) {
    nlohmann::ordered_json o{{"file", w.file}, {"offset", w.offset}, {"message", w.message}};
    if (w.line) o["line"] = w.line, o["column"] = w.column;
    warnings.push_back(std::move(o));
  }
  j["warnings"] = std::move(warnings);
  // What can be done with it: whether its format streams, and the targets it can be written as.
  nlohmann::ordered_json capabilities{{"streams", false}, {"writes", nlohmann::ordered_json::array()}};
  if (const Format* f = find_format(document.format_id())) {
    capabilities["streams"] = f->open_remote != nullptr;
    for (const Writer& w : f->writers) capabilities["writes"].push_back(writer_json(w));
  }
  j["capabilities"] = std::move(capabilities);
  return j;
}

}  // namespace sceneria
