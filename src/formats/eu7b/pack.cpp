#include "formats/eu7b/pack.hpp"

#include <cstring>

#include <fmt/format.h>

#include "core/byte_reader.hpp"
#include "formats/eu7b/fields.hpp"

namespace sceneria::eu7b {

namespace {

std::uint32_t load_u32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

bool has_chunk_table(SectionFormat f) { return f >= SectionFormat::chnk; }
bool has_inst_in_chunks(SectionFormat f) { return f >= SectionFormat::prot_inst; }
bool is_v13(SectionFormat f) { return f == SectionFormat::v13; }
std::size_t chunk_entry_size(SectionFormat f) { return has_inst_in_chunks(f) ? 12 : 8; }

std::string context(std::uint64_t file_offset) { return fmt::format("PACK section at {}", hex_offset(file_offset)); }

// Appends the records of one sub-chunk (or of a whole un-chunked section) to the section's lists;
// all sub-chunks share the section's pools.
void read_records(BinaryIn& a, SectionFormat f, std::uint64_t solo, std::uint64_t inst, PackSection& s) {
  const bool v13 = is_v13(f);
  std::vector<Model> models;
  a.list_n("models", models, solo, v13 ? kMinModelV13 : kMinModel, [&](Model& m) { fields(a, m, s.solo, v13); });
  s.solo.models.insert(s.solo.models.end(), models.begin(), models.end());
  a.fixed_list_n("instances", s.inst, inst, kInstanceSize + (v13 ? 1 : 0), [&](FixedIn& in, Instance& i) { fields(in, i, v13); });
}

// Bytes of a decoded header: format byte, totals, the lists and the sub-chunk table.
std::size_t header_size(const PackSection& s) {
  if (s.format == SectionFormat::flat) return 0;
  std::size_t n = 9;
  if (s.format >= SectionFormat::umes) n += 4 + 4 * s.meshes.size();
  if (s.format >= SectionFormat::utex) n += 4 + 4 * s.textures.size();
  if (has_chunk_table(s.format)) n += 4 + chunk_entry_size(s.format) * s.chunks.size();
  return n;
}

void keep_trailing(std::span<const std::uint8_t> bytes, std::size_t from, std::uint64_t file_offset,
                   const SectionContext& ctx, PackSection& s) {
  if (from >= bytes.size()) return;
  if (ctx.problems)
    ctx.problems->push_back({file_offset + from, fmt::format("{}: {} bytes after its {} models", context(file_offset),
                                                            bytes.size() - from, s.model_count())});
  s.trailing.assign(bytes.begin() + static_cast<std::ptrdiff_t>(from), bytes.end());
}

Error check_protos(const PackSection& s, std::size_t from, const SectionContext& ctx, std::uint64_t file_offset) {
  for (std::size_t i = from; i < s.inst.size(); ++i) {
    if (s.inst[i].proto >= ctx.prototype_count) {
      return Error{Errc::bad_value, file_offset,
                   fmt::format("{}: instance {} refers to prototype {} but PROT has {}", context(file_offset), i,
                               s.inst[i].proto, ctx.prototype_count)};
    }
  }
  return {};
}

}  // namespace

std::string_view section_format_name(SectionFormat f) {
  switch (f) {
    case SectionFormat::flat: return "flat";
    case SectionFormat::v8: return "1";
    case SectionFormat::umes: return "2";
    case SectionFormat::chnk: return "3";
    case SectionFormat::utex: return "4";
    case SectionFormat::prot_inst: return "5";
    case SectionFormat::v13: return "6";
  }
  return "?";
}

bool parse_section_format(std::string_view text, SectionFormat& out) {
  for (int i = 0; i <= 6; ++i) {
    const auto f = static_cast<SectionFormat>(i);
    if (text == section_format_name(f)) {
      out = f;
      return true;
    }
  }
  return false;
}

SectionFormat detect_section_format(std::span<const std::uint8_t> bytes, const SectionContext& ctx) {
  if (bytes.size() < 9) return SectionFormat::flat;
  const std::uint8_t b = bytes[0];
  const std::uint64_t solo = load_u32(bytes.data() + 1);
  const std::uint64_t inst = load_u32(bytes.data() + 5);
  const bool totals_match = solo + inst == ctx.model_count;
  const bool have_protos = ctx.prototype_count > 0;
  switch (b) {
    case 6:
    case 5: return totals_match && (inst == 0 || have_protos) ? static_cast<SectionFormat>(b) : SectionFormat::flat;
    case 4:
    case 3:
    case 2: return totals_match ? static_cast<SectionFormat>(b) : SectionFormat::flat;
    case 1: return have_protos && totals_match ? SectionFormat::v8 : SectionFormat::flat;
    default: return SectionFormat::flat;
  }
}

Result<PackSection> decode_section_header(std::span<const std::uint8_t> bytes, std::uint64_t file_offset,
                                          const SectionContext& ctx) {
  PackSection s;
  s.format = detect_section_format(bytes, ctx);
  if (s.format == SectionFormat::flat) {
    s.solo_count = ctx.model_count;
    return s;
  }
  ByteReader r(bytes, file_offset, context(file_offset));
  BinaryIn a(r, ctx.string_count, ctx.problems);
  r.skip(1, "format byte");
  s.solo_count = r.u32();
  s.inst_count = r.u32();
  if (s.format >= SectionFormat::umes) a.list("meshes", s.meshes, 4, [&](Sid& id) { a.sid("UMES string id", id); });
  if (s.format >= SectionFormat::utex) a.list("textures", s.textures, 4, [&](Sid& id) { a.sid("UTEX string id", id); });
  if (has_chunk_table(s.format)) {
    const bool with_inst = has_inst_in_chunks(s.format);
    a.list("sub-chunks", s.chunks, chunk_entry_size(s.format), [&](SectionChunkEntry& e) {
      e.solo = r.u32();
      if (with_inst) e.inst = r.u32();
      e.offset = r.u32();
    });
  }
  if (!r.ok()) return r.error();
  if (!has_chunk_table(s.format)) return s;

  // Checks the engine does not make, without which sub-chunks cannot be located safely.
  const std::string where = context(file_offset);
  if (s.chunks.empty() && s.solo_count + std::uint64_t{s.inst_count} > 0)
    return Error{Errc::bad_count, file_offset, fmt::format("{}: {} models but no sub-chunk entries", where,
                                                           s.solo_count + std::uint64_t{s.inst_count})};
  std::uint64_t solo = 0, inst = 0;
  std::uint64_t previous = 0;
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    const SectionChunkEntry& e = s.chunks[i];
    const std::uint64_t expected_first = r.position();
    if (i == 0 && e.offset != expected_first)
      return Error{Errc::bad_value, file_offset,
                   fmt::format("{}: sub-chunk 0 starts at {} but the header ends at {}", where, e.offset, expected_first)};
    if (i > 0 && e.offset <= previous)
      return Error{Errc::bad_value, file_offset,
                   fmt::format("{}: sub-chunk {} offset {} does not follow {}", where, i, e.offset, previous)};
    if (e.offset > bytes.size())
      return Error{Errc::truncated, file_offset + e.offset,
                   fmt::format("{}: sub-chunk {} offset {} is past the section's {} bytes", where, i, e.offset,
                               bytes.size())};
    previous = e.offset;
    solo += e.solo;
    inst += e.inst;
  }
  if (solo != s.solo_count || inst != s.inst_count)
    return Error{Errc::bad_count, file_offset,
                 fmt::format("{}: sub-chunks hold {} solo + {} inst models but the header says {} + {}", where, solo,
                             inst, s.solo_count, s.inst_count)};
  return s;
}

