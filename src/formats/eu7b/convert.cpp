#include "formats/eu7b/convert.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/writer.hpp"

namespace sceneria::eu7b {

namespace {

constexpr double kSectionSize = 1000.0;
constexpr int kGridCentre = 250;

std::string_view text(const Module& m, Sid id) {
  return id == kNoString || id >= m.strings.size() ? std::string_view() : m.strings[id];
}

// UMES: loadable mesh paths (notes §6.3).
bool mesh_loadable(std::string_view path) { return !path.empty() && !istarts_with(path, "notload"); }

// UTEX filter (notes §6.3).
bool texture_listed(std::string_view t) {
  if (t.empty() || iequals(t, "none") || istarts_with(t, "none|")) return false;
  if (istarts_with(t, "*") || istarts_with(t, "make:") || istarts_with(t, "@")) return false;
  if (iends_with(t, ".e3d") || iends_with(t, ".t3d") || iends_with(t, "/none") || iends_with(t, "/")) return false;
  if (t.find("tr/none") != std::string_view::npos || t.find('#') != std::string_view::npos) return false;
  return true;
}
// "none" and empty both mean "no replacement skin", so dropping them loses nothing.
bool texture_is_default(std::string_view t) { return t.empty() || iequals(t, "none"); }

template <class T>
Span32 append(std::vector<T>& pool, const std::vector<T>& values) {
  const Span32 span{static_cast<std::uint32_t>(pool.size()), static_cast<std::uint32_t>(values.size())};
  pool.insert(pool.end(), values.begin(), values.end());
  return span;
}

template <class T>
std::vector<T> slice(const std::vector<T>& pool, Span32 span) {
  return {pool.begin() + span.first, pool.begin() + span.first + span.count};
}

// One placement with everything a record of any format can hold.
struct Placement {
  SlimNode node;  // transform cleared (PACK never stores one)
  std::uint8_t terrain = 0, transition = 0;
  Vec3f location, angles, scale;
  Sid file = kNoString, texture = kNoString;
  std::vector<float> lights;
  std::vector<std::uint32_t> colors;
  std::int32_t proto = -1;  // the source's prototype for an inst record, -1 for a solo record
  // Unrounded where a compile gave them (ConvertOptions::exact), else the record's floats.
  double x = 0, z = 0, range_sq_min = 0, range_sq_max = 0;
};

struct SectionSource {
  PidxEntry entry;
  std::vector<Placement> placements;
};

// A section's placements, expanded, with what a compile knew of them (ConvertOptions::exact).
SectionSource gather_one(const Module& m, const PidxEntry& e, const PackSection& s, const std::vector<ConvertOptions::Exact>* exact) {
  const PrototypeList* prot = m.prototypes();
  SectionSource src{e, {}};
  const std::vector<ExpandedModel> expanded = expand_section(s, prot);
  src.placements.reserve(expanded.size());  // a million placements of ~150 bytes: no growth slack
  for (const ExpandedModel& x : expanded) {
    Placement p;
    if (x.solo) {
      p.node = x.solo->node;
      p.lights = slice(s.solo.light_states, x.solo->lights);
      p.colors = slice(s.solo.light_colors, x.solo->colors);
    } else {
      const Prototype& pr = prot->prototypes[static_cast<std::size_t>(x.proto)];
      p.node = pr.node;
      p.node.name = x.name;
      if (x.name != kNoString) p.node.flags |= node_flag::name;
      else p.node.flags &= static_cast<std::uint8_t>(~node_flag::name);
      p.lights = slice(prot->light_states, pr.lights);
      p.colors = slice(prot->light_colors, pr.colors);
      p.proto = x.proto;
    }
    p.node.flags &= static_cast<std::uint8_t>(~node_flag::transform);
    p.node.transform = kNoTransform;
    p.terrain = x.terrain;
    p.transition = x.transition;
    p.location = x.location;
    p.angles = x.angles;
    p.scale = x.scale;
    p.file = x.file;
    p.texture = x.texture;
    p.x = p.location.x;
    p.z = p.location.z;
    p.range_sq_min = p.node.range_sq_min;
    p.range_sq_max = std::isinf(p.node.range_sq_max) ? std::numeric_limits<double>::max() : p.node.range_sq_max;
    src.placements.push_back(std::move(p));
  }
  if (exact && exact->size() == src.placements.size())
    for (std::size_t i = 0; i < src.placements.size(); ++i) {
      const ConvertOptions::Exact& x = (*exact)[i];
      Placement& p = src.placements[i];
      p.x = x.x, p.z = x.z, p.range_sq_min = x.range_sq_min, p.range_sq_max = x.range_sq_max;
    }
  return src;
}

// The decoded section of each PIDX entry, in PIDX order.
Result<std::vector<const PackSection*>> sections_by_pidx(const Module& m) {
  std::vector<const PackSection*> out;
  const PackChunk* pack = m.pack();
  const std::vector<PidxEntry>* pidx = m.pidx();
  if (!pack || !pidx) return out;
  if (!pack->decoded) return Error{Errc::bad_value, pack->payload_offset, "PACK must be decoded to convert"};
  std::map<std::uint64_t, const PackSection*> at_offset;
  for (const PackSection& s : pack->sections) at_offset.emplace(s.offset, &s);
  out.reserve(pidx->size());
  for (const PidxEntry& e : *pidx) {
    const auto s = at_offset.find(e.pack_offset);
    if (s == at_offset.end()) return Error{Errc::bad_value, 0, fmt::format("PIDX section ({}, {}) has no decoded PACK section", e.row, e.col)};
    out.push_back(s->second);
  }
  return out;
}

// The placements of PIDX section `i` (of sections_by_pidx). Gathered where they are wanted and let
// go after, each time: a million placements held at once were a third of a root compile's
// memory; gathered twice (prototypes chosen, then sections built) they cost 2 % more time.
SectionSource gather(const Module& m, const std::vector<const PackSection*>& sections, std::size_t i, const ConvertOptions& options) {
  const auto* exact = options.exact && i < options.exact->size() ? &(*options.exact)[i] : nullptr;
  return gather_one(m, (*m.pidx())[i], *sections[i], exact);
}

bool is_identity(const TransformContext& t) {
  return t.origins.empty() && t.scales.empty() && t.rotation.x == 0 && t.rotation.y == 0 && t.rotation.z == 0 &&
         t.group_depth == 0;
}

// Prototype key (notes §6.4).
using Key = std::tuple<Sid, Sid, double, double, bool, std::uint8_t, std::uint8_t>;
Key key_of(const Placement& p) {
  return {p.file, p.texture, p.range_sq_min, p.range_sq_max, !(p.node.flags & node_flag::not_visible), p.terrain, p.transition};
}

bool forced_solo(const Module& m, const Placement& p) {
  return p.terrain != 0 || !p.lights.empty() || !p.colors.empty() || !mesh_loadable(text(m, p.file));
}

std::uint8_t cell_of(const Placement& p, const PidxEntry& e) {
  const double x_min = (static_cast<int>(e.col) - kGridCentre) * kSectionSize;
  const double z_min = (static_cast<int>(e.row) - kGridCentre) * kSectionSize;
  // In [0, 3] whatever the file's coordinates (NaN and 1e30 included) before the conversion to int.
  auto cell = [](double v) { return !(v > 0.0) ? 0 : v >= 3.0 ? 3 : static_cast<int>(v); };
  const int col = cell(std::floor((p.x - x_min) / 250.0));
  const int row = cell(std::floor((p.z - z_min) / 250.0));
  return static_cast<std::uint8_t>(row * 4 + col);
}

double centre_distance_sq(const Placement& p, const PidxEntry& e) {
  const double cx = (static_cast<int>(e.col) - kGridCentre) * kSectionSize + kSectionSize / 2;
  const double cz = (static_cast<int>(e.row) - kGridCentre) * kSectionSize + kSectionSize / 2;
  const double dx = p.x - cx, dz = p.z - cz;
  return dx * dx + dz * dz;
}

// Sorts placements stably by a key made once for each (a comparator would make both keys again
// in each of n log n comparisons: map lookups and divisions, a million models' worth). The same
// comparisons on the same keys: the same order.
template <class Key, class Less>
void stable_sort_by(std::vector<const Placement*>& order, Key key, Less less) {
  using K = decltype(key(*order.front()));
  std::vector<std::pair<K, const Placement*>> keyed;
  keyed.reserve(order.size());
  for (const Placement* p : order) keyed.emplace_back(key(*p), p);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) { return less(a.first, b.first); });
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = keyed[i].second;
}

