// libFuzzer target: one PACK section decoded from its own bytes, as streaming does. The first 8
// bytes are the PIDX model count and the PROT size; the rest is the section. A section that
// decodes must encode back to the same bytes, and sub-chunk random access must agree with the
// whole-section decode.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "formats/eu7b/pack.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sceneria::eu7b;
  if (size < 8) return 0;
  SectionContext ctx;
  std::memcpy(&ctx.model_count, data, 4);
  std::memcpy(&ctx.prototype_count, data + 4, 4);
  ctx.prototype_count %= 64;
  ctx.string_count = 1000;
  std::vector<sceneria::eu7b::Problem> problems;
  ctx.problems = &problems;
  const std::span<const std::uint8_t> bytes(data + 8, size - 8);
  auto section = decode_section(bytes, 0, ctx);
  if (!section) return 0;
  if (encode_section(*section) != std::vector<std::uint8_t>(bytes.begin(), bytes.end())) std::abort();
  (void)expand_section(*section, nullptr);
  auto header = decode_section_header(bytes, 0, ctx);
  if (!header) std::abort();
  PackSection pieces = *header;
  for (std::size_t i = 0; i < header->chunks.size(); ++i)
    if (decode_section_chunk(bytes, 0, *header, i, ctx, pieces)) std::abort();
  if (!header->chunks.empty() && encode_section(pieces) != encode_section(*section)) std::abort();
  return 0;
}