Error decode_section_chunk(std::span<const std::uint8_t> bytes, std::uint64_t file_offset, const PackSection& header,
                           std::size_t chunk_index, const SectionContext& ctx, PackSection& out) {
  if (!has_chunk_table(header.format) || chunk_index >= header.chunks.size())
    return Error{Errc::bad_value, file_offset,
                 fmt::format("{}: no sub-chunk {} (format {}, {} sub-chunks)", context(file_offset), chunk_index,
                             section_format_name(header.format), header.chunks.size())};
  const SectionChunkEntry& e = header.chunks[chunk_index];
  const std::uint64_t end = chunk_index + 1 < header.chunks.size() ? header.chunks[chunk_index + 1].offset : bytes.size();
  ByteReader r(bytes.subspan(e.offset, static_cast<std::size_t>(end - e.offset)), file_offset + e.offset,
               fmt::format("{} sub-chunk {}", context(file_offset), chunk_index));
  BinaryIn a(r, ctx.string_count, ctx.problems);
  const std::size_t first_inst = out.inst.size();
  read_records(a, header.format, e.solo, e.inst, out);
  if (!r.ok()) return r.error();
  if (!r.at_end())
    return Error{Errc::bad_value, r.offset(),
                 fmt::format("{} sub-chunk {}: {} bytes after its {} records", context(file_offset), chunk_index,
                             r.remaining(), e.solo + e.inst)};
  return check_protos(out, first_inst, ctx, file_offset);
}

