#include "formats/eu7b/vehicles.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "formats/mmd/vehicle.hpp"
#include "scene/track_walk.hpp"

namespace sceneria::eu7b {
namespace {

// The engine adds it to a rail track's ends when it loads them (notes §9): the rails' top, where
// axles run.
constexpr double kRailHeight = 0.18;

std::string text(const Module& m, Sid id) { return id == kNoString || id >= m.strings.size() ? std::string() : std::string(m.strings[id]); }

std::string slashes(std::string s) {
  std::replace(s.begin(), s.end(), '\\', '/');
  return s;
}

// The skin a record names, as Init takes it: its extension dropped (erase_extension).
std::string skin_of(std::string skin) {
  skin = slashes(std::move(skin));
  const auto slash = skin.rfind('/'), dot = skin.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) skin.resize(dot);
  return skin;
}

std::vector<const Dynamic*> dynamics_of(const Module& m) {
  std::vector<const Dynamic*> out;
  for (const Chunk& c : m.chunks)
    if (const auto* list = std::get_if<RecordList<Dynamic>>(&c.data))
      for (const Dynamic& r : list->records) out.push_back(&r);
  return out;
}
std::vector<const Trainset*> trainsets_of(const Module& m) {
  std::vector<const Trainset*> out;
  for (const Chunk& c : m.chunks)
    if (const auto* list = std::get_if<std::vector<Trainset>>(&c.data))
      for (const Trainset& r : *list) out.push_back(&r);
  return out;
}

// The vehicles of trainset `group` (trainset_groups' numbering), in the trainset's order.
std::vector<std::uint64_t> trainset_members(const Module& module, std::uint64_t group) {
  const auto trainsets = trainsets_of(module);
  const std::size_t count = dynamics_of(module).size();
  std::vector<std::uint64_t> out;
  if (group < trainsets.size()) {
    for (std::uint32_t v : trainsets[static_cast<std::size_t>(group)]->vehicles)
      if (v < count) out.push_back(v);
    return out;
  }
  if (group > trainsets.size()) return out;
  std::vector<char> taken(count, 0);
  for (const Trainset* t : trainsets)
    for (std::uint32_t v : t->vehicles)
      if (v < count) taken[v] = 1;
  for (std::size_t v = 0; v < count; ++v)
    if (!taken[v]) out.push_back(v);
  return out;
}

}  // namespace

Vehicles read_vehicles(const Module& module, AssetResolver* assets) {
  Vehicles out;
  std::map<std::string, mmd::VehicleType> types;  // folder + type + skin
  for (const Dynamic* d : dynamics_of(module)) {
    VehicleLook look;
    std::string folder = slashes(text(module, d->data_folder));
    while (!folder.empty() && folder.back() == '/') folder.pop_back();
    look.folder = "dynamic/" + folder + "/";
    look.type = slashes(text(module, d->mmd));
    look.skin = skin_of(text(module, d->skin));
    if (look.skin.empty()) look.skin = "none";
    if (assets) {
      const std::string key = look.folder + "\n" + look.type + "\n" + look.skin;
      auto it = types.find(key);
      if (it == types.end())
        it = types.emplace(key, mmd::read_vehicle_type(*assets, look.folder, look.type, {text(module, d->node.name), look.type, look.skin})).first;
      const mmd::VehicleType& t = it->second;
      look.length = t.length(), look.width = t.width(), look.height = t.height(), look.axle_base = t.axle_base();
      look.sized = t.sized();
      look.model = t.definition.model;
      if (t.has_mmd) look.mmd = normalize_asset_path(look.folder + look.type + ".mmd").value_or("");
      look.missing = t.missing;
    } else {
      look.missing = {look.folder + look.type + ".mmd", look.folder + look.type + ".fiz"};
    }
    if (!look.sized) look.axle_base = std::clamp(look.length * 0.7, 0.2, look.length - 0.2);
    out.looks.push_back(std::move(look));
  }
  return out;
}


std::vector<ListGroup> trainset_groups(const Module& module) {
  std::vector<ListGroup> out;
  const auto trainsets = trainsets_of(module);
  for (const Trainset* t : trainsets)
    out.push_back({out.size(), fmt::format("trainset {} on {}", text(module, t->name), text(module, t->track)), t->vehicles.size()});
  if (const auto alone = trainset_members(module, trainsets.size()); !alone.empty())
    out.push_back({out.size(), "vehicles on their own", alone.size()});
  return out;
}


nlohmann::ordered_json trainset_rows(const Document& document, const Module& module, std::uint64_t group, std::uint64_t first,
                                     std::uint64_t count) {
  auto out = nlohmann::ordered_json::array();
  const auto members = trainset_members(module, group);
  for (std::uint64_t k = first; k < members.size() && k < first + count; ++k)
    for (auto& row : document.rows("dynamics", members[static_cast<std::size_t>(k)], 1)) out.push_back(std::move(row));
  return out;
}