// Ids ordered by frequency (descending), then by their bytes.
std::vector<Sid> by_frequency(const Module& m, const std::map<Sid, std::size_t>& counts) {
  std::vector<Sid> ids;
  for (const auto& [id, n] : counts) ids.push_back(id);
  std::stable_sort(ids.begin(), ids.end(), [&](Sid a, Sid b) {
    if (counts.at(a) != counts.at(b)) return counts.at(a) > counts.at(b);
    return text(m, a) < text(m, b);
  });
  return ids;
}

Model to_model(const Placement& p, ModelList& pools) {
  Model mo;
  mo.node = p.node;
  mo.terrain = p.terrain;
  mo.transition = p.transition;
  mo.location = p.location;
  mo.angles = p.angles;
  mo.scale = p.scale;
  mo.model_file = p.file;
  mo.texture = p.texture;
  mo.lights = append(pools.light_states, p.lights);
  mo.colors = append(pools.light_colors, p.colors);
  return mo;
}

// Version 9 extras, as the writer derives them (notes §7); resolved_texture stays as it is (it
// depends on the baking machine's disk).
// The squared ranges in double, as the writer keeps them (an unlimited max as DBL_MAX).
void derive_v9_extras(Prototype& pr, double range_sq_min, double range_sq_max) {
  const bool full_load = pr.lights.count > 0 || pr.colors.count > 0 || pr.transition == 0;
  pr.pack_flags = full_load ? 1 : (pr.terrain ? 0 : 2);
  pr.textures_alpha = 0;
  pr.baked_range_min = static_cast<float>(std::sqrt(std::max(0.0, range_sq_min)));
  pr.baked_range_max = range_sq_max >= std::numeric_limits<double>::max() * 0.5 ? -1.0f : static_cast<float>(std::sqrt(range_sq_max));
}
void derive_v9_extras(Prototype& pr) {
  derive_v9_extras(pr, pr.node.range_sq_min,
                   std::isinf(pr.node.range_sq_max) ? std::numeric_limits<double>::max() : static_cast<double>(pr.node.range_sq_max));
}

