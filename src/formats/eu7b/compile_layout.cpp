#include "formats/eu7b/compile_layout.hpp"

#include <algorithm>
#include <array>
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

void renumber_as_written(Module& m, std::span<PackSection> pack_models) {
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
  for (PackSection& s : pack_models)
    for (Model& r : s.solo.models) each_sid(r, fix);
  for (Chunk& c : m.chunks)
    if (in_pack_run(c)) each_sid(c, fix);
  for (Chunk& c : m.chunks)
    if (auto* strs = std::get_if<StringsChunk>(&c.data)) *strs = StringsChunk{0, static_cast<std::uint32_t>(m.strings.size())};
}

namespace {

// A composed PACK model as a record of the root (its name in the root's table, model path and
// skin given as ids there, its lights in `pool`'s), with what the writer keys and sorts it by.
std::pair<Model, ConvertOptions::Exact> pack_record(const PackedModel& p, Sid name, Sid file, Sid texture, std::span<const float> lights,
                                                    std::span<const std::uint32_t> colors, ModelList& pool) {
  Model m;
  if (name != kNoString) {
    m.node.flags |= node_flag::name;
    m.node.name = name;
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
  m.angles = p.angles;
  m.scale = p.scale;
  m.model_file = file;
  m.texture = texture;
  m.lights = {static_cast<std::uint32_t>(pool.light_states.size()), static_cast<std::uint32_t>(lights.size())};
  pool.light_states.insert(pool.light_states.end(), lights.begin(), lights.end());
  m.colors = {static_cast<std::uint32_t>(pool.light_colors.size()), static_cast<std::uint32_t>(colors.size())};
  pool.light_colors.insert(pool.light_colors.end(), colors.begin(), colors.end());
  return {m, {p.location.x, p.location.z, rmin_sq, rmax_sq}};
}

}  // namespace

RootPack lay_out_root_pack(PackModels models, StringTable& strings, StringIndex& index) {
  // Sized ahead: a million names grew it from a few hundred entries, a tenth of the compile.
  index.reserve(index.size() + models.size() + models.text().size());
  const auto intern = [&](std::string_view s, std::uint64_t hash) { return index.intern(strings, s, hash); };
  const auto ahead = [&](std::string_view s) { return index.prefetch(s); };
  // The writer clamps a model outside the 500 x 500 grid into its edge sections; it cuts by the
  // unrounded location (a model at x.99999 whose f32 is x+1 stays in the section of x).
  const auto clamped = [](int cell) { return static_cast<std::uint16_t>(std::clamp(cell, 0, maszyna::kSectionGrid.cells - 1)); };
  using Key = std::pair<std::uint16_t, std::uint16_t>;  // (row, col): PIDX order
  const auto key_of = [&](const glm::dvec3& at) {
    return Key{clamped(maszyna::kSectionGrid.row_of(at.z)), clamped(maszyna::kSectionGrid.col_of(at.x))};
  };
  // Counted first, so each model's record is made once, straight into its section's list, each
  // list its final size (a list of all of them cut up after was a million records more).
  std::map<Key, std::size_t> sections;
  models.each([&](const PackedModel& p, std::size_t, std::string_view) { ++sections[key_of(p.location)]; });
  PackChunk pack;
  pack.loaded = pack.decoded = true;
  std::vector<std::vector<ConvertOptions::Exact>> exact(sections.size());
  std::vector<PidxEntry> pidx;
  pidx.reserve(sections.size());
  pack.sections.reserve(sections.size());
  for (auto& [key, count] : sections) {
    PackSection& s = pack.sections.emplace_back();
    s.offset = pidx.size();  // a placeholder: the writer lays the sections out
    s.solo.models.reserve(count);
    exact[pidx.size()].reserve(count);
    pidx.push_back({key.first, key.second, static_cast<std::uint32_t>(count), s.offset});
    count = pidx.size() - 1;  // from here: the section's place in the lists
  }
  // The last section met: models in a file mostly follow each other within one.
  Key last_key{UINT16_MAX, UINT16_MAX};
  std::size_t last = 0;
  // Model paths and skins are interned once each, not once a model.
  std::vector<Sid> text_id(models.text().size(), kNoString);
  const auto text = [&](std::uint32_t i) { return text_id[i] != kNoString ? text_id[i] : (text_id[i] = index.intern(strings, models.text()[i])); };
  // Names are interned a few models ahead of where their slots are asked for.
  constexpr std::size_t kAhead = 8;
  std::array<std::uint64_t, kAhead> hashes{};
  const std::size_t count = models.size();
  for (std::size_t i = 0; i < kAhead && i < count; ++i) hashes[i] = ahead(models.name(i));
  models.take_each([&](const PackedModel& p, std::size_t i, std::string_view name) {
    const std::uint64_t hash = hashes[i % kAhead];
    if (i + kAhead < count) hashes[i % kAhead] = ahead(models.name(i + kAhead));
    const Key key = key_of(p.location);
    if (key != last_key) last = sections.find(key)->second, last_key = key;
    PackSection& s = pack.sections[last];
    // In the order they were always interned (name, path, skin): ids number the strings until the
    // renumbering, and the layout orders prototypes by them.
    const Sid named = name.empty() ? kNoString : intern(name, hash);
    const Sid file = text(p.file);
    const Sid texture = text(p.texture);
    auto [record, exact_of] = pack_record(p, named, file, texture, models.lights(p.lights), models.colors(p.colors), s.solo);
    record.node.flags &= static_cast<std::uint8_t>(~node_flag::transform);
    record.node.transform = kNoTransform;
    s.solo.models.push_back(record);
    exact[last].push_back(exact_of);
  });
  sections.clear();

  RootPack out;
  Module flat;
  flat.container.version = 7;
  flat.strings = strings;
  flat.chunks.push_back(Chunk{chunk::PIDX, 0, std::move(pidx), {}, false});
  flat.chunks.push_back(Chunk{chunk::PACK, 0, std::move(pack), {}, false});
  auto built = convert_module(flat, {.version = 9, .pack_format = SectionFormat::v13, .keep_pack_format = false,
                                     .allow_lossy = true, .losses = &out.warnings, .exact = &exact});
  // The flat sections' models are what the renumbering reads (their strings; the spans and
  // transform the flat records changed are not).
  out.sections = std::move(std::get<PackChunk>(flat.chunks.back().data).sections);
  if (!built) {
    out.warnings.push_back(fmt::format("the PACK models could not be laid out: {}", built.error().describe()));
    return out;
  }
  for (Chunk& c : built->chunks)
    if (c.id == chunk::PIDX || c.id == chunk::PROT || c.id == chunk::PACK) out.run.push_back(std::move(c));
  return out;
}

}  // namespace sceneria::eu7b
