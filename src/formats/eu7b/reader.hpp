#pragma once
// EU7B reader. Works on a ByteSource (random access) or on spans already fetched, so the same
// code serves a dropped file, a local file and HTTP Range streaming.
#include <cstdint>
#include <span>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "formats/eu7b/pack.hpp"
#include "io/byte_source.hpp"

namespace sceneria::eu7b {

// True if the bytes start with the EU7B magic (used for format detection).
bool probe(std::span<const std::uint8_t> head);

// Header and chunk walk. Reads 8 bytes per chunk; payloads are not touched.
Result<Container> read_container(ByteSource& source);

// STRS payload -> string table. `payload_offset` is the absolute offset of payload[0];
// `consumed` (optional) receives how many payload bytes the strings took.
Result<StringTable> read_strings(std::span<const std::uint8_t> payload, std::uint64_t payload_offset,
                                 std::size_t* consumed = nullptr);

struct ReadOptions {
  bool load_pack = false;    // keep the PACK payload's bytes (needed to write the module back)
  bool decode_pack = false;  // decode every PACK section (implies load_pack)
};

// The module header pass: every chunk decoded except PACK, whose payload is only located
// (unless the options ask for it). Malformed records are errors; inconsistencies that still
// decode (string ids out of range, trailing bytes, ...) are collected in Module::problems.
Result<Module> read_module(ByteSource& source, const ReadOptions& options = {});

// One chunk's payload -> records (STRS and PACK excepted). `string_count` bounds string ids.
Result<ChunkData> decode_chunk(std::uint32_t id, std::span<const std::uint8_t> payload, std::uint64_t payload_offset,
                               std::uint32_t version, std::uint32_t string_count, Chunk& chunk,
                               std::vector<Problem>* problems);

// What a section decode needs from a read module (model count from the PIDX entry).
SectionContext section_context(const Module& module, const PidxEntry& entry, std::vector<Problem>* problems = nullptr);

// Where one section's bytes lie in the PACK payload: [begin, end). Sections are cut at the
// sorted distinct PIDX offsets; the last one runs to the end of the payload.
struct SectionSpan {
  std::uint64_t begin = 0, end = 0;
};
Result<SectionSpan> section_span(const Module& module, const PidxEntry& entry);

// Decodes every section of a loaded PACK into PackChunk::sections.
Error decode_pack(Module& module);

}  // namespace sceneria::eu7b
