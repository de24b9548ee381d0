#pragma once
// Small files the native tests build themselves (never the shared samples).
#include <cstdint>
#include <cstring>
#include <vector>

namespace sceneria::test {

// A DDS of one DXT1 block, both endpoints `rgb565`: a solid 4x4 texture.
inline std::vector<std::uint8_t> solid_dds(std::uint16_t rgb565) {
  std::vector<std::uint8_t> b(136, 0);
  const auto put = [&](std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); };
  std::memcpy(b.data(), "DDS ", 4);
  put(4, 124), put(8, 0x1007), put(12, 4), put(16, 4), put(76, 32), put(80, 4), put(108, 0x1000);
  std::memcpy(b.data() + 84, "DXT1", 4);
  std::memcpy(b.data() + 128, &rgb565, 2), std::memcpy(b.data() + 130, &rgb565, 2);
  return b;
}

}  // namespace sceneria::test