Result<PackSection> decode_section(std::span<const std::uint8_t> bytes, std::uint64_t file_offset,
                                   const SectionContext& ctx) {
  auto header = decode_section_header(bytes, file_offset, ctx);
  if (!header) return header.error();
  PackSection s = std::move(header).value();
  if (has_chunk_table(s.format)) {
    for (std::size_t i = 0; i < s.chunks.size(); ++i)
      if (Error e = decode_section_chunk(bytes, file_offset, s, i, ctx, s)) return e;
    // The last sub-chunk runs to the section's end; with none, whatever follows the header stays.
    if (s.chunks.empty()) keep_trailing(bytes, header_size(s), file_offset, ctx, s);
    return s;
  }
  // Flat, 1 and 2: solo records then inst records, no sub-chunks.
  ByteReader r(bytes, file_offset, context(file_offset));
  BinaryIn a(r, ctx.string_count, ctx.problems);
  r.skip(header_size(s), "header");  // decoded above
  read_records(a, s.format, s.solo_count, s.inst_count, s);
  if (!r.ok()) return r.error();
  if (Error e = check_protos(s, 0, ctx, file_offset)) return e;
  keep_trailing(bytes, r.position(), file_offset, ctx, s);
  return s;
}

std::string section_counts_problem(const PackSection& s) {
  if (!has_chunk_table(s.format)) return {};
  std::uint64_t solo = 0, inst = 0;
  for (const SectionChunkEntry& e : s.chunks) solo += e.solo, inst += e.inst;
  if (solo != s.solo.models.size())
    return fmt::format("the sub-chunks hold {} solo models but \"solo\" has {}", solo, s.solo.models.size());
  if (inst != s.inst.size()) return fmt::format("the sub-chunks hold {} instances but \"inst\" has {}", inst, s.inst.size());
  return {};
}

