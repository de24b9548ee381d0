#include "formats/catalog.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/b3d/format.hpp"
#include "formats/dds/format.hpp"
#include "formats/e3d/format.hpp"
#include "formats/eu7b/format.hpp"
#include "formats/fiz/format.hpp"
#include "formats/mmd/format.hpp"
#include "formats/scenery/format.hpp"
#include "formats/t3d/format.hpp"
#include "formats/xray/format.hpp"

namespace sceneria {

namespace {

// Every format, in probe order. One line per format.
const std::vector<Format>& list() {
  static const std::vector<Format> all = {
      eu7b::format(),
      // Text before its twin: a dropped folder holding both opens the text (the page ranks files
      // by this order), as the engine prefers a text newer than its twin. The text sniff refuses
      // twins' bytes, so the order costs nothing in detection.
      scenery::text_format(),
      scenery::twin_format(),
      // A vehicle before its models: a dropped vehicle folder opens as the vehicle.
      mmd::format(),
      e3d::format(),
      t3d::format(),
      b3d::format(),
      xray::format(),
      // Textures after the models: a dropped model folder opens its model.
      dds::format(),
      b3d::res_format(),
      fiz::format(),
  };
  return all;
}

Error with_file(Error e, const std::string& name) {
  if (e.file.empty()) e.file = name;
  return e;
}

}  // namespace

std::span<const Format> readers() { return list(); }

const Format* format_named_in(std::span<const Format> formats, std::string_view name) {
  for (const Format& f : formats)
    for (std::string_view ext : f.extensions)
      if (iends_with(name, ext)) return &f;
  return nullptr;
}

Result<const Format*> detect_in(std::span<const Format> formats, std::span<const std::uint8_t> head, std::string_view name, std::uint64_t size) {
  for (const Format& f : formats)
    if (f.probe(head, name)) return &f;
  if (const Format* f = format_named_in(formats, name)) return f;
  std::string tried;
  for (const Format& f : formats) {
    // A format's name may end in its extensions already ("MaSzyna binary model (.e3d)"): they
    // are said once.
    std::string exts;
    for (std::string_view ext : f.extensions) exts += (exts.empty() ? "" : " ") + std::string(ext);
    const std::string listed = "(" + exts + ")";
    const bool named = std::string_view(f.name).ends_with(listed);
    tried += fmt::format("{}{}{}", tried.empty() ? "" : ", ", f.name, named ? "" : " " + listed);
  }
  Error e{Errc::unknown_format, 0, fmt::format("{}: not a recognised file ({} bytes; tried: {})", name, size, tried)};
  e.file = std::string(name);
  return e;
}

Result<const Format*> detect_in(std::span<const Format> formats, ByteSource& source) {
  std::vector<std::uint8_t> head(static_cast<std::size_t>(std::min<std::uint64_t>(kProbeBytes, source.size())));
  if (Error e = source.read(0, head)) return with_file(std::move(e), source.name());
  return detect_in(formats, head, source.name(), source.size());
}

namespace {

// What open_document refuses: a param the format does not declare, a value outside its list.
Error check_params(const Format& format, const OpenOptions& options) {
  for (const auto& given : options.params) {
    const std::string& key = given.first;
    const std::string& value = given.second;
    const auto c = std::find_if(format.choices.begin(), format.choices.end(), [&key](const Choice& d) { return d.param == key; });
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
  auto format = detect_in(readers(), source);
  if (!format) return format.error();
  if (Error e = check_params(**format, options)) return with_file(std::move(e), source.name());
  auto document = (*format)->open(source, options);
  if (!document) return with_file(document.error(), source.name());
  return document;
}

Result<scene::Scene> open_model_scene(ByteSource& file, AssetResolver& assets, const std::string& texture_base,
                                      const std::vector<std::pair<std::string, std::string>>& params) {
  const std::string& path = file.name();
  const Format* format = format_named_in(readers(), path);
  if (!format || !format->open) return Error{Errc::unknown_format, 0, fmt::format("{}: no model format reads this file", path)};
  OpenOptions options;
  options.assets = &assets;
  options.texture_base = texture_base;
  options.params.insert(params.begin(), params.end());
  if (Error e = check_params(*format, options)) return e;
  auto document = format->open(file, options);
  if (!document) return document.error();
  return (*document)->scene();
}

}  // namespace sceneria
