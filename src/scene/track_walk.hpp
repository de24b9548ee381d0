#pragma once
// Walking the drivable curves (Scene::tracks) by distance, as the engine's track follower moves an
// axle (TrkFoll.cpp TTrackFollower::Move): from a curve's first end along its length, on through
// the curve connected at the end it runs off, turning round where that one is entered from its
// far end; past an end with nothing connected the way goes on straight (the engine's NullCreate).
// Used to stand vehicles on their tracks; format-blind.
#include <cstdint>
#include <span>

#include <glm/glm.hpp>

#include "scene/scene.hpp"

namespace sceneria::scene {

struct TrackPlace {
  std::int32_t curve = -1;     // the curve it is on; -1 past a dead end
  double t = 0.0;              // its Bézier parameter there
  glm::dvec3 position{0.0};
  glm::dvec3 forward{0.0, 0.0, 1.0};  // unit: the way a positive distance goes
  bool off_end = false;        // past a dead end, on the straight beyond it
};

// The place `distance` metres from curve `start`'s first end (negative: back through what is
// connected there), at most 256 curves away.
TrackPlace walk_tracks(std::span<const TrackCurve> curves, std::int32_t start, double distance);

// The point of the curves nearest `point` on the ground (x, z), if one is within `reach` metres:
// where a ride along the track starts from something standing on it (a vehicle's front).
TrackPlace nearest_on_tracks(std::span<const TrackCurve> curves, const glm::dvec3& point, double reach);

// Arc length along a curve from t = 0 to `t` (sampled; a curve's t is not uniform in length).
double curve_length_to(const TrackCurve& curve, double t);

}  // namespace sceneria::scene
