#pragma once
// The three ways to move through a scenery: orbit (default), fly (WASD + mouse look), and drive
// (ride along connected tracks like a cab view). Pure maths: input comes in as deltas and key
// states, so it runs and is tested natively.
#include <cstdint>

#include <glm/glm.hpp>

#include "render/camera.hpp"
#include "scene/scene.hpp"

namespace sceneria {

enum class CameraMode : std::uint8_t { orbit = 0, fly = 1, drive = 2 };

struct MoveInput {  // held keys for this frame
  bool forward = false, back = false, left = false, right = false, up = false, down = false, fast = false;
};

class CameraRig {
 public:
  CameraMode mode() const { return mode_; }
  void set_mode(CameraMode mode);  // keeps the current eye and view direction where possible

  OrbitCamera& orbit() { return orbit_; }
  const OrbitCamera& orbit() const { return orbit_; }

  // Frames a world box from the orbit camera (start view, "go to").
  void frame(const glm::dvec3& lo, const glm::dvec3& hi);
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

  // Fly speed in metres per second.
  double fly_speed = 40.0;

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
