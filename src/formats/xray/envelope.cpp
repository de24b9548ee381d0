#include "formats/xray/envelope.hpp"

#include <cmath>

namespace sceneria::xray {

namespace {

// Key parameters as the file lays them out: tension, continuity, bias, then param[0..3].
float tension(const Key& k) { return k.tcb[0]; }
float continuity(const Key& k) { return k.tcb[1]; }
float bias(const Key& k) { return k.tcb[2]; }
float param(const Key& k, int i) { return k.tcb[static_cast<std::size_t>(3 + i)]; }
KeyShape shape(const Key& k) { return static_cast<KeyShape>(k.shape); }

// The tangent leaving keys[i] towards keys[i + 1].
float outgoing(const std::vector<Key>& keys, std::size_t i) {
  const Key& k0 = keys[i];
  const Key& k1 = keys[i + 1];
  const Key* prev = i > 0 ? &keys[i - 1] : nullptr;
  const float d = k1.value - k0.value;
  switch (shape(k0)) {
    case KeyShape::tcb: {
      const float a = (1 - tension(k0)) * (1 + continuity(k0)) * (1 + bias(k0));
      const float b = (1 - tension(k0)) * (1 - continuity(k0)) * (1 - bias(k0));
      if (!prev) return b * d;
      return (k1.time - k0.time) / (k1.time - prev->time) * (a * (k0.value - prev->value) + b * d);
    }
    case KeyShape::linear:
      if (!prev) return d;
      return (k1.time - k0.time) / (k1.time - prev->time) * (k0.value - prev->value + d);
    case KeyShape::bezier:
    case KeyShape::hermite:
      if (!prev) return param(k0, 1);
      return param(k0, 1) * (k1.time - k0.time) / (k1.time - prev->time);
    case KeyShape::bezier2: {
      const float out = param(k0, 3) * (k1.time - k0.time);
      return std::fabs(param(k0, 2)) > 1e-5f ? out / param(k0, 2) : out * 1e5f;
    }
    default:
      return 0;
  }
}

// The tangent arriving at keys[i + 1] from keys[i].
float incoming(const std::vector<Key>& keys, std::size_t i) {
  const Key& k0 = keys[i];
  const Key& k1 = keys[i + 1];
  const Key* next = i + 2 < keys.size() ? &keys[i + 2] : nullptr;
  const float d = k1.value - k0.value;
  switch (shape(k1)) {
    case KeyShape::tcb: {
      const float a = (1 - tension(k1)) * (1 - continuity(k1)) * (1 + bias(k1));
      const float b = (1 - tension(k1)) * (1 + continuity(k1)) * (1 - bias(k1));
      if (!next) return a * d;
      return (k1.time - k0.time) / (next->time - k0.time) * (b * (next->value - k1.value) + a * d);
    }
    case KeyShape::linear:
      if (!next) return d;
      return (k1.time - k0.time) / (next->time - k0.time) * (next->value - k1.value + d);
    case KeyShape::bezier:
    case KeyShape::hermite:
      if (!next) return param(k1, 0);
      return param(k1, 0) * (k1.time - k0.time) / (next->time - k0.time);
    case KeyShape::bezier2: {
      const float in = param(k1, 1) * (k1.time - k0.time);
      return std::fabs(param(k1, 0)) > 1e-5f ? in / param(k1, 0) : in * 1e5f;
    }
    default:
      return 0;
  }
}

float bezier(float x0, float x1, float x2, float x3, float t) {
  const float u = 1 - t;
  return u * u * u * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3;
}

// A 2D Bézier interval: its curve parameter found where the curve's time is `time` (the curve's
// time is monotonic between well-formed keys; bisection is bounded either way).
float bezier2(const std::vector<Key>& keys, std::size_t i, float time) {
  const Key& k0 = keys[i];
  const Key& k1 = keys[i + 1];
  const float span = k1.time - k0.time;
  float x1, y1, x2, y2;
  if (shape(k0) == KeyShape::bezier2) {
    x1 = k0.time + param(k0, 2), y1 = k0.value + param(k0, 3);
  } else {
    x1 = k0.time + span / 3, y1 = k0.value + outgoing(keys, i) / 3;
  }
  if (shape(k1) == KeyShape::bezier2) {
    x2 = k1.time + param(k1, 0), y2 = k1.value + param(k1, 1);
  } else {
    x2 = k1.time - span / 3, y2 = k1.value - incoming(keys, i) / 3;
  }
  float lo = 0, hi = 1, t = 0.5f;
  for (int step = 0; step < 40; ++step) {
    t = (lo + hi) / 2;
    if (bezier(k0.time, x1, x2, k1.time, t) < time) lo = t;
    else hi = t;
  }
  return bezier(k0.value, y1, y2, k1.value, t);
}

// Within the keys' span: the interval holding `time`, drawn by its end key's shape.
float inside(const std::vector<Key>& keys, float time) {
  std::size_t i = 0;
  while (i + 2 < keys.size() && time > keys[i + 1].time) ++i;
  const Key& k0 = keys[i];
  const Key& k1 = keys[i + 1];
  if (time <= k0.time) return k0.value;
  if (time >= k1.time) return k1.value;
  const float t = (time - k0.time) / (k1.time - k0.time);
  switch (shape(k1)) {
    case KeyShape::tcb:
    case KeyShape::bezier:
    case KeyShape::hermite: {
      const float h2 = t * t * (3 - 2 * t), h1 = 1 - h2, h4 = t * t * (t - 1), h3 = h4 - t * t + t;
      return h1 * k0.value + h2 * k1.value + h3 * outgoing(keys, i) + h4 * incoming(keys, i);
    }
    case KeyShape::bezier2:
      return bezier2(keys, i, time);
    case KeyShape::linear:
      return k0.value + t * (k1.value - k0.value);
    default:
      return k0.value;
  }
}

enum Behaviour { reset = 0, constant = 1, repeat = 2, oscillate = 3, offset = 4, linear = 5 };

}  // namespace

float evaluate(const Envelope& e, float time) {
  const std::vector<Key>& keys = e.keys;
  if (keys.empty()) return 0;
  if (keys.size() == 1 || !std::isfinite(time)) return keys.front().value;
  const Key& first = keys.front();
  const Key& last = keys.back();
  const float span = last.time - first.time;
  if (!(span > 0)) return first.value;
  const bool before = time < first.time, after = time > last.time;
  if (!before && !after) return inside(keys, time);
  const int behaviour = before ? e.pre : e.post;
  switch (behaviour) {
    case reset:
      return 0;
    case repeat:
    case oscillate:
    case offset: {
      const float cycle = std::floor((time - first.time) / span);
      float t = time - cycle * span;
      if (behaviour == oscillate && std::fmod(std::fabs(cycle), 2.0f) == 1.0f) t = last.time - (t - first.time);
      const float shift = behaviour == offset ? cycle * (last.value - first.value) : 0.0f;
      return inside(keys, t) + shift;
    }
    case linear:
      if (before) return first.value + (time - first.time) * outgoing(keys, 0) / (keys[1].time - first.time);
      return last.value + (time - last.time) * incoming(keys, keys.size() - 2) / (last.time - keys[keys.size() - 2].time);
    default:
      return before ? first.value : last.value;
  }
}

}  // namespace sceneria::xray
