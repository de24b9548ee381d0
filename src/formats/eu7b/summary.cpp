#include "formats/eu7b/summary.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"

namespace sceneria::eu7b {

std::optional<std::uint64_t> record_count(const Chunk& chunk) {
  return std::visit(
      [&](const auto& d) -> std::optional<std::uint64_t> {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, StringsChunk>) return d.count;
        else if constexpr (std::is_same_v<T, ModelList>) return d.models.size();
        else if constexpr (std::is_same_v<T, PrototypeList>) return d.prototypes.size();
        else if constexpr (std::is_same_v<T, Terrain>) return d.batches.size() + d.legacy.size() / 3;
        else if constexpr (std::is_same_v<T, std::uint32_t>) return d;  // FINT
        else if constexpr (std::is_same_v<T, PackChunk>) {
          if (!d.decoded) return std::nullopt;
          std::uint64_t n = 0;
          for (const PackSection& s : d.sections) n += s.model_count();
          return n;
        } else if constexpr (std::is_same_v<T, OpaqueChunk> || std::is_same_v<T, Placement>) return std::nullopt;
        else if constexpr (requires { d.records; }) return d.records.size();
        else return d.size();
      },
      chunk.data);
}

std::uint64_t pack_model_count(const Module& module) {
  const PackChunk* pack = module.pack();
  std::uint64_t n = 0;
  if (pack && pack->decoded) {
    for (const PackSection& s : pack->sections) n += s.model_count();
  } else if (const auto* pidx = module.pidx()) {
    // Sections not decoded (a streamed header): the index's claims, which decoding checks later.
    for (const PidxEntry& e : *pidx) n += e.model_count;
  }
  return n;
}

std::string headline(const Module& module) {
  return fmt::format("EU7B v{}, {} chunks, {} PACK models", module.version(), module.chunks.size(), pack_model_count(module));
}

nlohmann::ordered_json summary_json(const Module& module, std::size_t string_sample) {
  nlohmann::ordered_json j;
  j["format"] = "eu7b";
  j["version"] = module.version();
  j["size"] = module.container.file_size;
  auto& chunks = j["chunks"] = nlohmann::ordered_json::array();
  // Counts per chunk kind, summed over repeated chunks as the reference reader appends them.
  std::map<std::uint32_t, std::uint64_t> per_id;
  for (const Chunk& c : module.chunks) {
    nlohmann::ordered_json row;
    row["id"] = chunk_name(c.id);
    row["offset"] = c.offset;
    for (const ChunkInfo& info : module.container.chunks)
      if (info.offset == c.offset) row["size"] = info.size;
    if (auto n = record_count(c)) {
      row["records"] = *n;
      per_id[c.id] += *n;
    }
    if (!is_known_chunk(c.id)) row["known"] = false;
    chunks.push_back(std::move(row));
  }
  // The format-blind view of the same table, for the page's structure panel.
  // (ordered_json keeps its keys in a vector: references into `j` die when a key is added.)
  auto structure = nlohmann::ordered_json::array();
  for (const auto& c : j["chunks"]) {
    nlohmann::ordered_json e{{"name", c["id"]}, {"offset", c["offset"]}, {"size", c.value("size", std::uint64_t{0})}};
    if (c.contains("records")) e["count"] = c["records"];
    if (c.contains("known")) e["note"] = "unknown chunk: listed and skipped";
    structure.push_back(std::move(e));
  }
  j["structureName"] = "chunks";
  j["structure"] = std::move(structure);
  j["strings"] = module.string_count();

  auto count = [&](std::uint32_t id) { return per_id.count(id) ? per_id[id] : 0; };
  nlohmann::ordered_json counts;
  counts["strings"] = module.string_count();
  counts["includes"] = count(chunk::INCL);
  counts["tracks"] = count(chunk::TRAK);
  counts["traction"] = count(chunk::TRAC);
  counts["power"] = count(chunk::PWRS);
  counts["shapes"] = count(chunk::MESH);
  counts["terrain_shapes"] = count(chunk::TERR);
  counts["lines"] = count(chunk::LINE);
  counts["models"] = count(chunk::MODL);
  counts["memcells"] = count(chunk::MEMC);
  counts["launchers"] = count(chunk::LAUN);
  counts["dynamics"] = count(chunk::DYNM);
  counts["sounds"] = count(chunk::SOND);
  counts["trainsets"] = count(chunk::TRSE);
  counts["events"] = count(chunk::EVNT);
  counts["firstInit"] = count(chunk::FINT);
  counts["prototypes"] = count(chunk::PROT);
  counts["pidx_entries"] = count(chunk::PIDX);
  counts["pack_models"] = pack_model_count(module);
  j["counts"] = std::move(counts);

  auto& sections = j["sections"] = nlohmann::ordered_json::array();
  if (const auto* pidx = module.pidx()) {
    const PackChunk* pack = module.pack();
    for (const PidxEntry& e : *pidx) {
      nlohmann::ordered_json row;
      row["row"] = e.row;
      row["col"] = e.col;
      row["models"] = e.model_count;
      if (pack && pack->decoded) {
        for (const PackSection& s : pack->sections)
          if (s.offset == e.pack_offset) row["format"] = std::string(section_format_name(s.format));
      }
      sections.push_back(std::move(row));
    }
  }

  if (string_sample > 0) {
    auto& sample = j["stringSample"] = nlohmann::ordered_json::array();
    const std::size_t n = std::min(string_sample, module.strings.size());
    for (std::size_t i = 0; i < n; ++i) sample.push_back(display_text(module.strings[i]));
  }
  return j;
}

}  // namespace sceneria::eu7b
