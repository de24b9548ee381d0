#pragma once
// EU7B writer: container framing and the STRS table. Record writers arrive with the EU7B issue.
#include <cstdint>
#include <span>
#include <vector>

#include "formats/eu7b/eu7b.hpp"

namespace sceneria::eu7b {

struct RawChunk {
  std::uint32_t id = 0;
  std::vector<std::uint8_t> payload;
};

std::vector<std::uint8_t> encode_strings(const StringTable& strings);
// "EU7B", version, then each chunk with its 8-byte header (total size includes the header).
std::vector<std::uint8_t> write_container(std::uint32_t version, std::span<const RawChunk> chunks);

}  // namespace sceneria::eu7b
