#pragma once
// The three ways to move through a scenery: orbit (default), fly (WASD + mouse look), and drive
// (ride along connected tracks like a cab view). Pure maths: input comes in as deltas and key
// states, so it runs and is tested natively.
#include <cstddef>
#include <cstdint>

#include <glm/glm.hpp>

#include "render/camera.hpp"
#include "scene/scene.hpp"

namespace sceneria {

enum class CameraMode : std::uint8_t { orbit = 0, fly = 1, drive = 2 };

struct MoveInput {  // held keys for this frame
  bool forward = false, back = false, left = false, right = false, up = false, down = false, fast = false;
};

// The box of what `scene` draws, in world coordinates: its static geometry and each instance's
// mesh box as placed (rotated and scaled). False when it draws nothing. Tighter than the scene's
// bounds, which are padded for culling (a model's mesh far from its own origin, like a cab's
// parts, padded them to twice its size), so that a framed model fills the view.
bool drawn_bounds(const scene::Scene& scene, glm::dvec3& lo, glm::dvec3& hi);

class CameraRig {
 public:
  CameraMode mode() const { return mode_; }
  void set_mode(CameraMode mode);  // keeps the current eye and view direction where possible

  OrbitCamera& orbit() { return orbit_; }
  const OrbitCamera& orbit() const { return orbit_; }

  // Frames a world box from the orbit camera at its current angles, as close as a view of
  // `aspect` (width / height) shows all of it with a tenth to spare (the start view, F).
  void frame(const glm::dvec3& lo, const glm::dvec3& hi, double aspect = 1.0);
  // The same for what `scene` draws: each vertex as placed where the scene has at most
  // `vertex_limit` (a model: its own shape, not its parts' boxes), else each placed mesh's box.
  // False, and the camera unmoved, when the scene draws nothing.
  bool frame_scene(const scene::Scene& scene, double aspect = 1.0, std::size_t vertex_limit = 2'000'000);
  // The same for a ball (an object: its anchor and radius; "go to").
  void frame_ball(const glm::dvec3& centre, double radius, double aspect = 1.0);
  void look_at(const glm::dvec3& target, double distance);

  void drag(double dx, double dy);           // orbit: rotate; fly: look
  void pan(double dx, double dy, double h);  // orbit only
  void wheel(double steps);                  // orbit: zoom; fly: speed; drive: speed
  void update(double seconds, const MoveInput& input);

  // Drive mode along scene.tracks, starting on `curve` (at its start, forwards).
  // From `t` on the curve, its way (`direction` 1) or against it (-1).
  bool drive(const scene::Scene& scene, int curve, double t = 0.0, int direction = 1);
  double drive_speed() const { return drive_speed_; }   // metres per second, signed by direction
  int drive_curve() const { return curve_; }

  glm::dvec3 eye() const;
  glm::dvec3 forward() const;
  CameraMatrices matrices(int width, int height) const;

  // Fly speed in metres per second: fly_speed_for what is shown, then the wheel's.
  double fly_speed = 40.0;
  // A speed that crosses `extent` metres (what is shown) in about twenty seconds.
  static double fly_speed_for(double extent);

 private:
  CameraMode mode_ = CameraMode::orbit;
  OrbitCamera orbit_;
  glm::dvec3 position_{0.0};  // fly/drive eye
  double yaw_ = 0.0, pitch_ = 0.0;
  const scene::Scene* scene_ = nullptr;
  int curve_ = -1;
  double t_ = 0.0;
  int direction_ = 1;
  double drive_speed_ = 20.0;
};

}  // namespace sceneria
