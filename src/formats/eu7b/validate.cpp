#include "formats/eu7b/validate.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"

namespace sceneria::eu7b {

std::vector<Problem> validate(const Module& m) {
  std::vector<Problem> out = m.problems;
  auto add = [&](std::uint64_t at, std::string message) { out.push_back({at, std::move(message)}); };
  const std::uint32_t v = m.version();

  std::size_t dynamics = 0;
  for (const Chunk& c : m.chunks) {
    if (const auto* d = std::get_if<RecordList<Dynamic>>(&c.data)) dynamics += d->records.size();
    const bool needs_v7 = c.id == chunk::PIDX || c.id == chunk::PACK;
    if ((needs_v7 && v < 7) || (c.id == chunk::PROT && v < 8))
      add(c.offset, fmt::format("chunk {} at {} appears in a version {} module (it exists from version {})",
                                chunk_name(c.id), hex_offset(c.offset), v, c.id == chunk::PROT ? 8 : 7));
    if (const auto* t = std::get_if<Terrain>(&c.data)) {
      for (std::size_t i = 0; i < t->batches.size(); ++i)
        if (t->batches[i].vertices.size() % 3)
          add(c.offset, fmt::format("chunk TERR at {}: batch {} has {} vertices, not a multiple of 3",
                                    hex_offset(c.offset), i, t->batches[i].vertices.size()));
    }
  }
  for (const Chunk& c : m.chunks) {
    const auto* trainsets = std::get_if<std::vector<Trainset>>(&c.data);
    if (!trainsets) continue;
    for (std::size_t i = 0; i < trainsets->size(); ++i)
      for (std::uint32_t vehicle : (*trainsets)[i].vehicles)
        if (vehicle >= dynamics)
          add(c.offset, fmt::format("chunk TRSE at {}: trainset {} refers to vehicle {} but DYNM has {}",
                                    hex_offset(c.offset), i, vehicle, dynamics));
  }

  const PackChunk* pack = m.pack();
  const std::vector<PidxEntry>* pidx = m.pidx();
  // One section against its PIDX entry and its own lists.
  const auto check = [&](const PidxEntry& e, const PackSection& s) {
    const std::uint64_t at = pack->payload_offset + s.offset;
    if (s.model_count() != e.model_count)
      add(at, fmt::format("section ({}, {}) holds {} models but PIDX says {}", e.row, e.col, s.model_count(), e.model_count));
    if (s.format != SectionFormat::v13) return;
    for (std::size_t i = 0; i < s.solo.models.size(); ++i) {
      const Model& mo = s.solo.models[i];
      if (mo.model_file != kNoIndex && mo.model_file >= s.meshes.size())
        add(at, fmt::format("section ({}, {}) model {}: mesh index {} outside UMES ({})", e.row, e.col, i, mo.model_file,
                            s.meshes.size()));
      if (mo.texture != kNoIndex && mo.texture >= s.textures.size())
        add(at, fmt::format("section ({}, {}) model {}: texture index {} outside UTEX ({})", e.row, e.col, i, mo.texture,
                            s.textures.size()));
      if (mo.cell > 15) add(at, fmt::format("section ({}, {}) model {}: cell {} outside the 4 x 4 grid", e.row, e.col, i, mo.cell));
    }
    for (std::size_t i = 0; i < s.inst.size(); ++i)
      if (s.inst[i].cell > 15)
        add(at, fmt::format("section ({}, {}) instance {}: cell {} outside the 4 x 4 grid", e.row, e.col, i, s.inst[i].cell));
  };
  if (pidx) {
    std::uint64_t pidx_at = 0;
    for (const Chunk& c : m.chunks)
      if (c.id == chunk::PIDX) pidx_at = c.offset;
    std::set<std::pair<unsigned, unsigned>> seen;
    for (const PidxEntry& e : *pidx) {
      if (!seen.insert({e.row, e.col}).second)
        add(pidx_at, fmt::format("PIDX lists section ({}, {}) twice", e.row, e.col));
      if (e.row >= 500 || e.col >= 500)
        add(pidx_at, fmt::format("PIDX section ({}, {}) is outside the 500 x 500 grid", e.row, e.col));
    }
    if (pack && pack->decoded) {
      std::map<std::uint64_t, const PackSection*> at_offset;
      for (const PackSection& s : pack->sections) at_offset.emplace(s.offset, &s);
      for (const PidxEntry& e : *pidx)
        if (auto it = at_offset.find(e.pack_offset); it != at_offset.end()) check(e, *it->second);
    } else if (pack && pack->loaded) {
      // Not decoded: each section decoded, checked and let go in turn (a module of millions of
      // models is validated in a few MB). Every PIDX entry of a shared section is checked.
      std::vector<std::uint8_t> prefix;
      PackCursor cursor(m, prefix, out);
      for (;;) {
        auto section = cursor.next();
        if (!section) {
          add(section.error().offset, section.error().message);
          break;
        }
        if (!*section) break;
        const auto& entries = cursor.entries();  // by PACK offset
        auto it = std::lower_bound(entries.begin(), entries.end(), (*section)->offset,
                                   [](const PidxEntry* e, std::uint64_t offset) { return e->pack_offset < offset; });
        for (; it != entries.end() && (*it)->pack_offset == (*section)->offset; ++it) check(**it, **section);
      }
    }
  }
  if (pack && !pidx && pack->payload_size > 0)
    add(pack->payload_offset, "PACK has a payload but there is no PIDX to index it");
  std::stable_sort(out.begin(), out.end(), [](const Problem& a, const Problem& b) { return a.offset < b.offset; });
  return out;
}

}  // namespace sceneria::eu7b
