#include "formats/eu7b/validate.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "formats/eu7b/pack.hpp"

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
      if (!pack || !pack->decoded) continue;
      for (const PackSection& s : pack->sections) {
        if (s.offset != e.pack_offset) continue;
        const std::uint64_t at = pack->payload_offset + s.offset;
        if (s.model_count() != e.model_count)
          add(at, fmt::format("section ({}, {}) holds {} models but PIDX says {}", e.row, e.col, s.model_count(),
                              e.model_count));
        for (std::size_t i = 0; i < s.solo.models.size(); ++i) {
          const Model& mo = s.solo.models[i];
          if (s.format != SectionFormat::v13) continue;
          if (mo.model_file != kNoIndex && mo.model_file >= s.meshes.size())
            add(at, fmt::format("section ({}, {}) model {}: mesh index {} outside UMES ({})", e.row, e.col, i,
                                mo.model_file, s.meshes.size()));
          if (mo.texture != kNoIndex && mo.texture >= s.textures.size())
            add(at, fmt::format("section ({}, {}) model {}: texture index {} outside UTEX ({})", e.row, e.col, i,
                                mo.texture, s.textures.size()));
          if (mo.cell > 15)
            add(at, fmt::format("section ({}, {}) model {}: cell {} outside the 4 x 4 grid", e.row, e.col, i, mo.cell));
        }
        if (s.format == SectionFormat::v13)
          for (std::size_t i = 0; i < s.inst.size(); ++i)
            if (s.inst[i].cell > 15)
              add(at, fmt::format("section ({}, {}) instance {}: cell {} outside the 4 x 4 grid", e.row, e.col, i,
                                  s.inst[i].cell));
      }
    }
  }
  if (pack && !pidx && pack->payload_size > 0)
    add(pack->payload_offset, "PACK has a payload but there is no PIDX to index it");
  std::stable_sort(out.begin(), out.end(), [](const Problem& a, const Problem& b) { return a.offset < b.offset; });
  return out;
}

}  // namespace sceneria::eu7b
