#include "render/frame_plan.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

namespace sceneria {

Frustum frustum_of(const glm::mat4& m) {
  Frustum f;
  const glm::vec4 r0(m[0][0], m[1][0], m[2][0], m[3][0]);
  const glm::vec4 r1(m[0][1], m[1][1], m[2][1], m[3][1]);
  const glm::vec4 r2(m[0][2], m[1][2], m[2][2], m[3][2]);
  const glm::vec4 r3(m[0][3], m[1][3], m[2][3], m[3][3]);
  f.planes[0] = r3 + r0;
  f.planes[1] = r3 - r0;
  f.planes[2] = r3 + r1;
  f.planes[3] = r3 - r1;
  f.planes[4] = r3 + r2;
  f.planes[5] = r3 - r2;
  return f;
}

bool Frustum::intersects(const glm::vec3& lo, const glm::vec3& hi) const {
  for (const glm::vec4& p : planes) {
    // The box corner furthest along the plane normal must be in front.
    const glm::vec3 v(p.x >= 0 ? hi.x : lo.x, p.y >= 0 ? hi.y : lo.y, p.z >= 0 ? hi.z : lo.z);
    if (p.x * v.x + p.y * v.y + p.z * v.z + p.w < 0) return false;
  }
  return true;
}

void prepare_section(const scene::Scene& scene, std::size_t s, PreparedScene& out) {
  if (out.instances.size() <= s) out.instances.resize(s + 1);
  auto& list = out.instances[s];
  list.clear();
  list.reserve(scene.sections[s].instances.size());
  for (const scene::Instance& i : scene.sections[s].instances) {
    const glm::mat3 basis = glm::mat3_cast(i.rotation) * glm::mat3(glm::scale(glm::mat4(1.0f), i.scale));
    list.push_back({i.offset, basis, i.mesh, i.range_sq_min, i.range_sq_max, i.object});
  }
}

void prepare(const scene::Scene& scene, PreparedScene& out) {
  out.scene = &scene;
  out.instances.assign(scene.sections.size(), {});
  for (std::size_t s = 0; s < scene.sections.size(); ++s) prepare_section(scene, s, out);
}

namespace {

// The rooms stay while every mesh's instances fit in its own and, together, they are not more than
// about twice what is drawn (else the upload would carry mostly gaps). Laid out anew, a room has a
// quarter more than its count (a moving camera changes counts by a few a frame) and a mesh with
// nothing to draw has none: one coming into view lays them out again.
void lay_out_rooms(FramePlan& plan) {
  const std::size_t meshes = plan.mesh_count.size();
  bool fit = plan.mesh_room.size() == meshes;
  std::size_t rooms = 0;
  for (std::size_t m = 0; fit && m < meshes; ++m) {
    fit = plan.mesh_count[m] <= plan.mesh_room[m];
    rooms += plan.mesh_room[m];
  }
  if (fit && rooms <= 2 * plan.visible + 4096) return;
  plan.mesh_room.resize(meshes);
  plan.mesh_first.resize(meshes);
  std::size_t end = 0;
  for (std::size_t m = 0; m < meshes; ++m) {
    const std::uint32_t n = plan.mesh_count[m];
    plan.mesh_first[m] = static_cast<std::uint32_t>(end);
    plan.mesh_room[m] = n ? n + n / 4 + 8 : 0;
    end += plan.mesh_room[m];
  }
  plan.instances.resize(end);
  ++plan.layouts;
}
}  // namespace

void plan_frame(const PreparedScene& prepared, const CameraMatrices& camera, const PlanSettings& settings,
                FramePlan& plan) {
  const scene::Scene& scene = *prepared.scene;
  const Frustum frustum = frustum_of(camera.view_projection);
  plan.sections.clear();
  plan.mesh_count.assign(scene.meshes.size(), 0);
  plan.triangles = 0;
  plan.meshes_drawn = 0;

  const double draw2 = settings.draw_distance * settings.draw_distance;
  const double model2 = settings.model_distance * settings.model_distance;
  // Pass 1: visible sections, and per mesh how many instances survive (to pack by mesh).
  std::vector<std::uint32_t> with_models;
  for (std::size_t s = 0; s < scene.sections.size(); ++s) {
    const scene::Section& sec = scene.sections[s];
    const glm::dvec3 rel = sec.origin - camera.eye;
    const glm::vec3 lo = glm::vec3(rel) + sec.bounds_min, hi = glm::vec3(rel) + sec.bounds_max;
    const glm::vec3 nearest = glm::clamp(glm::vec3(0.0f), lo, hi);
    const double d2 = glm::dot(glm::dvec3(nearest), glm::dvec3(nearest));
    if (d2 > draw2 || !frustum.intersects(lo, hi)) continue;
    plan.sections.push_back(static_cast<std::uint32_t>(s));
    if (d2 <= model2 && !prepared.instances[s].empty()) with_models.push_back(static_cast<std::uint32_t>(s));
  }
  std::vector<std::uint32_t> keep;  // per candidate instance: mesh, or UINT32_MAX if culled
  for (std::uint32_t s : with_models) {
    const glm::vec3 rel(scene.sections[s].origin - camera.eye);
    for (const PreparedInstance& i : prepared.instances[s]) {
      const glm::vec3 p = rel + i.offset;
      const float d2 = glm::dot(p, p);
      const bool visible = d2 <= model2 && d2 <= i.range_sq_max && d2 >= i.range_sq_min;
      keep.push_back(visible ? i.mesh : UINT32_MAX);
      if (visible) ++plan.mesh_count[i.mesh];
    }
  }
  plan.visible = 0;
  plan.used_end = 0;
  for (std::size_t m = 0; m < plan.mesh_count.size(); ++m) {
    plan.visible += plan.mesh_count[m];
    if (plan.mesh_count[m]) {
      ++plan.meshes_drawn;
      plan.triangles += static_cast<std::uint64_t>(plan.mesh_count[m]) * (scene.meshes[m].indices.size() / 3);
    }
  }
  lay_out_rooms(plan);
  for (std::size_t m = 0; m < plan.mesh_count.size(); ++m)
    if (plan.mesh_count[m]) plan.used_end = std::size_t{plan.mesh_first[m]} + plan.mesh_count[m];
  // Pass 2: write each surviving instance at its mesh's next slot.
  std::vector<std::uint32_t> cursor = plan.mesh_first;
  std::size_t k = 0;
  for (std::uint32_t s : with_models) {
    const glm::vec3 rel(scene.sections[s].origin - camera.eye);
    for (const PreparedInstance& i : prepared.instances[s]) {
      const std::uint32_t mesh = keep[k++];
      if (mesh == UINT32_MAX) continue;
      const glm::vec3 t = rel + i.offset;
      InstanceGpu& g = plan.instances[cursor[mesh]++];
      g.rows[0] = glm::vec4(i.basis[0][0], i.basis[1][0], i.basis[2][0], t.x);
      g.rows[1] = glm::vec4(i.basis[0][1], i.basis[1][1], i.basis[2][1], t.y);
      g.rows[2] = glm::vec4(i.basis[0][2], i.basis[1][2], i.basis[2][2], t.z);
      g.object = i.object;
    }
  }
  for (std::uint32_t s : plan.sections)
    for (const scene::Batch& b : scene.sections[s].batches)
      if (b.primitive == scene::Batch::Primitive::triangles) plan.triangles += b.positions.size() / 3;
}

}  // namespace sceneria
