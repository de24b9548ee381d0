// Where nodes stand: the origin, rotate and scale state around them applied to what they place,
// and the slim node every record starts from.
#include "formats/scenery/interpreter.hpp"

namespace sceneria::scenery::detail {

SlimNode Interpreter::slim(const std::vector<Tok>& h) {
  SlimNode n;
  const double rmax = h[1].num(), rmin = h[2].num();
  // `none` is no name: any case for the engine, exactly so for the reference writer.
  const bool unnamed = options_.reference_writer ? h[3].text == "none" : iequals(h[3].text, "none");
  if (!unnamed && !h[3].text.empty()) {
    n.flags |= node_flag::name;
    n.name = sid(h[3].spelled());
  }
  if (rmax >= 0) {
    n.flags |= node_flag::range_max;
    n.range_sq_max = static_cast<float>(rmax * rmax);
  }
  if (rmin != 0) {  // a negative one (legacy terrain model) is squared too
    n.flags |= node_flag::range_min;
    n.range_sq_min = static_cast<float>(rmin * rmin);
  }
  if (!groups_.empty()) {  // the innermost open group
    n.flags |= node_flag::group;
    n.group = groups_.back();
  }
  return n;
}

// Where the node was placed (informational: coordinates are already baked), when any.
TransformContext Interpreter::context() const {
  TransformContext c;
  for (const glm::dvec3& o : state_.origins) c.origins.push_back(v3(o));
  for (const glm::dvec3& k : state_.scales) c.scales.push_back(v3(k));
  c.rotation = v3(state_.rotation);
  c.group_depth = static_cast<std::uint8_t>(std::min<std::size_t>(groups_.size(), 255));
  return c;
}

void Interpreter::place_context(SlimNode& n, std::vector<TransformContext>& pool) const {
  TransformContext c = context();
  if (c.origins.empty() && c.scales.empty() && c.group_depth == 0 && c.rotation.x == 0 && c.rotation.y == 0 && c.rotation.z == 0) return;
  n.flags |= node_flag::transform;
  n.transform = static_cast<std::int32_t>(pool.size());
  pool.push_back(std::move(c));
}

// Position of point-like nodes: rotated about Y by the rotate's y, scaled, then moved (B5).
glm::dvec3 Interpreter::place(const glm::dvec3& p) const {
  const double a = glm::radians(state_.rotation.y);
  const glm::dvec3 r{p.x * std::cos(a) + p.z * std::sin(a), p.y, -p.x * std::sin(a) + p.z * std::cos(a)};
  return r * state_.scale() + state_.origin();
}

// Shape vertices and normals: Z, then X, then Y by the full rotate (B5).
// The matrix is made again only when the rotate changes (shapes turn every vertex by it).
glm::dvec3 Interpreter::turn(const glm::dvec3& p) {
  if (!(state_.rotation == turned_by_)) {
    const glm::dvec3 r = glm::radians(state_.rotation);
    turn_ = glm::rotate(glm::dmat4(1.0), r.y, glm::dvec3(0, 1, 0));
    turn_ = glm::rotate(turn_, r.x, glm::dvec3(1, 0, 0));
    turn_ = glm::rotate(turn_, r.z, glm::dvec3(0, 0, 1));
    turned_by_ = state_.rotation;
  }
  return glm::dvec3(turn_ * glm::dvec4(p, 0.0));
}

}  // namespace sceneria::scenery::detail
