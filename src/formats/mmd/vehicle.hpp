#pragma once
// A vehicle type as the engine loads one (TDynamicObject::Init): `<folder>/<type>.mmd` for its
// looks and `<folder>/<type>.fiz` for its size, both from the vehicle's folder (a scenery's
// `dynamic/<data folder>/`), includes followed there. What a dropped vehicle folder and a
// scenery's vehicles are built from.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/fiz/fiz.hpp"
#include "formats/mmd/mmd.hpp"
#include "io/assets.hpp"

namespace sceneria::mmd {

struct VehicleType {
  std::string folder;  // normalized, ending in '/' ("dynamic/pkp/eu160_v1/")
  std::string type;    // the .mmd's and .fiz's name without extension ("eu160")
  bool has_mmd = false, has_fiz = false;
  Definition definition;
  fiz::Dimensions dimensions;
  std::vector<std::string> missing;  // files not found, as the asset resolver was asked for them

  // The size it is placed and drawn with: the .fiz's, else a stand-in (kDefault*) that the
  // caller says is one (`sized()` false).
  // A size no vehicle has (not a number, not above 0, 1 km or more: a hostile or broken file)
  // counts as none.
  double length() const { return sane(dimensions.length, kDefaultLength); }
  double width() const { return sane(dimensions.width, kDefaultWidth); }
  double height() const { return sane(dimensions.height, kDefaultHeight); }
  bool sized() const { return sane(dimensions.length, -1.0) > 0; }
  // The spacing of the two axles the engine walks along the track (Init: the larger of Bd and Ad,
  // within 0.2 m of either end).
  double axle_base() const;

  static constexpr double kDefaultLength = 20.0, kDefaultWidth = 2.9, kDefaultHeight = 4.0;

 private:
  static double sane(const std::optional<double>& v, double fallback) { return v && *v > 0 && *v < 1000 ? *v : fallback; }
};

// Reads the type's .mmd and .fiz through `assets` (missing ones are recorded there and in
// `missing`). `params`: the .mmd's (p1) name, (p2) type and (p3) skin. `mmd`: the .mmd's bytes
// where the caller has them (the .mmd opened itself), else read from `assets`.
VehicleType read_vehicle_type(AssetResolver& assets, const std::string& folder, const std::string& type, const Params& params,
                              const std::vector<std::uint8_t>* mmd = nullptr);

// The model file candidates for a name a .mmd gives, in the vehicle's folder: `.e3d` before
// `.t3d` whatever extension it is written with (TModelsManager::GetModel).
std::vector<std::string> model_files(const std::string& folder, const std::string& name);

}  // namespace sceneria::mmd
