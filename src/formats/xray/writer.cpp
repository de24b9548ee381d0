// The object back to bytes: its chunks in file order as read, each packed chunk's LZHUF stream
// kept where it still decodes to the chunk's bytes (so a file read and written back is
// byte-identical), packed afresh otherwise.
#include <algorithm>
#include <cstring>

#include "formats/xray/lzhuf.hpp"
#include "formats/xray/xray.hpp"

namespace sceneria::xray {

namespace {

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}

}  // namespace

std::vector<std::uint8_t> write_chunks(const ChunkList& list) {
  std::vector<std::uint8_t> out;
  for (const Chunk& c : list.chunks) {
    put_u32(out, c.id | (c.packed ? kPackedBit : 0));
    if (!c.packed) {
      put_u32(out, static_cast<std::uint32_t>(c.data.size()));
      out.insert(out.end(), c.data.begin(), c.data.end());
      continue;
    }
    std::vector<std::uint8_t> body;
    if (!c.stream.empty()) {
      std::uint32_t size = 0;
      std::memcpy(&size, c.stream.data(), std::min<std::size_t>(4, c.stream.size()));
      auto again = lzhuf_decode(std::span(c.stream).subspan(std::min<std::size_t>(4, c.stream.size())), size);
      if (again && *again == c.data) body = c.stream;
    }
    if (body.empty() && !c.data.empty()) {
      put_u32(body, static_cast<std::uint32_t>(c.data.size()));
      const auto packed = lzhuf_encode(c.data);
      body.insert(body.end(), packed.begin(), packed.end());
    }
    put_u32(out, static_cast<std::uint32_t>(body.size()));
    out.insert(out.end(), body.begin(), body.end());
  }
  out.insert(out.end(), list.trailing.begin(), list.trailing.end());
  return out;
}

std::vector<std::uint8_t> write_object(const File& file) { return write_chunks(file.root); }

}  // namespace sceneria::xray