nlohmann::ordered_json with_vehicle(nlohmann::ordered_json record, const Module& module, const Vehicles& vehicles, std::uint64_t index) {
  using ojson = nlohmann::ordered_json;
  if (!record.is_object() || index >= vehicles.looks.size()) return record;
  const VehicleLook& look = vehicles.looks[static_cast<std::size_t>(index)];
  ojson v;
  v["folder"] = look.folder;
  v["type"] = look.type;
  v["mmd"] = look.mmd.empty() ? std::string("(not found)") : look.mmd;
  if (!look.model.empty()) v["model"] = look.model;
  v["skin_set"] = look.skin;
  v["length_m"] = look.length;
  v["width_m"] = look.width;
  v["height_m"] = look.height;
  v["axle_base_m"] = look.axle_base;
  v["size_from"] = look.sized ? "its .fiz (Dimensions: L W H, Wheels: Ad Bd)" : "a stand-in (its .fiz was not found)";
  if (!look.missing.empty()) v["missing"] = look.missing;
  ojson& out = record;
  out["vehicle"] = std::move(v);
  const auto dynamics = dynamics_of(module);
  for (const Trainset* t : trainsets_of(module)) {
    const auto at = std::find(t->vehicles.begin(), t->vehicles.end(), static_cast<std::uint32_t>(index));
    if (at == t->vehicles.end()) continue;
    auto members = ojson::array();
    for (std::uint32_t m : t->vehicles) members.push_back(m < dynamics.size() ? text(module, dynamics[m]->node.name) : std::string("?"));
    out["trainset"] = {{"name", text(module, t->name)}, {"track", text(module, t->track)}, {"offset", t->offset}, {"velocity", t->velocity},
                       {"position", (at - t->vehicles.begin()) + 1}, {"of", t->vehicles.size()}, {"vehicles", std::move(members)}};
    break;
  }
  return record;
}

std::vector<VehiclePose> place_vehicles(const Module& module, const Vehicles& vehicles, std::span<const scene::TrackCurve> curves,
                                        const std::map<std::string, std::int32_t>& curve_of_track) {
  const auto dynamics = dynamics_of(module);
  std::vector<VehiclePose> poses(dynamics.size());
  // One vehicle, `distance` metres on from its track's first end to its front coupler (Init's fDist).
  const auto stand = [&](std::size_t index, const std::string& track, double distance, bool reversed) {
    VehiclePose& pose = poses[index];
    if (!std::isfinite(distance) || std::abs(distance) > 1e7) {
      pose.why = "its offset is no distance along a track";
      return;
    }
    const auto it = curve_of_track.find(track);
    if (it == curve_of_track.end()) {
      pose.why = fmt::format("its track {} is not a rail track of the scenery", track.empty() ? "(none)" : track);
      return;
    }
    const VehicleLook& look = vehicles.looks[index];
    const double middle = distance - 0.5 * look.length, half = 0.5 * look.axle_base;
    // The front axle runs ahead of the middle the way the vehicle faces: towards the track's
    // second end, or its first for a vehicle turned round.
    const double front = reversed ? middle - half : middle + half, rear = reversed ? middle + half : middle - half;
    const scene::TrackPlace a = scene::walk_tracks(curves, it->second, front), b = scene::walk_tracks(curves, it->second, rear);
    glm::dvec3 ahead = a.position - b.position;
    if (glm::length(ahead) < 1e-6) ahead = a.forward * (reversed ? -1.0 : 1.0);
    ahead = glm::normalize(ahead);
    const glm::dvec3 left = glm::normalize(glm::length(glm::cross(glm::dvec3(0, 1, 0), ahead)) < 1e-9 ? glm::dvec3(1, 0, 0) : glm::cross(glm::dvec3(0, 1, 0), ahead));
    const glm::dvec3 up = glm::cross(ahead, left);
    pose.position = 0.5 * (a.position + b.position) + glm::dvec3(0, kRailHeight, 0);
    pose.rotation = glm::quat_cast(glm::dmat3(left, up, ahead));
    pose.placed = true;
  };
  std::vector<char> in_trainset(dynamics.size(), 0);
  for (const Trainset* t : trainsets_of(module)) {
    double offset = t->offset;
    for (std::uint32_t v : t->vehicles) {
      if (v >= dynamics.size() || in_trainset[v]) continue;
      in_trainset[v] = 1;
      const double own = dynamics[v]->offset;
      const bool reversed = own == -1.0f;
      stand(v, text(module, t->track), reversed ? offset : offset - own, reversed);
      offset -= vehicles.looks[v].length;
    }
  }
  for (std::size_t v = 0; v < dynamics.size(); ++v) {
    if (in_trainset[v]) continue;
    // On its own: the serializer's cleared trainset offset (0) less its own.
    const double own = dynamics[v]->offset;
    const bool reversed = own == -1.0f;
    stand(v, text(module, dynamics[v]->track), reversed ? 0.0 : -own, reversed);
  }
  return poses;
}

}  // namespace sceneria::eu7b
