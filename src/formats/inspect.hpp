#pragma once
// The format-blind entry point: detect what the bytes are and open them as a Document that can
// summarise itself and page through its records. Each format module (src/formats/<format>/)
// contributes a probe and a document; callers never switch on formats.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "io/byte_source.hpp"

namespace sceneria {

class Document {
 public:
  virtual ~Document() = default;
  // {"format": ..., "version": ..., "size": ..., "chunks": [...], ...} (`sceneria info --json`),
  // plus "stringSample" with the first `string_sample` strings as display text.
  virtual nlohmann::ordered_json summary(std::size_t string_sample) const = 0;
  // [{"id": "tracks", "label": "Tracks", "count": 87}, ...]
  virtual nlohmann::ordered_json record_kinds() const = 0;
  // [{"i": index, "name": ..., "detail": ...}, ...]
  virtual nlohmann::ordered_json rows(std::string_view kind, std::uint64_t first, std::uint64_t count) const = 0;
  // Rows whose name or detail contains `query` (case-insensitive), at most `limit`.
  virtual nlohmann::ordered_json search(std::string_view kind, std::string_view query, std::uint64_t limit) const = 0;
  // Every field of one record, strings as text; null if there is none.
  virtual nlohmann::ordered_json record(std::string_view kind, std::uint64_t index) const = 0;
  // The renderable scene (scene::Scene, serialized with scene/serialize.hpp); empty if the
  // format has nothing to draw.
  virtual Result<std::vector<std::uint8_t>> scene_bytes() const = 0;
};

Result<std::unique_ptr<Document>> open_document(ByteSource& source);

struct InspectOptions {
  std::size_t string_sample = 0;  // how many leading strings to include for display
};

Result<nlohmann::ordered_json> inspect(ByteSource& source, const InspectOptions& options = {});

}  // namespace sceneria
