#pragma once
// EU7B <-> JSON, lossless both ways: module_from_json(module_to_json(m)) writes the same bytes as
// m. Schema: docs/eu7b-json.md. The field names come from fields.hpp, shared with the binary
// codec, so the JSON always says exactly what the file holds.
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"
#include "io/json_io.hpp"  // string_to_json, string_from_json

namespace sceneria::eu7b {

constexpr int kJsonSchemaVersion = 1;

// Needs PACK decoded (read with decode_pack) when the module has one.
Result<nlohmann::ordered_json> module_to_json(const Module& module);
Result<Module> module_from_json(const nlohmann::json& json);

// The same JSON, streamed: written while the module is walked (the bytes of
// module_to_json(m)->dump(indent)), and read as it arrives, with memory that does not grow with
// the document (docs/eu7b-json.md, "Big modules"). The writer takes PACK loaded but not decoded
// and decodes its sections one at a time; the reader gives PACK loaded, not decoded (decode_pack
// decodes it), with each section encoded as it closed. A document in another member order than
// sceneria's is read as a tree instead, if it is at most `tree_limit` bytes.
// `threads` (the caller's included) write PACK sections side by side; the bytes are the same.
Error write_module_json(const Module& module, ByteSink& sink, int indent = -1, unsigned threads = 1);
// `threads` (the caller's included) read PACK sections side by side.
constexpr std::uint64_t kJsonTreeLimit = std::uint64_t{256} << 20;
Result<Module> read_module_json(ByteSource& source, std::uint64_t tree_limit = kJsonTreeLimit, unsigned threads = 1);

}  // namespace sceneria::eu7b
