#pragma once
// How the reference EU7B writer lays out the records a compile hands it (notes eu7b §5-§7, §10):
// records grouped by kind within their chunk, strings numbered in the order it writes them, and a
// root's PACK models cut into their 1 km sections. The scenery compile (formats/scenery/) reads a
// text into records; what order they are written in is EU7B's business, kept here.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/vec3.hpp>

#include "core/string_index.hpp"
#include "formats/eu7b/eu7b.hpp"

namespace sceneria::eu7b {

// A position, angle or scale as a record holds it: what a compile reads in double, in float.
inline Vec3f v3(const glm::dvec3& v) { return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)}; }

// A model as the reference writer keeps it before writing: values unrounded (the compile of a
// root sorts, cuts and keys its PACK by them), strings as text.
struct PackModel {
  std::string name;  // empty: unnamed
  std::string file, texture;
  glm::dvec3 location{0.0}, angles{0.0}, scale{1.0};
  double range_min = 0, range_max = -1;  // metres, as written; a max below 0 is unlimited
  bool terrain = false, transition = true;
  std::uint32_t group = 0;  // 0: none
  std::vector<float> lights;
  std::vector<std::uint32_t> colors;
};
// A PackModel as PackModels keeps it: what nothing changes after composing (angles, scale)
// already in float, as written; strings and lights in the list's tables.
struct PackedModel {
  glm::dvec3 location{0.0};  // unrounded: the section cut and sort key
  Vec3f angles{}, scale{};
  double range_min = 0, range_max = -1;
  std::uint32_t file = 0, texture = 0;  // PackModels::text
  std::uint32_t group = 0;
  Span32 lights, colors;  // PackModels::lights, colors
  bool terrain = false, transition = true;
};

