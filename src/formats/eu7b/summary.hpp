#pragma once
// What `sceneria info` and the viewer's file panel show about a module.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "formats/eu7b/eu7b.hpp"

namespace sceneria::eu7b {

// Records held by one chunk (strings, tracks, ...); nullopt for chunks that are not lists.
std::optional<std::uint64_t> record_count(const Chunk& chunk);

// Models in PACK after prototype expansion: the sum over decoded sections (0 if not decoded).
std::uint64_t pack_model_count(const Module& module);

// {"format":"eu7b","version":6,"size":…,"chunks":[{"id":"STRS","offset":8,"size":3404,
//  "records":305},…],"strings":305,"counts":{…},"sections":[{"row":…,"col":…,"models":…,
//  "format":"6"},…]} plus "stringSample" (the first `string_sample` strings, as display text).
// "EU7B v9, 7 chunks, 77 PACK models"
std::string headline(const Module& module);

nlohmann::ordered_json summary_json(const Module& module, std::size_t string_sample = 0);

}  // namespace sceneria::eu7b