std::vector<std::uint8_t> encode_section(const PackSection& section) {
  PackSection& s = const_cast<PackSection&>(section);  // the writer only reads through it
  const bool v13 = is_v13(s.format);
  std::vector<std::uint8_t> out;
  BinaryOut a(out);
  auto records = [&](std::size_t solo_from, std::size_t solo_n, std::size_t inst_from, std::size_t inst_n) {
    for (std::size_t i = 0; i < solo_n; ++i) fields(a, s.solo.models[solo_from + i], s.solo, v13);
    for (std::size_t i = 0; i < inst_n; ++i) fields(a, s.inst[inst_from + i], v13);
  };
  if (s.format == SectionFormat::flat) {
    records(0, s.solo.models.size(), 0, 0);
    out.insert(out.end(), s.trailing.begin(), s.trailing.end());
    return out;
  }
  const auto format = static_cast<std::uint8_t>(s.format);
  a.u8("format", format);
  a.u32("solo", s.solo_count);
  a.u32("inst", s.inst_count);
  if (s.format >= SectionFormat::umes) a.list("meshes", s.meshes, 4, [&](Sid& id) { a.sid("", id); });
  if (s.format >= SectionFormat::utex) a.list("textures", s.textures, 4, [&](Sid& id) { a.sid("", id); });
  if (!has_chunk_table(s.format) || s.chunks.empty()) {
    if (has_chunk_table(s.format)) {
      const std::uint32_t none = 0;
      a.u32("chunk count", none);
    } else {
      records(0, s.solo.models.size(), 0, s.inst.size());
    }
    out.insert(out.end(), s.trailing.begin(), s.trailing.end());
    return out;
  }
  // Sub-chunk offsets follow from the encoded sizes: header first, then each chunk's records.
  std::vector<std::vector<std::uint8_t>> bodies(s.chunks.size());
  std::size_t solo_at = 0, inst_at = 0;
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    BinaryOut body(bodies[i]);
    // Never past the lists, whatever the table says (section_counts_problem tells).
    for (std::uint32_t k = 0; k < s.chunks[i].solo && solo_at + k < s.solo.models.size(); ++k)
      fields(body, s.solo.models[solo_at + k], s.solo, v13);
    for (std::uint32_t k = 0; k < s.chunks[i].inst && inst_at + k < s.inst.size(); ++k) fields(body, s.inst[inst_at + k], v13);
    solo_at += s.chunks[i].solo;
    inst_at += s.chunks[i].inst;
  }
  const bool with_inst = has_inst_in_chunks(s.format);
  std::uint64_t offset = out.size() + 4 + chunk_entry_size(s.format) * s.chunks.size();
  const auto n = static_cast<std::uint32_t>(s.chunks.size());
  a.u32("chunk count", n);
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    a.u32("solo", s.chunks[i].solo);
    if (with_inst) a.u32("inst", s.chunks[i].inst);
    const auto at = static_cast<std::uint32_t>(offset);
    a.u32("offset", at);
    offset += bodies[i].size();
  }
  for (const auto& body : bodies) out.insert(out.end(), body.begin(), body.end());
  return out;
}

std::vector<ExpandedModel> expand_section(const PackSection& s, const PrototypeList* prototypes) {
  std::vector<ExpandedModel> out;
  out.reserve(s.model_count());
  const bool v13 = is_v13(s.format);
  auto add_solo = [&](const Model& m) {
    ExpandedModel e;
    e.name = (m.node.flags & node_flag::name) ? m.node.name : kNoString;
    if (v13) {
      e.mesh_idx = static_cast<std::uint16_t>(m.model_file);
      e.tex_idx = static_cast<std::uint16_t>(m.texture);
      e.file = e.mesh_idx < s.meshes.size() ? s.meshes[e.mesh_idx] : kNoString;
      e.texture = e.tex_idx < s.textures.size() ? s.textures[e.tex_idx] : kNoString;
    } else {
      e.file = m.model_file;
      e.texture = m.texture;
    }
    e.terrain = m.terrain;
    e.transition = m.transition;
    e.range_sq_min = m.node.range_sq_min;
    e.range_sq_max = m.node.range_sq_max;
    e.location = m.location;
    e.angles = m.angles;
    e.scale = m.scale;
    e.cell = m.cell;
    e.solo = &m;
    out.push_back(e);
  };
  auto add_inst = [&](const Instance& i) {
    ExpandedModel e;
    e.name = i.name;
    e.proto = static_cast<std::int32_t>(i.proto);
    if (prototypes && i.proto < prototypes->prototypes.size()) {
      const Prototype& p = prototypes->prototypes[i.proto];
      e.file = p.model_file;
      e.texture = p.texture;
      e.flags = p.pack_flags;
      e.terrain = p.terrain;
      e.transition = p.transition;
      e.range_sq_min = p.node.range_sq_min;
      e.range_sq_max = p.node.range_sq_max;
    }
    e.location = i.location;
    e.angles = i.angles;
    e.scale = i.scale;
    e.cell = i.cell;
    out.push_back(e);
  };
  if (!has_chunk_table(s.format)) {
    for (const Model& m : s.solo.models) add_solo(m);
    for (const Instance& i : s.inst) add_inst(i);
    return out;
  }
  std::size_t solo_at = 0, inst_at = 0;
  for (const SectionChunkEntry& c : s.chunks) {
    for (std::uint32_t k = 0; k < c.solo && solo_at < s.solo.models.size(); ++k) add_solo(s.solo.models[solo_at++]);
    for (std::uint32_t k = 0; k < c.inst && inst_at < s.inst.size(); ++k) add_inst(s.inst[inst_at++]);
  }
  return out;
}

}  // namespace sceneria::eu7b
