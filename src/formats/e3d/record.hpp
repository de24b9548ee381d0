#pragma once
// The SUB record's layout (notes e3d-t3d.md §3), one line per field, for the reader and the writer
// alike: `f(offset, field)` for each; arrays of four floats are 16 bytes at their offset.
#include <cstddef>

#include "formats/e3d/e3d.hpp"

namespace sceneria::e3d {

template <class S, class F>
void submodel_fields(S& s, F&& f) {
  f(std::size_t{0}, s.next);
  f(std::size_t{4}, s.child);
  f(std::size_t{8}, s.type);
  f(std::size_t{12}, s.name);
  f(std::size_t{16}, s.anim);
  f(std::size_t{20}, s.flags);
  f(std::size_t{24}, s.matrix);
  f(std::size_t{28}, s.vertex_count);
  f(std::size_t{32}, s.vertex_offset);
  f(std::size_t{36}, s.texture);
  f(std::size_t{40}, s.visible);
  f(std::size_t{44}, s.self_illum);
  f(std::size_t{48}, s.ambient);
  f(std::size_t{64}, s.diffuse);
  f(std::size_t{80}, s.specular);
  f(std::size_t{96}, s.emission);
  f(std::size_t{112}, s.wire_size);
  f(std::size_t{116}, s.max_distance_sq);
  f(std::size_t{120}, s.min_distance_sq);
  f(std::size_t{124}, s.light.near_atten_start);
  f(std::size_t{128}, s.light.near_atten_end);
  f(std::size_t{132}, s.light.use_near_atten);
  f(std::size_t{136}, s.light.far_atten_decay);
  f(std::size_t{140}, s.light.far_decay_radius);
  f(std::size_t{144}, s.light.cos_falloff);
  f(std::size_t{148}, s.light.cos_hotspot);
  f(std::size_t{152}, s.light.cos_view);
  f(std::size_t{156}, s.index_count);
  f(std::size_t{160}, s.index_offset);
  f(std::size_t{164}, s.diffuse_multiplier);
}

}  // namespace sceneria::e3d