Prototype to_prototype(const Placement& p, PrototypeList& pools) {
  Prototype pr;
  pr.node = p.node;
  pr.terrain = p.terrain;
  pr.transition = p.transition;
  pr.model_file = p.file;
  pr.texture = p.texture;
  pr.lights = append(pools.light_states, p.lights);
  pr.colors = append(pools.light_colors, p.colors);
  derive_v9_extras(pr, p.range_sq_min, p.range_sq_max);
  return pr;
}

// Models per sub-chunk of a section of `models` models. Format 3's writer (56d72fb2) cuts every
// 512 models; the writers of formats 4, 5 and 6 (2ee5f933, 2f902469, tip) every 256 once a
// section holds more than 1024 (runtime_module.hpp: kPackSectionChunkModelsHeavy,
// kPackSectionHeavyModelThreshold; samples packcounts/*).
std::size_t sub_chunk_capacity(SectionFormat f, std::size_t models) {
  if (f < SectionFormat::chnk) return 0;
  if (f == SectionFormat::chnk) return 512;
  return models > 1024 ? 256 : 512;
}

// Builds a module's sections in a target format, one at a time: first shown every section
// (see(), in PIDX order) to choose the prototypes, then asked for each section in turn.
class SectionBuilder {
 public:
  // `source_chose`: the source was written with prototypes (formats 1, 5, 6) and so has made
  // every solo/inst choice already, from what its records may no longer hold (a format-6 solo
  // record's filtered skin): they are all kept, an empty PROT included (every model solo), and
  // its prototypes keep their numbers (renumbering from a sorted section's order would give a
  // prototype the name and bounds of another first instance).
  SectionBuilder(const Module& m, SectionFormat f, const ConvertOptions& options, bool source_chose)
      : m_(m), f_(f), options_(options), with_inst_(f == SectionFormat::prot_inst || f == SectionFormat::v13 || f == SectionFormat::v8),
        reuse_(with_inst_ && source_chose && m.prototypes()) {
    if (reuse_) {
      prototypes = *m.prototypes();
      if (m.version() < 9)  // PROT v8 has no extras to keep
        for (Prototype& pr : prototypes.prototypes) derive_v9_extras(pr);
    }
  }
  bool chooses() const { return with_inst_ && !reuse_; }
  void quiet() { quiet_ = true; }  // a section built again: its losses were told the first time

