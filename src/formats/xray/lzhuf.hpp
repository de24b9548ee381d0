#pragma once
// LZHUF, as X-Ray's compressed chunks hold it (notes xray-object.md §2): LZSS over a 4096-byte
// ring (pre-filled with spaces, writing from 4036), matches of 3-60 bytes, literals and match
// lengths coded by one adaptive Huffman tree of 314 symbols (rebuilt, halved, when the root's
// count reaches 0x4000), the upper 6 bits of a match's distance by a fixed prefix code and the
// lower 6 bits as they are. Bits are read most significant first. Written from the algorithm's
// description; the samples (test_fmt_old.object) are the check.
#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"

namespace sceneria::xray {

// `size` bytes decoded from `packed` (`at`: its offset in the file, for messages). An input that
// ends early reads as zero bits, as the editor's reader does, but a stream that would need more
// than a few bytes past its end is refused rather than decoded into noise.
Result<std::vector<std::uint8_t>> lzhuf_decode(std::span<const std::uint8_t> packed, std::uint64_t size, std::uint64_t at = 0);
// The stream lzhuf_decode reads back to `bytes` (greedy matches from 3-byte hash chains).
std::vector<std::uint8_t> lzhuf_encode(std::span<const std::uint8_t> bytes);

}  // namespace sceneria::xray
