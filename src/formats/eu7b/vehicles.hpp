#pragma once
// A scenery's vehicles (DYNM records, in trainsets: TRSE) stood on their tracks as the engine
// stands them (simulationstateserializer.cpp deserialize_dynamic, DynObj.cpp
// TDynamicObject::Init): a trainset's vehicles one after another from its offset back towards the
// track's first end, each its .fiz length on from the last, a vehicle with offset -1 turned round;
// each vehicle's two axles walked along the track graph (scene/track_walk.hpp), the body midway
// between them, facing from the rear axle to the front one. Their sizes and files come from their
// folders (`dynamic/<data folder>/<type>.mmd` and `.fiz`), read while the files are at hand.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <nlohmann/json.hpp>

#include "formats/document.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "io/assets.hpp"
#include "scene/scene.hpp"

namespace sceneria::eu7b {

// What a vehicle (one DYNM record) is drawn and placed with.
struct VehicleLook {
  double length = 20.0, width = 2.9, height = 4.0, axle_base = 10.0;
  bool sized = false;    // the size is its .fiz's (else a stand-in)
  std::string folder;    // "dynamic/pkp/eu160_v1/"
  std::string type;      // "eu160"
  std::string mmd;       // the .mmd found, normalized ("" : none: the vehicle stays a box)
  std::string skin;      // the skin set its record names ("none": the model's own textures)
  std::string model;     // the .mmd's main model
  std::vector<std::string> missing;  // its files that were not found
};

struct Vehicles {
  std::vector<VehicleLook> looks;  // per DYNM record, in the module's order
};

// Every DYNM record's folder read through `assets` (each type once); nullptr: nothing is read,
// every vehicle a stand-in box.
Vehicles read_vehicles(const Module& module, AssetResolver* assets);

// Where a vehicle stands; `placed` false when its track is not in the scene (`why`).
struct VehiclePose {
  glm::dvec3 position{0.0};         // midway between its axles, on the rails
  glm::dquat rotation{1, 0, 0, 0};  // its model's +Z to its front, +Y up
  bool placed = false;
  std::string why;
};

// A picked vehicle's DYNM record (`record`, as the document gives it) with its trainset (name,
// place in it, the others) and its folder's files and size (the .fiz summary) added; anything
// else (null, past the vehicles) comes back as it went in.
nlohmann::ordered_json with_vehicle(nlohmann::ordered_json record, const Module& module, const Vehicles& vehicles, std::uint64_t index);

// The outliner's trainset -> vehicles: the vehicles list (DYNM) in one group per trainset, in
// the trainset's order, then one of the vehicles standing on their own (if any); ids count from 0.
std::vector<ListGroup> trainset_groups(const Module& module);
// The document's rows of the vehicles (its "dynamics" list) in trainset group `group`.
nlohmann::ordered_json trainset_rows(const Document& document, const Module& module, std::uint64_t group, std::uint64_t first,
                                     std::uint64_t count);

// `curve_of_track`: a track's name to its first curve in `curves` (a switch: its first path).
std::vector<VehiclePose> place_vehicles(const Module& module, const Vehicles& vehicles, std::span<const scene::TrackCurve> curves,
                                        const std::map<std::string, std::int32_t>& curve_of_track);

}  // namespace sceneria::eu7b