  // Prototypes: keys used at least twice in the whole module, numbered by first occurrence in
  // the writer's input order (notes §6.4).
  void see(const SectionSource& src) {
    if (!chooses()) return;
    for (const Placement& p : src.placements) {
      if (forced_solo(m_, p)) continue;
      auto [it, added] = keys_.try_emplace(key_of(p), Seen{seen_, 0, p});
      ++it->second.count;
      if (added) ++seen_;
    }
  }
  void choose() {
    if (!chooses()) return;
    std::vector<std::pair<std::size_t, const Key*>> repeated;
    for (const auto& [k, s] : keys_)
      if (s.count >= 2) repeated.push_back({s.first, &k});
    std::sort(repeated.begin(), repeated.end());
    for (const auto& [first, k] : repeated) {
      proto_of_[*k] = static_cast<std::uint32_t>(prototypes.prototypes.size());
      prototypes.prototypes.push_back(to_prototype(keys_.at(*k).placement, prototypes));
    }
    keys_.clear();
  }

  Result<PackSection> build(const SectionSource& src, std::uint64_t offset) const {
    const SectionFormat f = f_;
    const bool v13 = f == SectionFormat::v13;
    PackSection s;
    s.format = f;
    s.offset = offset;  // a placeholder: the writer lays the sections out and patches PIDX
    std::vector<const Placement*> order;
    for (const Placement& p : src.placements) order.push_back(&p);

    // Mesh and texture frequencies within the section.
    std::map<Sid, std::size_t> mesh_count, tex_count;
    for (const Placement* p : order) {
      if (mesh_loadable(text(m_, p->file))) ++mesh_count[p->file];
      if (texture_listed(text(m_, p->texture))) ++tex_count[p->texture];
    }
    if (f >= SectionFormat::umes) {
      if (f >= SectionFormat::utex) {
        std::map<Sid, std::size_t> with_protos = mesh_count;
        if (f >= SectionFormat::prot_inst)
          for (const Prototype& pr : prototypes.prototypes)
            if (mesh_loadable(text(m_, pr.model_file))) with_protos.emplace(pr.model_file, 0);
        s.meshes = by_frequency(m_, with_protos);
        s.textures = by_frequency(m_, tex_count);
      } else {
        for (const auto& [id, n] : mesh_count) s.meshes.push_back(id);  // 2 and 3: sorted by name
        std::stable_sort(s.meshes.begin(), s.meshes.end(), [&](Sid a, Sid b) { return text(m_, a) < text(m_, b); });
      }
    }
    // From format 4 on: most frequent meshes first, then nearest to the section centre.
    if (f >= SectionFormat::utex) {
      const auto key = [&](const Placement& p) {
        const auto it = mesh_count.find(p.file);
        return std::pair(it == mesh_count.end() ? std::size_t{0} : it->second, centre_distance_sq(p, src.entry));
      };
      stable_sort_by(order, key, [](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first > b.first;
        return a.second < b.second;
      });
    }
    if (v13) stable_sort_by(order, [&](const Placement& p) { return cell_of(p, src.entry); }, std::less<>());

    auto solo_record = [&](const Placement& p) -> Result<Model> {
      Model mo = to_model(p, s.solo);
      if (!v13) return mo;
      mo.cell = cell_of(p, src.entry);
      auto lose = [&](std::string what) -> Error {
        if (!options_.allow_lossy)
          return Error{Errc::bad_value, 0, fmt::format("section ({}, {}): {} cannot be stored in format 6; keep format "
                                                       "5 or lower, or allow the reference writer's losses",
                                                       src.entry.row, src.entry.col, what)};
        if (options_.losses && !quiet_) options_.losses->push_back(fmt::format("section ({}, {}): {} dropped", src.entry.row, src.entry.col, what));
        return {};
      };
      const auto mesh = std::find(s.meshes.begin(), s.meshes.end(), p.file);
      if (mesh == s.meshes.end() && !text(m_, p.file).empty())
        if (Error e = lose(fmt::format("mesh path '{}' (not loadable, so not in UMES)", text(m_, p.file)))) return e;
      const auto tex = std::find(s.textures.begin(), s.textures.end(), p.texture);
      if (tex == s.textures.end() && !texture_is_default(text(m_, p.texture)))
        if (Error e = lose(fmt::format("texture '{}' of a solo model (UTEX filters it)", text(m_, p.texture)))) return e;
      mo.model_file = mesh == s.meshes.end() ? kNoIndex : static_cast<Sid>(mesh - s.meshes.begin());
      mo.texture = tex == s.textures.end() ? kNoIndex : static_cast<Sid>(tex - s.textures.begin());
      if (s.meshes.size() > kNoIndex || s.textures.size() > kNoIndex)
        return Error{Errc::bad_value, 0, fmt::format("section ({}, {}): more than 65535 meshes or textures for "
                                                     "format 6's u16 indices", src.entry.row, src.entry.col)};
      return mo;
    };
    auto inst_record = [&](const Placement& p) {
      Instance i;
      i.proto = proto_id(p);
      i.location = p.location;
      i.angles = p.angles;
      i.scale = p.scale;
      i.name = (p.node.flags & node_flag::name) ? p.node.name : kNoString;
      if (v13) i.cell = cell_of(p, src.entry);
      return i;
    };

    const std::size_t n = order.size();
    const std::size_t per_chunk = f >= SectionFormat::chnk ? sub_chunk_capacity(f, n) : n + 1;
    for (std::size_t begin = 0; begin < n || (begin == 0 && f >= SectionFormat::chnk); begin += per_chunk) {
      const std::size_t end = std::min(n, begin + per_chunk);
      SectionChunkEntry entry;
      for (std::size_t i = begin; i < end; ++i)
        if (!is_inst(*order[i])) {
          auto mo = solo_record(*order[i]);
          if (!mo) return mo.error();
          s.solo.models.push_back(*mo);
          ++entry.solo;
        }
      for (std::size_t i = begin; i < end; ++i)
        if (is_inst(*order[i])) {
          s.inst.push_back(inst_record(*order[i]));
          ++entry.inst;
        }
      if (f >= SectionFormat::chnk) s.chunks.push_back(entry);
      if (n == 0) break;
    }
    s.solo_count = static_cast<std::uint32_t>(s.solo.models.size());
    s.inst_count = static_cast<std::uint32_t>(s.inst.size());
    return s;
  }

