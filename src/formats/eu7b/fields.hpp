#pragma once
// The field lists of every EU7B record, in file order, written once for all codecs (codec.hpp).
// Sizes in comments are on-disk bytes; `min` arguments are the smallest possible encoding of one
// list item, which caps how many items a count in the file may claim.
#include "formats/eu7b/codec.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/records.hpp"

namespace sceneria::eu7b {

constexpr std::size_t kPackedVertexSize = 22;
constexpr std::size_t kLightingSize = 48;
constexpr std::size_t kMinSlimNode = 1;
constexpr std::size_t kMinTransform = 1 + 1 + 12 + 1;

template <class A>
void fields(A& a, PackedVertex& v) {
  a.floats("position", v.position, 3);
  a.object("normal", [&] {
    auto n = [&](const char* name, std::int16_t& c) {
      auto u = static_cast<std::uint16_t>(c);
      a.u16(name, u);
      c = static_cast<std::int16_t>(u);
    };
    n("x", v.normal[0]);
    n("y", v.normal[1]);
    n("z", v.normal[2]);
  });
  a.u16("u", v.uv[0]);
  a.u16("v", v.uv[1]);
}

template <class A>
void fields(A& a, Lighting& l) {
  a.floats("diffuse", l.diffuse.data(), 4);
  a.floats("ambient", l.ambient.data(), 4);
  a.floats("specular", l.specular.data(), 4);
}

template <class A>
void fields(A& a, TransformContext& t) {
  auto vec = [&](Vec3f& v) { a.vec3("", v); };
  // u8 counts (at most 255 entries each).
  auto small_list = [&](const char* name, std::vector<Vec3f>& list) {
    std::uint8_t n = static_cast<std::uint8_t>(list.size());
    a.u8(name, n);
    a.list_n(name, list, n, 12, vec);
  };
  if constexpr (A::json) {
    a.list(("origins"), t.origins, 12, vec);
    a.list(("scales"), t.scales, 12, vec);
  } else {
    small_list("origin count", t.origins);
    small_list("scale count", t.scales);
  }
  a.vec3("rotation", t.rotation);
  a.u8("group_depth", t.group_depth);
}

template <class A>
void fields(A& a, SlimNode& n, std::vector<TransformContext>& transforms) {
  a.u8("flags", n.flags);
  if (n.flags & node_flag::name) a.sid("name", n.name);
  if (n.flags & node_flag::range_min) a.f32("range_sq_min", n.range_sq_min);
  if (n.flags & node_flag::range_max) a.f32("range_sq_max", n.range_sq_max);
  if (n.flags & node_flag::bounds) {
    a.vec3("bounds_center", n.bounds_center);
    a.f32("bounds_radius", n.bounds_radius);
  }
  if (n.flags & node_flag::group) a.u32("group", n.group);
  if (n.flags & node_flag::transform) {
    if constexpr (A::reading) {
      n.transform = static_cast<std::int32_t>(transforms.size());
      transforms.emplace_back();
    }
    a.object("transform", [&] { fields(a, transforms[static_cast<std::size_t>(n.transform)]); });
  }
}

template <class A>
void node(A& a, SlimNode& n, std::vector<TransformContext>& transforms) {
  a.object("node", [&] { fields(a, n, transforms); });
}

template <class A>
void fields(A& a, Include& r, std::uint32_t version) {
  a.u32("source_line", r.source_line);
  a.sid("source_path", r.source_path);
  a.sid("binary_path", r.binary_path);
  a.list("parameters", r.parameters, 4, [&](Sid& s) { a.sid("parameter", s); });
  if (version >= 6) a.object("site_transform", [&] { fields(a, r.site); });
}

template <class A>
void fields(A& a, TrackPath& p) {
  a.vec3("p1", p.p1);
  a.f32("roll1", p.roll1);
  a.vec3("cp_out", p.cp_out);
  a.vec3("cp_in", p.cp_in);
  a.vec3("p2", p.p2);
  a.f32("roll2", p.roll2);
  a.f32("radius", p.radius);
}

template <class A>
void fields(A& a, Track& t, std::vector<TransformContext>& transforms) {
  node(a, t.node, transforms);
  a.u8("type", t.type);
  a.u8("category", t.category);
  a.f32("length", t.length);
  a.f32("width", t.width);
  a.f32("friction", t.friction);
  a.f32("sound_distance", t.sound_distance);
  a.i32("quality", t.quality);
  a.i32("damage", t.damage);
  a.u8("environment", t.environment);
  a.u8("has_visibility", t.has_visibility);
  if (t.has_visibility) {
    a.object("visibility", [&] {
      a.sid("material1", t.visibility.material1);
      a.f32("tex_length", t.visibility.tex_length);
      a.sid("material2", t.visibility.material2);
      a.f32("tex_height1", t.visibility.tex_height1);
      a.f32("tex_width", t.visibility.tex_width);
      a.f32("tex_slope", t.visibility.tex_slope);
    });
  }
  a.list("paths", t.paths, 60, [&](TrackPath& p) { a.object("", [&] { fields(a, p); }); }, 65536);
  a.list("tails", t.tails, 5, [&](TrackTail& tail) {
    a.object("", [&] {
      a.u8("code", tail.code);
      if (tail.code == 255) a.sid("custom_key", tail.custom_key);
      a.sid("value", tail.value);
    });
  }, 256);
}

template <class A>
void fields(A& a, Traction& t, std::vector<TransformContext>& transforms) {
  node(a, t.node, transforms);
  a.sid("power_supply", t.power_supply);
  a.u8("material", t.material);
  a.f32("nominal_voltage", t.nominal_voltage);
  a.f32("max_current", t.max_current);
  a.f32("resistivity", t.resistivity);
  a.f32("resistivity_legacy", t.resistivity_legacy);
  a.sid("material_raw", t.material_raw);
  a.f32("wire_thickness", t.wire_thickness);
  a.i32("damage", t.damage);
  a.vec3("p1", t.p1);
  a.vec3("p2", t.p2);
  a.vec3("p3", t.p3);
  a.vec3("p4", t.p4);
  a.f32("min_height", t.min_height);
  a.f32("segment_length", t.segment_length);
  a.i32("wire_count", t.wire_count);
  a.f32("wire_offset", t.wire_offset);
  a.u8("has_parallel", t.has_parallel);
  if (t.has_parallel) a.sid("parallel", t.parallel);
}

template <class A>
void fields(A& a, PowerSource& p, std::vector<TransformContext>& transforms) {
  node(a, p.node, transforms);
  a.vec3("position", p.position);
  a.f32("nominal_voltage", p.nominal_voltage);
  a.f32("frequency", p.frequency);
  a.f32("internal_resistance_legacy", p.internal_resistance_legacy);
  a.f32("internal_resistance", p.internal_resistance);
  a.f32("max_output_current", p.max_output_current);
  a.f32("fast_fuse_timeout", p.fast_fuse_timeout);
  a.f32("fast_fuse_repetition", p.fast_fuse_repetition);
  a.f32("slow_fuse_timeout", p.slow_fuse_timeout);
  a.u8("modifier", p.modifier);
}

template <class A>
void vertices(A& a, const char* name, std::vector<PackedVertex>& v) {
  a.list(name, v, kPackedVertexSize, [&](PackedVertex& x) { a.object("", [&] { fields(a, x); }); });
}

template <class A>
void fields(A& a, Terrain& t) {
  a.u8("flags", t.flags);
  a.sid("material", t.material);
  if (t.flags & terrain_flag::lighting) a.object("lighting", [&] { fields(a, t.lighting); });
  if (t.flags & terrain_flag::batched) {
    a.list("batches", t.batches, 12, [&](TerrainBatch& b) {
      a.object("", [&] {
        a.i32("section_x", b.section_x);
        a.i32("section_z", b.section_z);
        vertices(a, "vertices", b.vertices);
      });
    });
  } else {
    // Legacy: a triangle count, then 3 vertices per triangle.
    if constexpr (A::json) {
      vertices(a, "triangle_vertices", t.legacy);
    } else {
      std::uint32_t triangles = static_cast<std::uint32_t>(t.legacy.size() / 3);
      a.u32("triangle count", triangles);
      a.list_n("triangles", t.legacy, std::uint64_t{triangles} * 3, kPackedVertexSize,
               [&](PackedVertex& x) { fields(a, x); });
    }
  }
}

template <class A>
void fields(A& a, Shape& s, std::vector<TransformContext>& transforms) {
  a.u8("subtype", s.subtype);
  node(a, s.node, transforms);
  a.u8("translucent", s.translucent);
  a.sid("material", s.material);
  a.u8("has_lighting", s.has_lighting);
  if (s.has_lighting) a.object("lighting", [&] { fields(a, s.lighting); });
  a.vec3("origin", s.origin);
  vertices(a, "vertices", s.vertices);
}

template <class A>
void fields(A& a, Line& l, std::vector<TransformContext>& transforms) {
  a.u8("subtype", l.subtype);
  node(a, l.node, transforms);
  a.u8("has_lighting", l.has_lighting);
  if (l.has_lighting) a.object("lighting", [&] { fields(a, l.lighting); });
  a.f32("width", l.width);
  a.vec3("origin", l.origin);
  a.list("vertices", l.vertices, 12, [&](Vec3f& v) { a.vec3("", v); });
}

template <class A>
void fields(A& a, MemCell& m, std::vector<TransformContext>& transforms) {
  node(a, m.node, transforms);
  a.sid("text", m.text);
  a.f32("value1", m.value1);
  a.f32("value2", m.value2);
  a.sid("track", m.track);
}

template <class A>
void fields(A& a, EventLauncher& l, std::vector<TransformContext>& transforms) {
  node(a, l.node, transforms);
  a.vec3("location", l.location);
  a.f32("radius_sq", l.radius_sq);
  a.sid("activation_key_raw", l.activation_key_raw);
  a.i32("activation_key", l.activation_key);
  a.f32("delta_time", l.delta_time);
  a.sid("event1", l.event1);
  a.sid("event2", l.event2);
  a.i32("hour", l.hour);
  a.i32("minute", l.minute);
  a.u8("has_condition", l.has_condition);
  if (l.has_condition) {
    a.object("condition", [&] {
      a.sid("memcell", l.memcell);
      a.sid("compare_text", l.compare_text);
      a.f32("compare_value1", l.compare_value1);
      a.f32("compare_value2", l.compare_value2);
      a.i32("check_mask", l.check_mask);
    });
  }
  a.u8("train_triggered", l.train_triggered);
}

template <class A>
void fields(A& a, Dynamic& d, std::vector<TransformContext>& transforms) {
  node(a, d.node, transforms);
  a.sid("data_folder", d.data_folder);
  a.sid("skin", d.skin);
  a.sid("mmd", d.mmd);
  a.sid("track", d.track);
  a.sid("driver_type", d.driver_type);
  a.sid("load_type", d.load_type);
  a.sid("coupling_params", d.coupling_params);
  a.sid("coupling_raw", d.coupling_raw);
  a.f32("offset", d.offset);
  a.i32("coupling", d.coupling);
  a.i32("load_count", d.load_count);
  a.f32("velocity", d.velocity);
  a.u8("has_destination", d.has_destination);
  if (d.has_destination) a.sid("destination", d.destination);
  a.u8("has_trainset_index", d.has_trainset_index);
  if (d.has_trainset_index) a.u32("trainset_index", d.trainset_index);
}

template <class A>
void fields(A& a, Sound& s, std::vector<TransformContext>& transforms) {
  node(a, s.node, transforms);
  a.vec3("location", s.location);
  a.sid("wav", s.wav);
}

template <class A>
void key_values(A& a, const char* name, std::vector<KeyValue>& list) {
  a.list(name, list, 8, [&](KeyValue& kv) {
    a.object("", [&] {
      a.sid("key", kv.key);
      a.sid("value", kv.value);
    });
  });
}

template <class A>
void fields(A& a, Trainset& t) {
  a.sid("name", t.name);
  a.sid("track", t.track);
  a.f32("offset", t.offset);
  a.f32("velocity", t.velocity);
  key_values(a, "assignments", t.assignments);
  a.list("vehicles", t.vehicles, 4, [&](std::uint32_t& v) { a.u32("", v); });
  a.list("couplings", t.couplings, 4, [&](std::int32_t& v) { a.i32("", v); });
  a.u32("driver_index", t.driver_index);
}

template <class A>
void fields(A& a, Event& e) {
  a.sid("name", e.name);
  a.u8("type", e.type);
  a.f32("delay", e.delay);
  a.list("targets", e.targets, 4, [&](Sid& s) { a.sid("target", s); });
  a.f32("delay_random", e.delay_random);
  a.f32("delay_departure", e.delay_departure);
  a.u8("ignored", e.ignored);
  a.u8("passive", e.passive);
  key_values(a, "payload", e.payload);
}

// MODL records and PACK solo records. v13 stores u16 mesh/texture indices and a cell byte.
template <class A>
void fields(A& a, Model& m, ModelList& pools, bool v13) {
  node(a, m.node, pools.transforms);
  a.u8("terrain", m.terrain);
  a.u8("transition", m.transition);
  a.vec3("location", m.location);
  a.vec3("angles", m.angles);
  a.vec3("scale", m.scale);
  if (v13) {
    std::uint16_t mesh = static_cast<std::uint16_t>(m.model_file);
    std::uint16_t tex = static_cast<std::uint16_t>(m.texture);
    a.u16("mesh_idx", mesh);
    a.u16("tex_idx", tex);
    m.model_file = mesh;
    m.texture = tex;
  } else {
    a.sid("model_file", m.model_file);
    a.sid("texture", m.texture);
  }
  a.pooled("lights", m.lights, pools.light_states);
  a.pooled("colors", m.colors, pools.light_colors);
  if (v13) a.u8("cell", m.cell);
}
constexpr std::size_t kMinModel = kMinSlimNode + 2 + 36 + 8 + 8;
constexpr std::size_t kMinModelV13 = kMinSlimNode + 2 + 36 + 4 + 8 + 1;

template <class A>
void fields(A& a, Prototype& p, PrototypeList& pools, std::uint32_t version) {
  node(a, p.node, pools.transforms);
  a.u8("terrain", p.terrain);
  a.u8("transition", p.transition);
  a.sid("model_file", p.model_file);
  a.sid("texture", p.texture);
  a.pooled("lights", p.lights, pools.light_states);
  a.pooled("colors", p.colors, pools.light_colors);
  if (version >= 9) {
    a.sid("resolved_texture", p.resolved_texture);
    a.u8("pack_flags", p.pack_flags);
    a.u32("textures_alpha", p.textures_alpha);
    a.f32("baked_range_min", p.baked_range_min);
    a.f32("baked_range_max", p.baked_range_max);
  }
}
constexpr std::size_t kMinPrototype = kMinSlimNode + 2 + 8 + 8;

template <class A>
void fields(A& a, Instance& i, bool v13) {
  a.u32("proto", i.proto);
  a.vec3("location", i.location);
  a.vec3("angles", i.angles);
  a.vec3("scale", i.scale);
  a.sid("name", i.name);
  if (v13) a.u8("cell", i.cell);
}
constexpr std::size_t kInstanceSize = 4 + 36 + 4;

template <class A>
void fields(A& a, PidxEntry& e) {
  a.u16("row", e.row);
  a.u16("col", e.col);
  a.u32("model_count", e.model_count);
  a.u64("pack_offset", e.pack_offset);
}

}  // namespace sceneria::eu7b
