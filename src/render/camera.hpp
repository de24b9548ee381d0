#pragma once
// Cameras produce matrices for camera-relative rendering: the eye sits at the origin of render
// space and world positions are offset by -eye in double precision before they become floats,
// so depth and vertex precision hold hundreds of kilometres from the world origin.
#include <glm/glm.hpp>

namespace sceneria {

struct CameraMatrices {
  glm::dvec3 eye{0.0};      // world position of the eye
  glm::mat4 view{1.0f};     // rotation only (render space is eye-centred)
  glm::mat4 projection{1.0f};
  glm::mat4 view_projection{1.0f};
};

// Orbit camera: yaw/pitch around a target at a distance. Y is up (MaSzyna's convention).
class OrbitCamera {
 public:
  glm::dvec3 target{0.0};
  double distance = 180.0;
  double yaw = glm::radians(35.0);    // around +Y, 0 looks along -Z
  double pitch = glm::radians(30.0);  // above the horizon, positive looks down
  double fov_y = glm::radians(55.0);

  void orbit(double dx_pixels, double dy_pixels);
  void pan(double dx_pixels, double dy_pixels, double viewport_height);
  void zoom(double wheel_steps);  // positive zooms in
  glm::dvec3 eye() const;
  CameraMatrices matrices(int width, int height) const;
};

// World point -> window pixel (origin top-left), or false when behind the camera.
bool project_to_window(const CameraMatrices& m, const glm::dvec3& world, int width, int height,
                       glm::dvec2& out);

}  // namespace sceneria
