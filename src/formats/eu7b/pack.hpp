#pragma once
// PACK sections: 1 km tiles of model placements, decodable one at a time from their own bytes
// (plus the module's prototype count), which is what streaming needs.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "formats/eu7b/records.hpp"

namespace sceneria::eu7b {

std::string_view section_format_name(SectionFormat f);  // "flat", "1", ... "6"
bool parse_section_format(std::string_view text, SectionFormat& out);

// What a section decode needs from its module.
struct SectionContext {
  std::uint32_t model_count = 0;      // from PIDX
  std::uint32_t prototype_count = 0;  // PROT records (0 if none)
  std::uint32_t string_count = 0;     // string ids at or above this are reported
  std::vector<Problem>* problems = nullptr;  // where to report non-fatal findings (optional)
};

// The reference's detection rule (notes §6.1): a format byte is believed only if the header
// totals agree with PIDX; otherwise the section is flat v7.
SectionFormat detect_section_format(std::span<const std::uint8_t> bytes, const SectionContext& ctx);

// Decodes one whole section. `file_offset` is the absolute offset of bytes[0] (for messages).
Result<PackSection> decode_section(std::span<const std::uint8_t> bytes, std::uint64_t file_offset,
                                   const SectionContext& ctx);

// Header only (format, totals, lists, chunk table): the index for sub-chunk random access.
Result<PackSection> decode_section_header(std::span<const std::uint8_t> bytes, std::uint64_t file_offset,
                                          const SectionContext& ctx);
// One sub-chunk's records, from the section bytes and its decoded header. Solo records go to
// out.solo, inst records to out.inst.
Error decode_section_chunk(std::span<const std::uint8_t> section_bytes, std::uint64_t file_offset,
                           const PackSection& header, std::size_t chunk_index, const SectionContext& ctx,
                           PackSection& out);

// Whether the sub-chunk table (formats 3-6) accounts for exactly the section's records, as a
// decoded section's does: "" if so, else what does not add up (a section made elsewhere, a JSON
// form edited by hand). encode_section writes the records the table names, no more.
std::string section_counts_problem(const PackSection& section);
std::vector<std::uint8_t> encode_section(const PackSection& section);

// A placement with its prototype expanded, as the reference runtime sees it (notes §6.4).
struct ExpandedModel {
  Sid name = kNoString;
  Sid file = kNoString;     // resolved through UMES / PROT where needed
  Sid texture = kNoString;  // resolved through UTEX / PROT where needed
  std::uint16_t mesh_idx = kNoIndex, tex_idx = kNoIndex;  // v13 solo only
  std::uint8_t flags = 0;   // the prototype's pack_flags (0 for solo records)
  std::uint8_t terrain = 0, transition = 0;
  float range_sq_min = 0, range_sq_max = 0;
  Vec3f location, angles, scale;
  std::uint8_t cell = kNoCell;
  std::int32_t proto = -1;  // prototype index for inst records
  const Model* solo = nullptr;  // the solo record (lights/colours live in section.solo's pools)
};

// In the order the runtime applies them: per sub-chunk, solo records then inst records.
std::vector<ExpandedModel> expand_section(const PackSection& section, const PrototypeList* prototypes);

}  // namespace sceneria::eu7b