// A root's composed models, a million of them, in less than half the memory of as many
// PackModels (much of a root compile's time is the kernel handing it fresh pages): paths and
// skins kept once each (a few hundred distinct), names in one block of text, lights in two
// lists. The records are in blocks of about a megabyte, so they grow without a buffer copied
// into one twice its size at each doubling (the old one held until the copy ends, and kept
// resident by the allocator after), and are let go a block at a time as they are taken.
class PackModels {
 public:
  static constexpr std::size_t kBlock = 8192;
  void push_back(const PackModel& m) {
    if (blocks_.empty() || blocks_.back().size() == kBlock) blocks_.emplace_back().reserve(kBlock);
    PackedModel& p = blocks_.back().emplace_back();
    p.location = m.location;
    p.angles = v3(m.angles);
    p.scale = v3(m.scale);
    p.range_min = m.range_min;
    p.range_max = m.range_max;
    p.file = text_index_.intern(text_, m.file);
    p.texture = text_index_.intern(text_, m.texture);
    p.group = m.group;
    p.lights = {static_cast<std::uint32_t>(lights_.size()), static_cast<std::uint32_t>(m.lights.size())};
    lights_.insert(lights_.end(), m.lights.begin(), m.lights.end());
    p.colors = {static_cast<std::uint32_t>(colors_.size()), static_cast<std::uint32_t>(m.colors.size())};
    colors_.insert(colors_.end(), m.colors.begin(), m.colors.end());
    p.terrain = m.terrain;
    p.transition = m.transition;
    names_.push_back(m.name);
    ++size_;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The name of the i-th model, until take_each() ends.
  std::string_view name(std::size_t i) const { return names_[i]; }
  // Model paths and skins: PackedModel::file and texture index this.
  const StringTable& text() const { return text_; }
  std::span<const float> lights(Span32 s) const { return std::span(lights_).subspan(s.first, s.count); }
  std::span<const std::uint32_t> colors(Span32 s) const { return std::span(colors_).subspan(s.first, s.count); }

  // Each model in order with its number and name (empty: unnamed).
  template <class F>
  void each(F&& each) const {
    std::size_t i = 0;
    for (const std::vector<PackedModel>& block : blocks_)
      for (const PackedModel& m : block) {
        each(m, i, names_[i]);
        ++i;
      }
  }
  // The same, each block let go once passed; only the tables are left after.
  template <class F>
  void take_each(F&& each) {
    std::size_t i = 0;
    for (std::vector<PackedModel>& block : blocks_) {
      for (const PackedModel& m : block) {
        each(m, i, names_[i]);
        ++i;
      }
      std::vector<PackedModel>().swap(block);
    }
    blocks_.clear();
    names_ = StringTable();
    size_ = 0;
  }

 private:
  std::vector<std::vector<PackedModel>> blocks_;
  StringTable names_;  // one a model
  StringTable text_;
  StringIndex text_index_;
  std::vector<float> lights_;
  std::vector<std::uint32_t> colors_;
  std::size_t size_ = 0;
};

// The writer's group of a record within its chunk: records go out group by group, in file order
// within one (bake/module.hpp). Tracks: normal, turn and table; switches; roads; crossings; the
// rest (rivers, tributaries, kinds it does not know, which read as type 0 on a rail). Shapes:
// triangles, strips, fans. Lines: lines, strips, loops.
int written_group(const Track& t);
int written_group(const Shape& s);
int written_group(const Line& l);

// Every string id the records of a chunk hold, in the order the writer meets them (field order).
template <class F>
void each_sid(SlimNode& n, F&& fix) {
  fix(n.name);
}
template <class F>
void each_sid(std::vector<Include>& list, F&& fix) {
  for (Include& r : list) {
    fix(r.source_path);
    fix(r.binary_path);
    for (Sid& p : r.parameters) fix(p);
  }
}
template <class F>
void each_sid(RecordList<Track>& list, F&& fix) {
  for (Track& r : list.records) {
    each_sid(r.node, fix);
    fix(r.visibility.material1);
    fix(r.visibility.material2);
    for (TrackTail& t : r.tails) fix(t.custom_key), fix(t.value);
  }
}
template <class F>
void each_sid(RecordList<Shape>& list, F&& fix) {
  for (Shape& r : list.records) each_sid(r.node, fix), fix(r.material);
}
template <class F>
void each_sid(Terrain& t, F&& fix) {
  fix(t.material);
}
template <class F>
void each_sid(RecordList<Line>& list, F&& fix) {
  for (Line& r : list.records) each_sid(r.node, fix);
}
template <class F>
void each_sid(Model& r, F&& fix) {
  each_sid(r.node, fix), fix(r.model_file), fix(r.texture);
}
template <class F>
void each_sid(ModelList& list, F&& fix) {
  for (Model& r : list.models) each_sid(r, fix);
}
template <class F>
void each_sid(RecordList<Traction>& list, F&& fix) {
  for (Traction& r : list.records) each_sid(r.node, fix), fix(r.power_supply), fix(r.material_raw), fix(r.parallel);
}
template <class F>
void each_sid(RecordList<PowerSource>& list, F&& fix) {
  for (PowerSource& r : list.records) each_sid(r.node, fix);
}
template <class F>
void each_sid(RecordList<MemCell>& list, F&& fix) {
  for (MemCell& r : list.records) each_sid(r.node, fix), fix(r.text), fix(r.track);
}
template <class F>
void each_sid(RecordList<EventLauncher>& list, F&& fix) {
  for (EventLauncher& r : list.records) {
    each_sid(r.node, fix);
    for (Sid* s : {&r.activation_key_raw, &r.event1, &r.event2, &r.memcell, &r.compare_text}) fix(*s);
  }
}
template <class F>
void each_sid(RecordList<Dynamic>& list, F&& fix) {
  for (Dynamic& r : list.records) {
    each_sid(r.node, fix);
    for (Sid* s : {&r.data_folder, &r.skin, &r.mmd, &r.track, &r.driver_type, &r.load_type, &r.coupling_params, &r.coupling_raw, &r.destination})
      fix(*s);
  }
}
template <class F>
void each_sid(RecordList<Sound>& list, F&& fix) {
  for (Sound& r : list.records) each_sid(r.node, fix), fix(r.wav);
}
template <class F>
void each_sid(std::vector<Trainset>& list, F&& fix) {
  for (Trainset& r : list) {
    fix(r.name);
    fix(r.track);
    for (KeyValue& kv : r.assignments) fix(kv.key), fix(kv.value);
  }
}
template <class F>
void each_sid(std::vector<Event>& list, F&& fix) {
  for (Event& r : list) {
    fix(r.name);
    for (Sid& t : r.targets) fix(t);
    for (KeyValue& kv : r.payload) fix(kv.key), fix(kv.value);
  }
}
template <class F>
void each_sid(PrototypeList& list, F&& fix) {
  for (Prototype& p : list.prototypes) each_sid(p.node, fix), fix(p.model_file), fix(p.texture), fix(p.resolved_texture);
}
template <class F>
void each_sid(PackChunk& pack, F&& fix) {
  for (PackSection& s : pack.sections) {
    for (Sid& id : s.meshes) fix(id);
    for (Sid& id : s.textures) fix(id);
    // Per sub-chunk: its solo records, then its inst records (v13 solo records hold list
    // indices, not string ids, for the mesh and skin).
    std::size_t solo = 0, inst = 0;
    for (const SectionChunkEntry& e : s.chunks) {
      for (std::uint32_t k = 0; k < e.solo && solo < s.solo.models.size(); ++k) each_sid(s.solo.models[solo++].node, fix);
      for (std::uint32_t k = 0; k < e.inst && inst < s.inst.size(); ++k) fix(s.inst[inst++].name);
    }
  }
}
// A chunk of any kind (those without strings: nothing).
template <class F>
void each_sid(Chunk& c, F&& fix) {
  std::visit(
      [&](auto& data) {
        if constexpr (requires { each_sid(data, fix); }) each_sid(data, fix);
      },
      c.data);
}

// The reference writer interns strings as it writes the chunks, so STRS holds them in chunk order
// and, within a record, in field order, a root's PACK strings last (after those of its PACK models,
// in PIDX order: name, mesh and skin of each): renumber `m`'s strings so (STRS's count with
// them). Interned strings are distinct, so this is a permutation by first use; strings no record
// holds are dropped.
void renumber_as_written(Module& m, std::span<PackSection> pack_models = {});

// A root's PACK (notes eu7b §10): its .inc models cut into 1 km sections by their unrounded
// location (clamped into the 500 x 500 grid), in PIDX order (row, col) and file order within each,
// laid out as the reference writer's version 9 does (format 6 sections, prototypes, cells).
struct RootPack {
  std::vector<Chunk> run;     // PIDX, PROT, PACK; empty when they could not be laid out
  std::vector<PackSection> sections;  // flat ones, in PIDX order: the models' strings in the root's table
  std::vector<std::string> warnings;  // what the layout dropped, or why it failed
};
// The models' strings join `strings`, the root's table (`index` over it). `models` are let go as
// their records are made.
RootPack lay_out_root_pack(PackModels models, StringTable& strings, StringIndex& index);

}  // namespace sceneria::eu7b