  PrototypeList prototypes;

 private:
  bool is_inst(const Placement& p) const {
    if (reuse_) return p.proto >= 0;
    return with_inst_ && !forced_solo(m_, p) && proto_of_.count(key_of(p)) != 0;
  }
  std::uint32_t proto_id(const Placement& p) const {
    return reuse_ ? static_cast<std::uint32_t>(p.proto) : proto_of_.at(key_of(p));
  }
  struct Seen {
    std::size_t first, count;
    Placement placement;
  };
  const Module& m_;
  SectionFormat f_;
  const ConvertOptions& options_;
  bool with_inst_, reuse_, quiet_ = false;
  std::map<Key, Seen> keys_;
  std::size_t seen_ = 0;
  std::map<Key, std::uint32_t> proto_of_;
};

// Was the first section written with prototypes (formats 1, 5, 6)?
bool chose_prototypes(SectionFormat first) {
  return first == SectionFormat::prot_inst || first == SectionFormat::v13 || first == SectionFormat::v8;
}

}  // namespace

SectionFormat default_section_format(std::uint32_t version) {
  if (version >= 9) return SectionFormat::v13;
  if (version == 8) return SectionFormat::prot_inst;
  return SectionFormat::flat;
}

namespace {

// The target's version and section format, and `m` (a copy of the source) with what changes
// with the version; the reason when the target cannot hold the module. `first`: the source's
// first section's format, if it has a section.
Result<SectionFormat> prepare(const Module& source, const ConvertOptions& options, std::optional<SectionFormat> first, Module& m) {
  const std::uint32_t version = options.version ? options.version : source.version();
  if (version < kMinVersion || version > kMaxVersion)
    return Error{Errc::unsupported_version, 0,
                 fmt::format("EU7B version {} is not supported (supported: {}-{})", version, kMinVersion, kMaxVersion)};
  SectionFormat f = default_section_format(version);
  if (!options.keep_pack_format) f = options.pack_format;
  else if (first && options.version == 0) f = *first;
  std::uint64_t placements = 0;
  if (const auto* pidx = source.pidx())
    for (const PidxEntry& e : *pidx) placements += e.model_count;
  if (source.pack() && version < 7 && placements > 0)
    return Error{Errc::bad_value, 0, fmt::format("version {} has no PIDX/PACK: the {} PACK models cannot be stored "
                                                 "(use version 7, 8 or 9)", version, placements)};
  if ((f == SectionFormat::prot_inst || f == SectionFormat::v13 || f == SectionFormat::v8) && version < 8)
    return Error{Errc::bad_value, 0, fmt::format("section format {} needs prototypes (PROT), which exist from version 8",
                                                 section_format_name(f))};
  if (version < 6 && source.version() >= 6) {
    // Versions 4 and 5 store no site transform; an identity one loses nothing.
    for (Chunk& c : m.chunks) {
      auto* incl = std::get_if<std::vector<Include>>(&c.data);
      if (!incl) continue;
      std::size_t placed = 0;
      for (Include& i : *incl) {
        if (is_identity(i.site)) continue;
        ++placed;
        i.site = TransformContext{};
      }
      if (placed == 0) continue;
      const std::string what = fmt::format("version {} INCL records have no site transform; {} of {} includes have one",
                                           version, placed, incl->size());
      if (!options.allow_lossy) return Error{Errc::bad_value, c.offset, what};
      if (options.losses) options.losses->push_back(what + ", dropped");
    }
  }
  if (version < 9 && source.version() >= 9)
    if (const PrototypeList* prot = source.prototypes())
      for (const Prototype& p : prot->prototypes)
        if (p.resolved_texture != kNoString)
          return Error{Errc::bad_value, 0, "PROT v8 has no resolved_texture field; a prototype's would be lost"};
  m.container.version = version;
  auto in_pack_run = [](const Chunk& c) { return c.id == chunk::PIDX || c.id == chunk::PROT || c.id == chunk::PACK; };
  if (version < 7) {  // an empty run (a root without models) simply goes
    std::erase_if(m.chunks, in_pack_run);
  } else if (!source.pack()) {
    // Versions 7-9 are roots: the writer always emits PIDX, (v8+) PROT and PACK, empty when there
    // are no models, after the geometry chunks and before MODL and the simulation chunks
    // (notes §4; samples historic/TD.v7.eu7, historic/TD.v8.eu7, TD.v9-root.eu7).
    auto after_run = [](const Chunk& c) {
      for (std::uint32_t id : {chunk::MODL, chunk::TRAC, chunk::PWRS, chunk::MEMC, chunk::LAUN, chunk::DYNM,
                               chunk::SOND, chunk::TRSE, chunk::EVNT, chunk::FINT})
        if (c.id == id) return true;
      return false;
    };
    std::vector<Chunk> run;
    run.push_back(Chunk{chunk::PIDX, 0, std::vector<PidxEntry>{}, {}, false});
    if (version >= 8) run.push_back(Chunk{chunk::PROT, 0, PrototypeList{}, {}, true});
    PackChunk pack;
    pack.loaded = pack.decoded = true;
    run.push_back(Chunk{chunk::PACK, 0, std::move(pack), {}, false});
    const auto at = std::find_if(m.chunks.begin(), m.chunks.end(), after_run);
    m.chunks.insert(at, std::make_move_iterator(run.begin()), std::make_move_iterator(run.end()));
  }
  return f;
}

// The PIDX / PROT / PACK run put back where PIDX was (the writer's order), PROT only from v8.
// `pack`: the new PACK chunk (decoded sections, or a payload written later).
Error place_run(Module& m, SectionFormat f, std::vector<PidxEntry> pidx, PrototypeList prototypes, PackChunk pack) {
  if (f == SectionFormat::v8 && !pidx.empty() && prototypes.prototypes.empty())
    return Error{Errc::bad_value, 0, "section format 1 is recognised only with a non-empty PROT, but no model "
                                     "placement repeats, so there would be no prototypes (use format 5 or 6)"};
  const bool sections = !pidx.empty();
  std::vector<Chunk> chunks;
  bool placed = false;
  for (Chunk& c : m.chunks) {
    const bool run = c.id == chunk::PIDX || c.id == chunk::PROT || c.id == chunk::PACK;
    if (!run) {
      chunks.push_back(std::move(c));
      continue;
    }
    if (placed) continue;
    placed = true;
    chunks.push_back(Chunk{chunk::PIDX, 0, std::move(pidx), {}, false});
    if (m.version() >= 8) {
      Chunk prot{chunk::PROT, 0, std::move(prototypes), {}, false};
      // The writers leave PROT's payload out (not even a count) only when there is no section:
      // sections without a prototype still get a count of 0 (buildPackPayloadV12 returns early
      // only for no batches).
      prot.empty_payload = std::get<PrototypeList>(prot.data).prototypes.empty() && !sections;
      chunks.push_back(std::move(prot));
    }
    chunks.push_back(Chunk{chunk::PACK, 0, std::move(pack), {}, false});
  }
  m.chunks = std::move(chunks);
  return {};
}

// The source as a conversion that rebuilds PIDX, PROT and PACK starts from (place_run replaces
// them): every member and chunk but PACK's records, which would be copied only to be dropped
// (a million models' worth).
Module without_pack_records(const Module& source) {
  Module m;
  m.container = source.container;
  m.strings = source.strings;
  m.problems = source.problems;
  m.strings_referenced = source.strings_referenced;
  m.chunks.reserve(source.chunks.size());
  for (const Chunk& c : source.chunks)
    m.chunks.push_back(std::holds_alternative<PackChunk>(c.data) ? Chunk{c.id, c.offset, PackChunk{}, {}, false} : c);
  return m;
}

}  // namespace

