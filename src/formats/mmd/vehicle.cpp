#include "formats/mmd/vehicle.hpp"

#include <algorithm>
#include <cmath>

#include "formats/maszyna/definition_file.hpp"

namespace sceneria::mmd {

double VehicleType::axle_base() const {
  const double l = length();
  double spacing = std::max(dimensions.bogie_spacing.value_or(0), dimensions.axle_spacing.value_or(0));
  if (std::isnan(spacing)) spacing = 0;
  return std::clamp(spacing, 0.2, std::max(0.2, l - 0.2));
}

std::vector<std::string> model_files(const std::string& folder, const std::string& name) {
  std::string base = name;
  const auto slash = base.rfind('/'), dot = base.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) base.resize(dot);
  std::vector<std::string> out;
  for (const char* ext : {".e3d", ".t3d"})
    if (auto key = normalize_asset_path(folder + base + ext)) out.push_back(*key);
  return out;
}

VehicleType read_vehicle_type(AssetResolver& assets, const std::string& folder, const std::string& type, const Params& params,
                              const std::vector<std::uint8_t>* mmd) {
  VehicleType v;
  v.folder = folder;
  v.type = type;
  const auto missing_before = assets.missing().size();
  const auto include = [&](const std::string& name) { return maszyna::read_definition(assets, folder + name); };
  std::optional<std::vector<std::uint8_t>> read;
  if (!mmd && (read = maszyna::read_definition(assets, folder + type + ".mmd"))) mmd = &*read;
  if (mmd) {
    v.has_mmd = true;
    v.definition = read_definition(*mmd, params, include);
  }
  if (auto fiz = maszyna::read_definition(assets, folder + type + ".fiz")) {
    v.has_fiz = true;
    v.dimensions = fiz::dimensions(fiz::read_entries(*fiz, include));
  }
  const auto& missing = assets.missing();
  v.missing.assign(missing.begin() + static_cast<std::ptrdiff_t>(missing_before), missing.end());
  return v;
}

}  // namespace sceneria::mmd
