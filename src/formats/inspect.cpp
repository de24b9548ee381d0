#include "formats/inspect.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/summary.hpp"

namespace sceneria {

namespace {
struct FormatEntry {
  const char* name;
  const char* extension;  // lower case, with the dot
  bool (*probe)(std::span<const std::uint8_t> head);
  Result<nlohmann::ordered_json> (*summarise)(ByteSource&, const InspectOptions&);
};

Result<nlohmann::ordered_json> summarise_eu7b(ByteSource& source, const InspectOptions& options) {
  auto module = eu7b::read_module(source, {.load_pack = true, .decode_pack = true});
  if (!module) return module.error();
  return eu7b::summary_json(*module, options.string_sample);
}

bool has_extension(const std::string& name, std::string_view ext) {
  if (name.size() < ext.size()) return false;
  for (std::size_t i = 0; i < ext.size(); ++i) {
    char c = name[name.size() - ext.size() + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != ext[i]) return false;
  }
  return true;
}

constexpr std::array kFormats = {
    FormatEntry{"EU7B", ".eu7", eu7b::probe, summarise_eu7b},
};
}  // namespace

Result<nlohmann::ordered_json> inspect(ByteSource& source, const InspectOptions& options) {
  std::array<std::uint8_t, 16> head{};
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(head.size(), source.size()));
  if (Error e = source.read(0, std::span(head).first(n))) return e;
  for (const FormatEntry& f : kFormats)
    if (f.probe(std::span(head).first(n))) return f.summarise(source, options);
  // No magic matched: a file named like a format gets that reader's precise complaint.
  for (const FormatEntry& f : kFormats)
    if (has_extension(source.name(), f.extension)) return f.summarise(source, options);
  std::string names;
  for (const FormatEntry& f : kFormats) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return Error{Errc::unknown_format, 0,
               fmt::format("{}: not a recognised file ({} bytes; readable formats: {})", source.name(),
                           source.size(), names)};
}

}  // namespace sceneria
