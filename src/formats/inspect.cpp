#include "formats/inspect.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/eu7b/browse.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "scene/serialize.hpp"

namespace sceneria {

namespace {

class Eu7bDocument final : public Document {
 public:
  explicit Eu7bDocument(eu7b::Module module) : browser_(std::move(module)) {}
  nlohmann::ordered_json summary(std::size_t string_sample) const override {
    return eu7b::summary_json(browser_.module(), string_sample);
  }
  nlohmann::ordered_json record_kinds() const override {
    auto out = nlohmann::ordered_json::array();
    for (const auto& k : browser_.kinds()) out.push_back({{"id", k.id}, {"label", k.label}, {"count", k.count}});
    return out;
  }
  nlohmann::ordered_json rows(std::string_view kind, std::uint64_t first, std::uint64_t count) const override {
    return browser_.rows(kind, first, count);
  }
  nlohmann::ordered_json record(std::string_view kind, std::uint64_t index) const override {
    return browser_.record(kind, index);
  }
  nlohmann::ordered_json search(std::string_view kind, std::string_view query, std::uint64_t limit) const override {
    return browser_.search(kind, query, limit);
  }
  Result<std::vector<std::uint8_t>> scene_bytes() const override {
    auto scene = eu7b::to_scene(browser_.module());
    if (!scene) return scene.error();
    return scene::serialize(*scene);
  }

 private:
  eu7b::RecordBrowser browser_;
};

Result<std::unique_ptr<Document>> open_eu7b(ByteSource& source) {
  auto module = eu7b::read_module(source, {.load_pack = true, .decode_pack = true});
  if (!module) return module.error();
  return std::unique_ptr<Document>(new Eu7bDocument(std::move(module).value()));
}

struct FormatEntry {
  const char* name;
  const char* extension;  // with the dot; matched ignoring case
  bool (*probe)(std::span<const std::uint8_t> head);
  Result<std::unique_ptr<Document>> (*open)(ByteSource&);
};

constexpr std::array kFormats = {
    FormatEntry{"EU7B", ".eu7", eu7b::probe, open_eu7b},
};

}  // namespace

Result<std::unique_ptr<Document>> open_document(ByteSource& source) {
  std::array<std::uint8_t, 16> head{};
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(head.size(), source.size()));
  if (Error e = source.read(0, std::span(head).first(n))) return e;
  for (const FormatEntry& f : kFormats)
    if (f.probe(std::span(head).first(n))) return f.open(source);
  // No magic matched: a file named like a format gets that reader's precise complaint.
  for (const FormatEntry& f : kFormats)
    if (iends_with(source.name(), f.extension)) return f.open(source);
  std::string names;
  for (const FormatEntry& f : kFormats) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return Error{Errc::unknown_format, 0,
               fmt::format("{}: not a recognised file ({} bytes; readable formats: {})", source.name(),
                           source.size(), names)};
}

Result<nlohmann::ordered_json> inspect(ByteSource& source, const InspectOptions& options) {
  auto document = open_document(source);
  if (!document) return document.error();
  return (*document)->summary(options.string_sample);
}

}  // namespace sceneria
