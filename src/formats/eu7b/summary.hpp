#pragma once
// What `sceneria info` and the viewer's file panel show about a module.
#include <cstddef>

#include <nlohmann/json.hpp>

#include "formats/eu7b/eu7b.hpp"

namespace sceneria::eu7b {

// {"format":"eu7b","version":6,"size":…,"chunks":[{"id":"STRS","offset":8,"size":3404},…],
//  "strings":305} plus "stringSample" (the first `string_sample` strings, as display text).
nlohmann::ordered_json summary_json(const Module& module, std::size_t string_sample = 0);

}  // namespace sceneria::eu7b
