#include "formats/eu7b/summary.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace sceneria::eu7b {

nlohmann::ordered_json summary_json(const Module& module, std::size_t string_sample) {
  nlohmann::ordered_json j;
  j["format"] = "eu7b";
  j["version"] = module.container.version;
  j["size"] = module.container.file_size;
  auto& chunks = j["chunks"] = nlohmann::ordered_json::array();
  for (const ChunkInfo& c : module.container.chunks) {
    nlohmann::ordered_json row;
    row["id"] = chunk_name(c.id);
    row["offset"] = c.offset;
    row["size"] = c.size;
    if (!is_known_chunk(c.id)) row["known"] = false;
    chunks.push_back(std::move(row));
  }
  j["strings"] = module.strings.size();
  if (string_sample > 0) {
    auto& sample = j["stringSample"] = nlohmann::ordered_json::array();
    const std::size_t n = std::min(string_sample, module.strings.size());
    for (std::size_t i = 0; i < n; ++i) sample.push_back(display_text(module.strings[i]));
  }
  return j;
}

}  // namespace sceneria::eu7b
