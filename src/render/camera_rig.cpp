#include "render/camera_rig.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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

bool drawn_bounds(const scene::Scene& scene, glm::dvec3& lo, glm::dvec3& hi) {
  lo = glm::dvec3(std::numeric_limits<double>::infinity());
  hi = -lo;
  for (const scene::Section& s : scene.sections) {
    for (const scene::Batch& b : s.batches) {
      if (b.overlay) continue;
      for (const glm::vec3& p : b.positions) {
        lo = glm::min(lo, s.origin + glm::dvec3(p));
        hi = glm::max(hi, s.origin + glm::dvec3(p));
      }
    }
    for (const scene::Instance& i : s.instances) {
      if (i.mesh < scene.mesh_base || i.mesh - scene.mesh_base >= scene.meshes.size()) continue;
      const scene::Mesh& m = scene.meshes[i.mesh - scene.mesh_base];
      if (m.positions.empty() || m.bounds_min.x > m.bounds_max.x) continue;
      for (int corner = 0; corner < 8; ++corner) {
        const glm::vec3 c((corner & 1) ? m.bounds_max.x : m.bounds_min.x, (corner & 2) ? m.bounds_max.y : m.bounds_min.y,
                          (corner & 4) ? m.bounds_max.z : m.bounds_min.z);
        const glm::dvec3 p = s.origin + glm::dvec3(i.offset) + glm::dvec3(i.rotation * (c * i.scale));
        lo = glm::min(lo, p);
        hi = glm::max(hi, p);
      }
    }
  }
  return lo.x <= hi.x;
}

double CameraRig::fly_speed_for(double extent) { return std::clamp(extent / 20.0, 0.5, 300.0); }

namespace {
// How far back from `centre`, at the orbit's angles, the eye must be for every point added to
// show in a view of `aspect` with a tenth to spare: a point at depth (distance - z) fits when
// |x| <= tx * depth and |y| <= ty * depth.
class ViewFit {
 public:
  ViewFit(const OrbitCamera& orbit, const glm::dvec3& centre, double aspect) : centre_(centre) {
    OrbitCamera unit = orbit;  // the view's axes: `back_` from the target towards the eye
    unit.target = glm::dvec3(0.0);
    unit.distance = 1.0;
    back_ = glm::normalize(unit.eye());
    right_ = glm::normalize(glm::cross(glm::dvec3(0, 1, 0), back_));
    up_ = glm::cross(back_, right_);
    ty_ = std::tan(orbit.fov_y * 0.5) * 0.9;
    tx_ = ty_ * std::max(aspect, 1e-3);
  }
  void add(const glm::dvec3& p) {
    const glm::dvec3 r = p - centre_;
    const double z = glm::dot(r, back_);
    distance_ = std::max({distance_, z + std::abs(glm::dot(r, right_)) / tx_, z + std::abs(glm::dot(r, up_)) / ty_});
  }
  void add_box(const glm::dvec3& lo, const glm::dvec3& hi) {
    for (int corner = 0; corner < 8; ++corner)
      add({(corner & 1) ? hi.x : lo.x, (corner & 2) ? hi.y : lo.y, (corner & 4) ? hi.z : lo.z});
  }
  double distance() const { return distance_; }

 private:
  glm::dvec3 centre_, back_{0, 0, 1}, right_{1, 0, 0}, up_{0, 1, 0};
  double tx_ = 1.0, ty_ = 1.0, distance_ = 0.0;
};
}  // namespace

void CameraRig::frame(const glm::dvec3& lo, const glm::dvec3& hi, double aspect) {
  const glm::dvec3 centre = (lo + hi) * 0.5;
  ViewFit fit(orbit_, centre, aspect);
  fit.add_box(lo, hi);
  // A flat box seen edge-on, or a point: still a step back from it.
  const double size = glm::length(hi - lo);
  look_at(centre, std::clamp(std::max(fit.distance(), size * 0.5 + 0.05), 0.05, 1.5e6));
}

bool CameraRig::frame_scene(const scene::Scene& scene, double aspect, std::size_t vertex_limit) {
  glm::dvec3 lo, hi;
  if (!drawn_bounds(scene, lo, hi)) return false;
  std::size_t vertices = 0;
  for (const scene::Section& s : scene.sections) {
    for (const scene::Batch& b : s.batches) vertices += b.positions.size();
    for (const scene::Instance& i : s.instances)
      if (i.mesh >= scene.mesh_base && i.mesh - scene.mesh_base < scene.meshes.size()) vertices += scene.meshes[i.mesh - scene.mesh_base].positions.size();
  }
  if (vertices > vertex_limit) {
    frame(lo, hi, aspect);
    return true;
  }
  // A model's parts' boxes reach well past its shape at most angles (a cab seen from a corner
  // filled half the view): its vertices, as placed, decide.
  const glm::dvec3 centre = (lo + hi) * 0.5;
  ViewFit fit(orbit_, centre, aspect);
  for (const scene::Section& s : scene.sections) {
    for (const scene::Batch& b : s.batches)
      if (!b.overlay)
        for (const glm::vec3& p : b.positions) fit.add(s.origin + glm::dvec3(p));
    for (const scene::Instance& i : s.instances) {
      if (i.mesh < scene.mesh_base || i.mesh - scene.mesh_base >= scene.meshes.size()) continue;
      const glm::dvec3 at = s.origin + glm::dvec3(i.offset);
      for (const glm::vec3& p : scene.meshes[i.mesh - scene.mesh_base].positions) fit.add(at + glm::dvec3(i.rotation * (p * i.scale)));
    }
  }
  look_at(centre, std::clamp(std::max(fit.distance(), 0.05), 0.05, 1.5e6));
  return true;
}

void CameraRig::frame_ball(const glm::dvec3& centre, double radius, double aspect) {
  const double half = std::atan(std::tan(orbit_.fov_y * 0.5) * std::min(1.0, std::max(aspect, 1e-3)));
  look_at(centre, std::clamp(std::max(radius, 0.01) / std::sin(half) / 0.9, 0.05, 1.5e6));
}

void CameraRig::look_at(const glm::dvec3& target, double distance) {
  orbit_.target = target;
  orbit_.distance = std::clamp(distance, 0.05, 2.0e6);
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
  else if (mode_ == CameraMode::fly) fly_speed = std::clamp(fly_speed * std::pow(1.25, steps), 0.1, 5000.0);
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
