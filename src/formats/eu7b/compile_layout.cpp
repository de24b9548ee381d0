#include "formats/eu7b/compile_layout.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "formats/eu7b/convert.hpp"
#include "formats/maszyna/section_grid.hpp"

namespace sceneria::eu7b {

int written_group(const Track& t) {
  if (t.category == 2) return t.type == 4 ? 3 : 2;
  if (t.category == 1 && t.type != 0) return t.type == 2 ? 1 : 0;
  return 4;
}
int written_group(const Shape& s) { return s.subtype; }
int written_group(const Line& l) { return l.subtype; }

void renumber_as_written(Module& m, std::span<Model> pack_models) {
  StringTable old = std::move(m.strings);
  m.strings = StringTable();
  m.strings.reserve(old.size(), old.byte_size());
  std::vector<Sid> renumbered(old.size(), kNoString);
  const auto fix = [&](Sid& s) {
    if (s == kNoString || s >= old.size()) return;
    if (renumbered[s] == kNoString) {
      renumbered[s] = static_cast<Sid>(m.strings.size());
      m.strings.push_back(old[s]);
    }
    s = renumbered[s];
  };
  const auto in_pack_run = [](const Chunk& c) { return c.id == chunk::PROT || c.id == chunk::PACK; };
  for (Chunk& c : m.chunks)
    if (!in_pack_run(c)) each_sid(c, fix);
  for (Model& r : pack_models) each_sid(r, fix);
  for (Chunk& c : m.chunks)
    if (in_pack_run(c)) each_sid(c, fix);
  for (Chunk& c : m.chunks)
    if (auto* strs = std::get_if<StringsChunk>(&c.data)) *strs = StringsChunk{0, static_cast<std::uint32_t>(m.strings.size())};
}

namespace {

// A composed PACK model as a record of the root (its strings in the root's table, its lights in
// `pool`'s), with what the writer keys and sorts it by.
std::pair<Model, ConvertOptions::Exact> pack_record(const PackModel& p, const std::function<Sid(std::string_view)>& intern, ModelList& pool) {
  Model m;
  if (!p.name.empty()) {
    m.node.flags |= node_flag::name;
    m.node.name = intern(p.name);
  }
  const double rmin_sq = p.range_min * p.range_min;
  const double rmax_sq = p.range_max >= 0 ? p.range_max * p.range_max : std::numeric_limits<double>::max();
  if (rmin_sq != 0) {
    m.node.flags |= node_flag::range_min;
    m.node.range_sq_min = static_cast<float>(rmin_sq);
  }
  if (p.range_max >= 0) {
    m.node.flags |= node_flag::range_max;
    m.node.range_sq_max = static_cast<float>(rmax_sq);
  }
  if (p.group) {
    m.node.flags |= node_flag::group;
    m.node.group = p.group;
  }
  m.terrain = p.terrain ? 1 : 0;
  m.transition = p.transition ? 1 : 0;
  m.location = v3(p.location);
  m.angles = v3(p.angles);
  m.scale = v3(p.scale);
  m.model_file = intern(p.file);
  m.texture = intern(p.texture);
  m.lights = {static_cast<std::uint32_t>(pool.light_states.size()), static_cast<std::uint32_t>(p.lights.size())};
  pool.light_states.insert(pool.light_states.end(), p.lights.begin(), p.lights.end());
  m.colors = {static_cast<std::uint32_t>(pool.light_colors.size()), static_cast<std::uint32_t>(p.colors.size())};
  pool.light_colors.insert(pool.light_colors.end(), p.colors.begin(), p.colors.end());
  return {m, {p.location.x, p.location.z, rmin_sq, rmax_sq}};
}

}  // namespace

RootPack lay_out_root_pack(PackModels models, const std::function<Sid(std::string_view)>& intern, const StringTable& strings) {
  ModelList pool;
  std::vector<ConvertOptions::Exact> keys;
  const std::size_t count = models.size();
  pool.models.reserve(count);
  keys.reserve(count);
  // Each step's records are let go once the next step's are made: a million models' worth each
  // (here a block at a time, as the records grow).
  models.take_each([&](PackModel&& p) {
    auto [record, key] = pack_record(p, intern, pool);
    pool.models.push_back(std::move(record));
    keys.push_back(key);
  });
  // The writer clamps a model outside the 500 x 500 grid into its edge sections.
  const auto clamped = [](int cell) { return static_cast<std::uint16_t>(std::clamp(cell, 0, maszyna::kSectionGrid.cells - 1)); };
  std::map<std::pair<std::uint16_t, std::uint16_t>, std::vector<std::size_t>> sections;
  // By the unrounded location: a model at x.99999 whose f32 is x+1 stays in the section of x.
  for (std::size_t i = 0; i < pool.models.size(); ++i)
    sections[{clamped(maszyna::kSectionGrid.row_of(keys[i].z)), clamped(maszyna::kSectionGrid.col_of(keys[i].x))}].push_back(i);

  RootPack out;
  std::vector<std::vector<ConvertOptions::Exact>> exact;
  Module flat;
  flat.container.version = 7;
  flat.strings = strings;
  std::vector<PidxEntry> pidx;
  PackChunk pack;
  pack.loaded = pack.decoded = true;
  for (const auto& [key, members] : sections) {
    exact.emplace_back().reserve(members.size());
    PackSection s;
    s.offset = pidx.size();  // a placeholder: the writer lays the sections out
    s.solo.models.reserve(members.size());
    for (std::size_t i : members) {
      exact.back().push_back(keys[i]);
      Model mo = pool.models[i];
      const auto span = [](auto& to, const auto& from, Span32 sp) {
        const Span32 at{static_cast<std::uint32_t>(to.size()), sp.count};
        to.insert(to.end(), from.begin() + sp.first, from.begin() + sp.first + sp.count);
        return at;
      };
      mo.lights = span(s.solo.light_states, pool.light_states, mo.lights);
      mo.colors = span(s.solo.light_colors, pool.light_colors, mo.colors);
      mo.node.flags &= static_cast<std::uint8_t>(~node_flag::transform);
      mo.node.transform = kNoTransform;
      s.solo.models.push_back(mo);
    }
    pidx.push_back({key.first, key.second, static_cast<std::uint32_t>(members.size()), s.offset});
    pack.sections.push_back(std::move(s));
  }
  pool = ModelList();
  std::vector<ConvertOptions::Exact>().swap(keys);
  sections.clear();
  flat.chunks.push_back(Chunk{chunk::PIDX, 0, std::move(pidx), {}, false});
  flat.chunks.push_back(Chunk{chunk::PACK, 0, std::move(pack), {}, false});
  auto built = convert_module(flat, {.version = 9, .pack_format = SectionFormat::v13, .keep_pack_format = false,
                                     .allow_lossy = true, .losses = &out.warnings, .exact = &exact});
  // The models in PIDX order, taken from the flat module now that it has been converted (made
  // before, they would be one copy more at the conversion's peak). Their strings are what the
  // renumbering reads; the spans and transform the flat records changed are not.
  out.models.reserve(count);
  for (const PackSection& s : std::get<PackChunk>(flat.chunks.back().data).sections)
    out.models.insert(out.models.end(), s.solo.models.begin(), s.solo.models.end());
  if (!built) {
    out.warnings.push_back(fmt::format("the PACK models could not be laid out: {}", built.error().describe()));
    return out;
  }
  for (Chunk& c : built->chunks)
    if (c.id == chunk::PIDX || c.id == chunk::PROT || c.id == chunk::PACK) out.run.push_back(std::move(c));
  return out;
}

}  // namespace sceneria::eu7b
