#include "render/texture_layers.hpp"

#include <algorithm>

namespace sceneria {

void TextureLayers::reset(int units, std::uint32_t max_layers) {
  arrays_.clear();
  units_ = units;
  max_layers_ = std::max(1u, max_layers);
}

TextureLayers::Plan TextureLayers::plan(const LayerShape& shape, bool tight) const {
  Plan best;
  for (std::uint32_t a = 0; a < arrays_.size(); ++a) {
    const Array& array = arrays_[a];
    if (!array.live || !(array.shape == shape)) continue;
    const auto capacity = static_cast<std::uint32_t>(array.layers.size());
    if (array.used < capacity) return {a, capacity, 0};
    if (capacity < max_layers_ && best.array == kNone) {
      const std::uint32_t grown = tight ? capacity + 1 : std::min(max_layers_, capacity * 2);
      best = {a, grown, std::uint64_t{grown - capacity} * shape.bytes};
    }
  }
  if (best.array != kNone) return best;
  return {kNone, 1, shape.bytes};
}

void TextureLayers::set_units(int units) {
  units_ = units;
  for (Array& a : arrays_)
    if (a.unit > units_) a.unit = 0;
  for (Array& a : arrays_)
    if (a.live && a.unit == 0) a.unit = take_unit();
}

int TextureLayers::take_unit() const {
  for (int unit = 1; unit <= units_; ++unit)
    if (std::none_of(arrays_.begin(), arrays_.end(), [&](const Array& a) { return a.live && a.unit == unit; })) return unit;
  return 0;
}

std::uint32_t TextureLayers::place(Plan& plan, const LayerShape& shape, std::uint32_t texture, bool& rebuilt) {
  std::uint32_t a = plan.array;
  rebuilt = false;
  if (a == kNone) {
    const auto dead = std::find_if(arrays_.begin(), arrays_.end(), [](const Array& x) { return !x.live; });
    a = static_cast<std::uint32_t>(dead - arrays_.begin());
    if (dead == arrays_.end()) arrays_.emplace_back();
    Array& array = arrays_[a];
    array = {};
    array.shape = shape;
    array.unit = take_unit();
    array.live = true;
    plan.array = a;
  }
  Array& array = arrays_[a];
  if (plan.capacity > array.layers.size()) {
    array.layers.resize(plan.capacity, kNone);
    rebuilt = true;
  }
  const auto layer = static_cast<std::uint32_t>(std::find(array.layers.begin(), array.layers.end(), kNone) - array.layers.begin());
  array.layers[layer] = texture;
  ++array.used;
  return layer;
}

void TextureLayers::free(std::uint32_t a, std::uint32_t layer) {
  if (a >= arrays_.size() || layer >= arrays_[a].layers.size() || arrays_[a].layers[layer] == kNone) return;
  arrays_[a].layers[layer] = kNone;
  --arrays_[a].used;
}

void TextureLayers::compact(std::vector<std::uint32_t>& rebuilt, std::vector<unsigned>& deleted) {
  rebuilt.clear();
  deleted.clear();
  for (Array& array : arrays_) {
    if (!array.live || array.used == array.layers.size()) continue;
    if (array.used == 0) {
      deleted.push_back(array.gl);
      array = {};
    }
  }
  for (std::uint32_t a = 0; a < arrays_.size(); ++a) {
    Array& array = arrays_[a];
    if (!array.live) continue;
    if (array.unit == 0) array.unit = take_unit();  // drawn batched from now
    if (array.used == array.layers.size()) continue;
    array.layers.erase(std::remove(array.layers.begin(), array.layers.end(), kNone), array.layers.end());
    rebuilt.push_back(a);
  }
}

std::uint64_t TextureLayers::bytes() const {
  std::uint64_t total = 0;
  for (const Array& a : arrays_)
    if (a.live) total += a.layers.size() * a.shape.bytes;
  return total;
}

std::uint64_t TextureLayers::slack() const {
  std::uint64_t total = 0;
  for (const Array& a : arrays_)
    if (a.live) total += (a.layers.size() - a.used) * a.shape.bytes;
  return total;
}

}  // namespace sceneria
