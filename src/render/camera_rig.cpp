#include "render/camera_rig.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace sceneria {

namespace {
constexpr double kCabHeight = 3.4;  // eye above the rail head, metres
constexpr double kMaxPitch = glm::radians(89.0);

glm::dvec3 direction_of(double yaw, double pitch) {
  return {-std::sin(yaw) * std::cos(pitch), -std::sin(pitch), -std::cos(yaw) * std::cos(pitch)};
}
}  // namespace

void CameraRig::set_mode(CameraMode mode) {
  if (mode == mode_) return;
  const glm::dvec3 eye_now = eye(), dir = forward();
  if (mode == CameraMode::fly) {
    position_ = eye_now;
    yaw_ = std::atan2(-dir.x, -dir.z);
    pitch_ = std::asin(std::clamp(-dir.y, -1.0, 1.0));
  } else if (mode == CameraMode::orbit) {
    // Orbit around the point 50 m ahead of the current view.
    orbit_.target = eye_now + dir * 50.0;
    orbit_.distance = 50.0;
    orbit_.yaw = std::atan2(-dir.x, -dir.z);
    orbit_.pitch = std::asin(std::clamp(-dir.y, -1.0, 1.0));
  } else if (mode == CameraMode::drive && curve_ < 0) {
    return;  // drive() starts it
  }
  mode_ = mode;
}

void CameraRig::frame(const glm::dvec3& lo, const glm::dvec3& hi) {
  const glm::dvec3 centre = (lo + hi) * 0.5;
  // A model of a metre or two fills the view too (a dropped model file), not only a scenery.
  const double radius = std::max(1.0, glm::length(hi - lo) * 0.5);
  look_at(centre, std::min(radius * 1.6, 1.5e6));
}

void CameraRig::look_at(const glm::dvec3& target, double distance) {
  orbit_.target = target;
  orbit_.distance = std::clamp(distance, 2.0, 2.0e6);
  mode_ = CameraMode::orbit;
}

void CameraRig::drag(double dx, double dy) {
  if (mode_ == CameraMode::orbit) {
    orbit_.orbit(dx, dy);
  } else {
    yaw_ -= dx * 0.004;
    pitch_ = std::clamp(pitch_ + dy * 0.004, -kMaxPitch, kMaxPitch);
  }
}

void CameraRig::pan(double dx, double dy, double h) {
  if (mode_ == CameraMode::orbit) orbit_.pan(dx, dy, h);
}

void CameraRig::wheel(double steps) {
  if (mode_ == CameraMode::orbit) orbit_.zoom(steps);
  else if (mode_ == CameraMode::fly) fly_speed = std::clamp(fly_speed * std::pow(1.25, steps), 1.0, 5000.0);
  else drive_speed_ = std::clamp(drive_speed_ + steps * 2.5, -60.0, 60.0);  // about ±216 km/h
}

bool CameraRig::drive(const scene::Scene& scene, int curve, double t, int direction) {
  if (curve < 0 || curve >= static_cast<int>(scene.tracks.size())) return false;
  scene_ = &scene;
  curve_ = curve;
  t_ = std::clamp(t, 0.0, 1.0);
  direction_ = direction < 0 ? -1 : 1;
  pitch_ = glm::radians(4.0);
  mode_ = CameraMode::drive;
  return true;
}

