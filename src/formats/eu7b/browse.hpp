#pragma once
// Record browsing for user interfaces: what lists a module has, one page of rows at a time
// (a million PACK models never become a million JSON objects), and any record in full with its
// strings resolved to display text.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/document.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "formats/eu7b/pack.hpp"

namespace sceneria::eu7b {

struct RecordKind {
  std::string id;     // "tracks", "pack_models", ...
  std::string label;  // "Tracks", "PACK models", ...
  std::uint64_t count = 0;
};

// One PACK model (prototype expanded) of a decoded section, every field for the inspector.
nlohmann::ordered_json pack_model_record(const Module& module, const PackSection& section, const PidxEntry* entry,
                                         std::size_t index_in_section);
// The same for a model of the section already expanded (expand_section), for a whole section's.
nlohmann::ordered_json expanded_model_record(const Module& module, const PackSection& section, const PidxEntry* entry,
                                             const ExpandedModel& model);

class RecordBrowser {
 public:
  explicit RecordBrowser(Module module);  // PACK decoded if present
  // Over a module that lives elsewhere and may still grow (a streamed module whose strings arrive
  // after opening): rows and records show what is loaded at the time they are asked for.
  struct Live {};
  RecordBrowser(const Module& module, Live);
  RecordBrowser(const RecordBrowser&) = delete;
  RecordBrowser& operator=(const RecordBrowser&) = delete;

  const Module& module() const { return module_; }
  std::vector<RecordKind> kinds() const;
  std::vector<ListInfo> lists() const;  // kinds() as the Document interface gives them
  // [{"i": index, "name": "...", "detail": "..."}, ...] for `count` rows from `first`.
  nlohmann::ordered_json rows(std::string_view kind, std::uint64_t first, std::uint64_t count) const;
  // Rows of `kind` whose name or detail contains `query` (case-insensitive), at most `limit`.
  nlohmann::ordered_json search(std::string_view kind, std::string_view query, std::uint64_t limit) const;
  // Every field of one record (strings as text), or null if out of range.
  nlohmann::ordered_json record(std::string_view kind, std::uint64_t index) const;

 private:
  struct PackIndex {
    std::size_t section;  // into PackChunk::sections
    std::size_t index;    // into that section's expanded models
  };
  PackIndex locate(std::uint64_t index) const;
  nlohmann::ordered_json record_fields(std::string_view kind, std::uint64_t index) const;
  std::uint64_t pack_models() const { return pack_starts_.empty() ? 0 : pack_starts_.back(); }

  Module owned_;
  const Module& module_;
  std::vector<std::uint64_t> pack_starts_;  // prefix sums of section model counts
  std::vector<const PidxEntry*> section_entry_;
};

}  // namespace sceneria::eu7b
