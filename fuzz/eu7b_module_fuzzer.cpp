// libFuzzer target: the EU7B module reader on hostile bytes. Besides "no crash, no leak, no UB"
// it checks the lossless contract: whatever decodes writes back to exactly the same bytes, and
// survives the JSON form (as a tree and streamed) unchanged; the streaming JSON reader also gets
// the raw bytes, as hostile text.
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/validate.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sceneria;
  MemorySource source(std::span<const std::uint8_t>(data, size), "fuzz.eu7");
  // The same bytes as a JSON document for the streaming reader: whatever it accepts must write.
  if (auto from_text = eu7b::read_module_json(source, 1 << 16)) {
    if (!eu7b::write_module(*from_text)) std::abort();
  }
  auto module = eu7b::read_module(source, {.load_pack = true, .decode_pack = true});
  if (!module) return 0;
  (void)eu7b::validate(*module);
  (void)eu7b::summary_json(*module, 8).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto bytes = eu7b::write_module(*module);
  if (!bytes || *bytes != std::vector<std::uint8_t>(data, data + size)) std::abort();
  // Streaming reads STRS later, in pieces: it must end with exactly the same strings.
  auto lazy = eu7b::read_module(source, {.lazy_strings = true});
  if (!lazy || lazy->string_count() != module->strings.size()) std::abort();
  eu7b::StringFeed feed(*lazy);
  const std::size_t piece = 1 + (size > 8 ? data[8] % 64 : 0);
  while (!feed.done()) {
    const std::uint64_t at = feed.next_offset(), end = std::min<std::uint64_t>(feed.end_offset(), at + piece);
    if (feed.feed(at, std::span(data + at, end - at), *lazy)) std::abort();
  }
  if (lazy->strings.size() != module->strings.size()) std::abort();
  for (std::size_t i = 0; i < module->strings.size(); ++i)
    if (lazy->strings[i] != module->strings[i]) std::abort();
  if (size > 64 * 1024) return 0;  // the JSON round trip is slow on big inputs; small ones cover it
  auto json = eu7b::module_to_json(*module);
  if (!json) std::abort();
  auto back = eu7b::module_from_json(nlohmann::json::parse(json->dump()));
  if (!back) std::abort();
  auto again = eu7b::write_module(*back);
  if (!again || *again != *bytes) std::abort();
  // The streamed form too: written without a tree, read back as it streams, the same bytes.
  std::vector<std::uint8_t> text;
  VectorByteSink sink(text);
  if (eu7b::write_module_json(*module, sink)) std::abort();
  MemorySource text_source(std::move(text), "fuzz.json");
  auto streamed = eu7b::read_module_json(text_source, 0);
  if (!streamed) std::abort();
  auto streamed_bytes = eu7b::write_module(*streamed);
  if (!streamed_bytes || *streamed_bytes != *bytes) std::abort();
  return 0;
}
