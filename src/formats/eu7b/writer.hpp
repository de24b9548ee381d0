#pragma once
// EU7B writer: a decoded Module back to bytes. Unmodified modules come out byte-identical.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "io/byte_sink.hpp"

namespace sceneria::eu7b {

struct RawChunk {
  std::uint32_t id = 0;
  std::vector<std::uint8_t> payload;
};

std::vector<std::uint8_t> encode_strings(const StringTable& strings);
// "EU7B", version, then each chunk with its 8-byte header (total size includes the header).
std::vector<std::uint8_t> write_container(std::uint32_t version, std::span<const RawChunk> chunks);

// One chunk's payload from its records (the inverse of decode_chunk).
std::vector<std::uint8_t> encode_chunk(const Chunk& chunk, std::uint32_t version);

// The whole module. PACK comes from its decoded sections (PIDX offsets follow the new layout)
// or, if not decoded, from its loaded bytes; a PACK that was neither loaded nor decoded is an error.
// `threads`: how many may write its chunks at once (the caller's included); a module of a few
// MB is written by the caller alone.
Result<std::vector<std::uint8_t>> write_module(const Module& module, unsigned threads = 1);
// The same bytes handed to `sink` chunk by chunk, never held whole: PACK goes from its loaded
// bytes as they are, every other chunk through one buffer of its size.
Error write_module(const Module& module, ByteSink& sink);

// The same with PACK's payload written by `pack` (its exact size first): a module whose sections
// are made as they are written (write_converted).
struct PackWriter {
  std::uint64_t size = 0;
  std::function<Error(ByteSink&)> write;
};
Error write_module(const Module& module, ByteSink& sink, const PackWriter& pack);

}  // namespace sceneria::eu7b
