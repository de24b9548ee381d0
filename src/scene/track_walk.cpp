#include "scene/track_walk.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace sceneria::scene {
namespace {

constexpr int kSamples = 64;

// Lengths from t = 0 to t = i / kSamples.
std::array<double, kSamples + 1> lengths_of(const TrackCurve& c) {
  std::array<double, kSamples + 1> out{};
  glm::dvec3 prev = bezier_point(c.p, 0.0);
  for (int i = 1; i <= kSamples; ++i) {
    const glm::dvec3 q = bezier_point(c.p, static_cast<double>(i) / kSamples);
    out[static_cast<std::size_t>(i)] = out[static_cast<std::size_t>(i - 1)] + glm::length(q - prev);
    prev = q;
  }
  return out;
}

// The t at arc length `s` (0 <= s <= total): the sample interval holding it, then within it the t
// whose chord from the interval's start is the length left (exact on straight pieces).
double t_at(const TrackCurve& c, const std::array<double, kSamples + 1>& lengths, double s) {
  const auto it = std::lower_bound(lengths.begin(), lengths.end(), s);
  if (it == lengths.begin()) return 0.0;
  if (it == lengths.end()) return 1.0;
  const auto i = static_cast<std::size_t>(it - lengths.begin());
  const double want = s - lengths[i - 1];
  const glm::dvec3 from = bezier_point(c.p, static_cast<double>(i - 1) / kSamples);
  double lo = static_cast<double>(i - 1) / kSamples, hi = static_cast<double>(i) / kSamples;
  for (int k = 0; k < 40; ++k) {
    const double mid = 0.5 * (lo + hi);
    (glm::length(bezier_point(c.p, mid) - from) < want ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double curve_length_to(const TrackCurve& curve, double t) {
  const auto lengths = lengths_of(curve);
  const double x = std::clamp(t, 0.0, 1.0) * kSamples;
  const auto i = static_cast<std::size_t>(std::min(std::floor(x), static_cast<double>(kSamples - 1)));
  return lengths[i] + (lengths[i + 1] - lengths[i]) * (x - static_cast<double>(i));
}

TrackPlace nearest_on_tracks(std::span<const TrackCurve> curves, const glm::dvec3& point, double reach) {
  TrackPlace best;
  double best_d = reach;
  const auto ground = [&](double t, const TrackCurve& c) {
    const glm::dvec3 p = bezier_point(c.p, t);
    return std::hypot(p.x - point.x, p.z - point.z);
  };
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const TrackCurve& c = curves[i];
    // The nearest of 64 samples, then narrowed down around it.
    double t = 0, d = ground(0, c);
    for (int k = 1; k <= kSamples; ++k)
      if (const double dk = ground(static_cast<double>(k) / kSamples, c); dk < d) d = dk, t = static_cast<double>(k) / kSamples;
    double step = 1.0 / kSamples;
    for (int k = 0; k < 40; ++k, step *= 0.5)
      for (const double u : {t - step, t + step})
        if (u >= 0 && u <= 1)
          if (const double du = ground(u, c); du < d) d = du, t = u;
    if (d <= best_d) {
      best_d = d;
      best.curve = static_cast<std::int32_t>(i);
      best.t = t;
      best.position = bezier_point(c.p, t);
      best.forward = bezier_direction(c.p, t);
    }
  }
  return best;
}

TrackPlace walk_tracks(std::span<const TrackCurve> curves, std::int32_t start, double distance) {
  TrackPlace place;
  if (start < 0 || static_cast<std::size_t>(start) >= curves.size() || !std::isfinite(distance)) return place;
  const double sign = distance < 0 ? -1.0 : 1.0;  // a negative distance walks backwards
  std::int32_t curve = start;
  double at = 0.0;         // metres from the curve's first end
  double sense = sign;     // +1: the walk runs towards the curve's second end
  double left = std::abs(distance);
  for (int hops = 0; hops < 256; ++hops) {
    const TrackCurve& c = curves[static_cast<std::size_t>(curve)];
    const auto lengths = lengths_of(c);
    const double total = lengths.back();
    const double target = at + left * sense;
    if (target >= 0.0 && target <= total) {
      place.curve = curve;
      place.t = t_at(c, lengths, target);
      place.position = bezier_point(c.p, place.t);
      place.forward = bezier_direction(c.p, place.t) * (sense * sign);
      return place;
    }
    const int end = target > total ? 1 : 0;
    left -= end == 1 ? total - at : at;
    const std::int32_t next = c.next[end];
    if (next < 0 || static_cast<std::size_t>(next) >= curves.size()) {
      const glm::dvec3 out = bezier_direction(c.p, end) * (end == 1 ? 1.0 : -1.0);  // away from the curve
      place.off_end = true;
      place.position = bezier_point(c.p, end) + out * left;
      place.forward = out * sign;
      return place;
    }
    // Entered at its first end the walk runs the next curve's way, at its second end against it.
    const std::uint8_t enter = c.next_end[end];
    curve = next;
    at = enter == 0 ? 0.0 : lengths_of(curves[static_cast<std::size_t>(next)]).back();
    sense = enter == 0 ? 1.0 : -1.0;
  }
  return place;
}

}  // namespace sceneria::scene