Result<Module> convert_module(const Module& source, const ConvertOptions& options) {
  auto sections = sections_by_pidx(source);
  if (!sections) return sections.error();
  const PackChunk* pack = source.pack();
  const std::optional<SectionFormat> first =
      pack && pack->decoded && !pack->sections.empty() ? std::optional(pack->sections.front().format) : std::nullopt;
  // Below version 7 or without a PACK nothing is rebuilt: the module is converted as it is.
  const std::uint32_t version = options.version ? options.version : source.version();
  Module m = version >= 7 && pack ? without_pack_records(source) : source;
  auto f = prepare(source, options, first, m);
  if (!f) return f.error();
  if (m.version() < 7 || !pack) return m;
  SectionBuilder builder(source, *f, options, first && chose_prototypes(*first));
  for (std::size_t i = 0; i < sections->size(); ++i) builder.see(gather(source, *sections, i, options));
  builder.choose();
  std::vector<PidxEntry> pidx;
  PackChunk out;
  out.loaded = out.decoded = true;
  out.sections.reserve(sections->size());
  for (std::size_t i = 0; i < sections->size(); ++i) {
    const SectionSource src = gather(source, *sections, i, options);
    auto s = builder.build(src, i);  // a unique placeholder offset; the writer lays them out
    if (!s) return s.error();
    PidxEntry e = src.entry;
    e.pack_offset = s->offset;
    e.model_count = static_cast<std::uint32_t>(s->model_count());
    pidx.push_back(e);
    out.sections.push_back(std::move(s).value());
  }
  if (Error e = place_run(m, *f, std::move(pidx), std::move(builder.prototypes), std::move(out))) return e;
  return m;
}

