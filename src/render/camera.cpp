#include "render/camera.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace sceneria {

namespace {
constexpr double kMinPitch = glm::radians(-89.0);
constexpr double kMaxPitch = glm::radians(89.0);
constexpr double kRadiansPerPixel = 0.005;
}  // namespace

void OrbitCamera::orbit(double dx, double dy) {
  yaw -= dx * kRadiansPerPixel;
  pitch = std::clamp(pitch + dy * kRadiansPerPixel, kMinPitch, kMaxPitch);
}

void OrbitCamera::pan(double dx, double dy, double viewport_height) {
  // One pixel moves the target by the world size of a pixel at the target's distance.
  const double world_per_pixel = 2.0 * distance * std::tan(fov_y * 0.5) / std::max(1.0, viewport_height);
  const glm::dvec3 right(std::cos(yaw), 0.0, -std::sin(yaw));
  const glm::dvec3 forward_flat(-std::sin(yaw), 0.0, -std::cos(yaw));
  target += (-dx * right + dy * forward_flat) * world_per_pixel;
}

void OrbitCamera::zoom(double steps) {
  distance = std::clamp(distance * std::pow(0.85, steps), 0.05, 2.0e6);  // a 3 cm knob in a cab, close up
}

glm::dvec3 OrbitCamera::eye() const {
  const glm::dvec3 back(std::sin(yaw) * std::cos(pitch), std::sin(pitch), std::cos(yaw) * std::cos(pitch));
  return target + back * distance;
}

CameraMatrices OrbitCamera::matrices(int width, int height) const {
  CameraMatrices m;
  m.eye = eye();
  const glm::vec3 to_target(target - m.eye);
  m.view = glm::lookAt(glm::vec3(0.0f), to_target, glm::vec3(0.0f, 1.0f, 0.0f));
  const float aspect = static_cast<float>(std::max(1, width)) / static_cast<float>(std::max(1, height));
  // Near plane scales with distance so depth precision follows the zoom level.
  const float near_plane = static_cast<float>(std::clamp(distance * 0.01, 0.01, 50.0));
  m.projection = glm::perspective(static_cast<float>(fov_y), aspect, near_plane, 1.0e6f);
  m.view_projection = m.projection * m.view;
  return m;
}

bool project_to_window(const CameraMatrices& m, const glm::dvec3& world, int width, int height,
                       glm::dvec2& out) {
  const glm::vec4 clip = m.view_projection * glm::vec4(glm::vec3(world - m.eye), 1.0f);
  if (clip.w <= 0.0f) return false;
  const double ndc_x = clip.x / clip.w;
  const double ndc_y = clip.y / clip.w;
  out.x = (ndc_x * 0.5 + 0.5) * width;
  out.y = (1.0 - (ndc_y * 0.5 + 0.5)) * height;
  return true;
}

}  // namespace sceneria
