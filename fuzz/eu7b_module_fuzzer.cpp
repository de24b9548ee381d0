// libFuzzer target: the EU7B module reader on hostile bytes. Besides "no crash, no leak, no UB"
// it checks the lossless contract: whatever decodes writes back to exactly the same bytes, and
// survives the JSON form unchanged.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "formats/eu7b/json_codec.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/summary.hpp"
#include "formats/eu7b/validate.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/byte_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sceneria;
  MemorySource source(std::span<const std::uint8_t>(data, size), "fuzz.eu7");
  auto module = eu7b::read_module(source, {.load_pack = true, .decode_pack = true});
  if (!module) return 0;
  (void)eu7b::validate(*module);
  (void)eu7b::summary_json(*module, 8).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto bytes = eu7b::write_module(*module);
  if (!bytes || *bytes != std::vector<std::uint8_t>(data, data + size)) std::abort();
  if (size > 64 * 1024) return 0;  // the JSON round trip is slow on big inputs; small ones cover it
  auto json = eu7b::module_to_json(*module);
  if (!json) std::abort();
  auto back = eu7b::module_from_json(nlohmann::json::parse(json->dump()));
  if (!back) std::abort();
  auto again = eu7b::write_module(*back);
  if (!again || *again != *bytes) std::abort();
  return 0;
}
