#pragma once
#include <cstdint>

namespace sceneria {

// A four-letter code as the little-endian word a file stores it: compared as one integer,
// because string comparisons are library calls in WebAssembly.
constexpr std::uint32_t fourcc(char a, char b, char c, char d) {
  return static_cast<std::uint32_t>(static_cast<std::uint8_t>(a)) |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(b)) << 8 |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(c)) << 16 |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(d)) << 24;
}

}  // namespace sceneria
