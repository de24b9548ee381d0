#pragma once
// The format-blind entry point: detect what the bytes are and summarise them. Each format module
// (src/formats/<format>/) contributes a probe and a summary; callers never switch on formats.
#include <cstddef>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "io/byte_source.hpp"

namespace sceneria {

struct InspectOptions {
  std::size_t string_sample = 0;  // how many leading strings to include for display
};

Result<nlohmann::ordered_json> inspect(ByteSource& source, const InspectOptions& options = {});

}  // namespace sceneria
