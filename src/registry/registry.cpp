#include "registry/registry.hpp"

#include <fmt/format.h>

#include "export/writers.hpp"

namespace sceneria {

namespace {

// The catalog's formats, each that draws with the scene exports after its own writers.
const std::vector<Format>& registry() {
  static const std::vector<Format> all = [] {
    std::vector<Format> out;
    for (const Format& f : readers()) out.push_back(f.draws ? exports::with_scene_writers(f) : f);
    return out;
  }();
  return all;
}

// A writer as the page and `formats --json` see it.
nlohmann::ordered_json writer_json(const Writer& w) {
  return {{"id", w.id}, {"extension", w.extension}, {"description", w.description}, {"params", w.params}, {"files", w.makes_files}};
}

}  // namespace

std::span<const Format> formats() { return registry(); }

const Format* find_format(std::string_view id) {
  for (const Format& f : registry())
    if (f.id == id) return &f;
  return nullptr;
}

const Format* format_for_name(std::string_view name) { return format_named_in(registry(), name); }

Result<const Format*> detect(std::span<const std::uint8_t> head, std::string_view name, std::uint64_t size) {
  return detect_in(registry(), head, name, size);
}

Result<const Format*> detect(ByteSource& source) { return detect_in(registry(), source); }

std::string accepted_extensions() {
  // The formats' own, then what is picked with them (textures, .mat files), each once.
  std::vector<std::string_view> all;
  for (const Format& f : registry()) all.insert(all.end(), f.extensions.begin(), f.extensions.end());
  for (const Format& f : registry()) all.insert(all.end(), f.companion_extensions.begin(), f.companion_extensions.end());
  std::string out;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (std::find(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(i), all[i]) == all.begin() + static_cast<std::ptrdiff_t>(i))
      out += (out.empty() ? "" : ",") + std::string(all[i]);
  return out;
}

nlohmann::ordered_json formats_json() {
  auto out = nlohmann::ordered_json::array();
  for (const Format& f : registry()) {
    nlohmann::ordered_json j;
    j["id"] = f.id;
    j["name"] = f.name;
    j["extensions"] = nlohmann::ordered_json::array();
    for (std::string_view ext : f.extensions) j["extensions"].push_back(ext);
    j["reads"] = f.open != nullptr;
    j["picture"] = f.picture;
    j["streams"] = f.open_remote != nullptr;
    j["writes"] = nlohmann::ordered_json::array();
    for (const Writer& w : f.writers) j["writes"].push_back(writer_json(w));
    j["companions"] = f.companions;
    j["companionExtensions"] = f.companion_extensions;
    // What a host offers first when saving: the scene exports' first (glTF binary) for a format
    // that draws, which every 3D tool reads; else the format's own first writer.
    j["saveDefault"] = f.draws ? exports::scene_writers().front().id : f.writers.empty() ? std::string_view() : f.writers.front().id;
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