void CameraRig::update(double seconds, const MoveInput& in) {
  if (mode_ == CameraMode::fly) {
    const double speed = fly_speed * (in.fast ? 4.0 : 1.0) * seconds;
    const glm::dvec3 f = direction_of(yaw_, pitch_);
    const glm::dvec3 r = glm::normalize(glm::cross(f, glm::dvec3(0, 1, 0)));
    glm::dvec3 move(0.0);
    if (in.forward) move += f;
    if (in.back) move -= f;
    if (in.right) move += r;
    if (in.left) move -= r;
    if (in.up) move.y += 1;
    if (in.down) move.y -= 1;
    if (glm::length(move) > 0) position_ += glm::normalize(move) * speed;
    return;
  }
  if (mode_ != CameraMode::drive || !scene_ || curve_ < 0) return;
  if (in.forward) drive_speed_ = std::min(drive_speed_ + 8.0 * seconds, 60.0);
  if (in.back) drive_speed_ = std::max(drive_speed_ - 8.0 * seconds, -60.0);
  // Advance along the curve graph by arc length; a dead end stops the ride. A curve's t is not
  // uniform in length (control points bunched at one end), so t moves by the metres left over
  // the metres per unit t where it is, in short steps: a step of t in proportion to the curve's
  // length ran fast through the curve's stretched parts and slow through the rest.
  double distance = drive_speed_ * seconds;
  int steps_left = 1 << 16;  // a long pause between frames on tight curves stops short, not hangs
  for (int hops = 0; hops < 64 && std::abs(distance) > 1e-9; ++hops) {
    const scene::TrackCurve& c = scene_->tracks[static_cast<std::size_t>(curve_)];
    const double fallback = std::max(c.length, 0.01);  // a degenerate curve: its length, evenly
    const auto rate = [&](double at) {
      const double r = glm::length(scene::bezier_derivative(c.p, std::clamp(at, 0.0, 1.0)));
      return r > 1e-6 ? r : fallback;
    };
    double t = t_, step = 0;
    while (std::abs(distance) > 1e-9 && --steps_left > 0) {
      // At most a metre and a fiftieth of the curve's t a step, t at the step's middle.
      const double r = rate(t_);
      const double limit = std::max(std::min(1.0, 0.02 * r), 0.05);
      step = std::clamp(distance, -limit, limit);
      t = t_ + step * direction_ / rate(t_ + 0.5 * step * direction_ / r);
      if (t < 0.0 || t > 1.0) break;
      t_ = t;
      distance -= step;
    }
    if ((t >= 0.0 && t <= 1.0) || steps_left <= 0) break;
    const int end = t > 1.0 ? 1 : 0;
    const double used = std::abs((end - t_) / (t - t_) * step);
    distance -= std::copysign(used, distance);
    if (c.next[end] < 0) {
      t_ = end;
      drive_speed_ = 0.0;
      break;
    }
    const std::uint8_t enter = c.next_end[end];
    curve_ = c.next[end];
    t_ = enter == 0 ? 0.0 : 1.0;
    // t moved towards `end` on the old curve and must move away from `enter` on the new one.
    direction_ = direction_ * (end == 1 ? 1 : -1) * (enter == 0 ? 1 : -1);
  }
}

glm::dvec3 CameraRig::eye() const {
  if (mode_ == CameraMode::orbit) return orbit_.eye();
  if (mode_ == CameraMode::drive && scene_ && curve_ >= 0) {
    const scene::TrackCurve& c = scene_->tracks[static_cast<std::size_t>(curve_)];
    return scene::bezier_point(c.p, t_) + glm::dvec3(0, kCabHeight, 0);
  }
  return position_;
}

glm::dvec3 CameraRig::forward() const {
  if (mode_ == CameraMode::orbit) return glm::normalize(orbit_.target - orbit_.eye());
  if (mode_ == CameraMode::drive && scene_ && curve_ >= 0) {
    const scene::TrackCurve& c = scene_->tracks[static_cast<std::size_t>(curve_)];
    glm::dvec3 f = scene::bezier_direction(c.p, t_) * static_cast<double>(direction_);
    f.y -= std::sin(pitch_);
    return glm::normalize(f);
  }
  return direction_of(yaw_, pitch_);
}

CameraMatrices CameraRig::matrices(int width, int height) const {
  if (mode_ == CameraMode::orbit) return orbit_.matrices(width, height);
  CameraMatrices m;
  m.eye = eye();
  m.view = glm::lookAt(glm::vec3(0.0f), glm::vec3(forward()), glm::vec3(0.0f, 1.0f, 0.0f));
  const float aspect = static_cast<float>(std::max(1, width)) / static_cast<float>(std::max(1, height));
  m.projection = glm::perspective(static_cast<float>(orbit_.fov_y), aspect, 0.3f, 1.0e6f);
  m.view_projection = m.projection * m.view;
  return m;
}

}  // namespace sceneria
