#pragma once
// The SUB record's layout (notes e3d-t3d.md §3), one line per field, for the reader, the writer and
// the JSON form alike: `f(offset, name, field)` for each; arrays of four floats are 16 bytes at
// their offset. The fields end at kSubmodelFieldsEnd; the rest of a record is padding.
#include <cstddef>

#include "formats/e3d/e3d.hpp"

namespace sceneria::e3d {

constexpr std::size_t kSubmodelFieldsEnd = 168;

template <class S, class F>
void submodel_fields(S& s, F&& f) {
  f(std::size_t{0}, "next", s.next);
  f(std::size_t{4}, "child", s.child);
  f(std::size_t{8}, "type", s.type);
  f(std::size_t{12}, "name", s.name);
  f(std::size_t{16}, "anim", s.anim);
  f(std::size_t{20}, "flags", s.flags);
  f(std::size_t{24}, "matrix", s.matrix);
  f(std::size_t{28}, "vertex_count", s.vertex_count);
  f(std::size_t{32}, "vertex_offset", s.vertex_offset);
  f(std::size_t{36}, "texture", s.texture);
  f(std::size_t{40}, "visible", s.visible);
  f(std::size_t{44}, "self_illum", s.self_illum);
  f(std::size_t{48}, "ambient", s.ambient);
  f(std::size_t{64}, "diffuse", s.diffuse);
  f(std::size_t{80}, "specular", s.specular);
  f(std::size_t{96}, "emission", s.emission);
  f(std::size_t{112}, "wire_size", s.wire_size);
  f(std::size_t{116}, "max_distance_sq", s.max_distance_sq);
  f(std::size_t{120}, "min_distance_sq", s.min_distance_sq);
  f(std::size_t{124}, "near_atten_start", s.light.near_atten_start);
  f(std::size_t{128}, "near_atten_end", s.light.near_atten_end);
  f(std::size_t{132}, "use_near_atten", s.light.use_near_atten);
  f(std::size_t{136}, "far_atten_decay", s.light.far_atten_decay);
  f(std::size_t{140}, "far_decay_radius", s.light.far_decay_radius);
  f(std::size_t{144}, "cos_falloff", s.light.cos_falloff);
  f(std::size_t{148}, "cos_hotspot", s.light.cos_hotspot);
  f(std::size_t{152}, "cos_view", s.light.cos_view);
  f(std::size_t{156}, "index_count", s.index_count);
  f(std::size_t{160}, "index_offset", s.index_offset);
  f(std::size_t{164}, "diffuse_multiplier", s.diffuse_multiplier);
}

}  // namespace sceneria::e3d
