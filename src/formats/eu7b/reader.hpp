#pragma once
// EU7B reader. Works on a ByteSource (random access) or on spans already fetched, so the same
// code serves a dropped file, a local file and HTTP Range streaming.
#include <cstdint>
#include <span>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "io/byte_source.hpp"

namespace sceneria::eu7b {

// True if the bytes start with the EU7B magic (used for format detection).
bool probe(std::span<const std::uint8_t> head);

// Header and chunk walk. Reads 8 bytes per chunk; payloads are not touched.
Result<Container> read_container(ByteSource& source);

// STRS payload -> string table. `payload_offset` is the absolute offset of payload[0].
Result<StringTable> read_strings(std::span<const std::uint8_t> payload, std::uint64_t payload_offset);

// The module header pass: container + strings. (Records arrive with the EU7B issue.)
Result<Module> read_module(ByteSource& source);

}  // namespace sceneria::eu7b