Error write_converted(const Module& source, const ConvertOptions& options, ByteSink& sink) {
  // Streamed only where the sections lie encoded in PIDX order (every file the writers make);
  // anything else is converted whole.
  const PackChunk* pack = source.pack();
  const auto* pidx = source.pidx();
  bool in_order = pack && pidx && pack->loaded && !pack->decoded && !options.exact;
  for (std::size_t i = 1; in_order && i < pidx->size(); ++i) in_order = (*pidx)[i - 1].pack_offset < (*pidx)[i].pack_offset;
  if (!in_order) {
    auto m = convert_module(source, options);
    if (!m) return m.error();
    return write_module(*m, sink);
  }
  // Walks the sections in order, each decoded and let go: `each(entry, section)`.
  const auto walk = [&](const std::function<Error(const PidxEntry&, SectionSource&&)>& each) -> Error {
    std::vector<std::uint8_t> prefix;
    std::vector<Problem> problems;
    PackCursor cursor(source, prefix, problems);
    for (;;) {
      auto s = cursor.next();
      if (!s) return s.error();
      if (!*s) return {};
      if (Error e = each(*cursor.entry(), gather_one(source, *cursor.entry(), **s, nullptr))) return e;
    }
  };
  std::optional<SectionFormat> first;
  {
    std::vector<std::uint8_t> prefix;
    std::vector<Problem> problems;
    PackCursor cursor(source, prefix, problems);
    auto s = cursor.next();
    if (!s) return s.error();
    if (*s) first = (*s)->format;
  }
  Module m;  // the source without its sections: everything but PACK is small
  m.container = source.container;
  m.strings = source.strings;
  m.problems = source.problems;
  for (const Chunk& c : source.chunks)
    if (c.id != chunk::PACK) m.chunks.push_back(c);
    else m.chunks.push_back(Chunk{c.id, c.offset, PackChunk{}, c.trailing, c.empty_payload});
  auto f = prepare(source, options, first, m);
  if (!f) return f.error();
  if (m.version() < 7) return write_module(m, sink);
  SectionBuilder builder(source, *f, options, first && chose_prototypes(*first));
  if (builder.chooses())
    if (Error e = walk([&](const PidxEntry&, SectionSource&& s) { return builder.see(s), Error{}; })) return e;
  builder.choose();
  // Once to lay the sections out (PIDX, before PACK, holds their offsets), once to write them.
  std::vector<PidxEntry> entries;
  std::uint64_t size = 0;
  if (Error e = walk([&](const PidxEntry& entry, SectionSource&& s) {
        auto built = builder.build(s, 0);
        if (!built) return built.error();
        PidxEntry p = entry;
        p.pack_offset = size;
        p.model_count = static_cast<std::uint32_t>(built->model_count());
        entries.push_back(p);
        size += encode_section(*built).size();
        return Error{};
      }))
    return e;
  // A copy: the sections built again below still need them.
  if (Error e = place_run(m, *f, std::move(entries), builder.prototypes, PackChunk{})) return e;
  builder.quiet();
  return write_module(m, sink, {size, [&](ByteSink& out) {
                                   std::uint64_t written = 0;
                                   Error e = walk([&](const PidxEntry&, SectionSource&& s) {
                                     auto built = builder.build(s, 0);
                                     if (!built) return built.error();
                                     const auto bytes = encode_section(*built);
                                     written += bytes.size();
                                     return out.put(bytes);
                                   });
                                   if (!e && written != size)
                                     e = Error{Errc::bad_value, 0, "a section came out at another size the second time (a bug)"};
                                   return e;
                                 }});
}

}  // namespace sceneria::eu7b
