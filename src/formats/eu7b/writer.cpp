#include "formats/eu7b/writer.hpp"

#include <cstring>

namespace sceneria::eu7b {

namespace {
void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &v, 4);
}
}  // namespace

std::vector<std::uint8_t> encode_strings(const StringTable& strings) {
  std::vector<std::uint8_t> out;
  out.reserve(4 + strings.size() * 4 + strings.byte_size());
  put_u32(out, static_cast<std::uint32_t>(strings.size()));
  for (std::size_t i = 0; i < strings.size(); ++i) {
    const std::string_view s = strings[i];
    put_u32(out, static_cast<std::uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

std::vector<std::uint8_t> write_container(std::uint32_t version, std::span<const RawChunk> chunks) {
  std::size_t total = kHeaderSize;
  for (const RawChunk& c : chunks) total += kChunkHeaderSize + c.payload.size();
  std::vector<std::uint8_t> out;
  out.reserve(total);
  out.insert(out.end(), kMagic, kMagic + 4);
  put_u32(out, version);
  for (const RawChunk& c : chunks) {
    put_u32(out, c.id);
    put_u32(out, static_cast<std::uint32_t>(kChunkHeaderSize + c.payload.size()));
    out.insert(out.end(), c.payload.begin(), c.payload.end());
  }
  return out;
}

}  // namespace sceneria::eu7b
