#pragma once
// The CPU side of a frame, with no GL in it (so it runs and is benchmarked natively): which
// sections are visible, and for every mesh the camera-relative transforms of its visible
// instances, grouped by mesh so each mesh part is one instanced draw.
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "render/camera.hpp"
#include "scene/scene.hpp"

namespace sceneria {

struct PlanSettings {
  double draw_distance = 6000.0;   // static geometry (terrain, tracks, wires), metres
  double model_distance = 2500.0;  // instances, metres (each also has its own range)
};

// A scene prepared for planning: per instance the rotation-scale matrix is computed once.
struct PreparedInstance {
  glm::vec3 offset;     // relative to its section origin
  glm::mat3 basis;      // rotation * scale
  std::uint32_t mesh;
  float range_sq_min, range_sq_max;
  std::uint32_t object;
};
struct PreparedScene {
  const scene::Scene* scene = nullptr;
  std::vector<std::vector<PreparedInstance>> instances;  // per section
};
void prepare(const scene::Scene& scene, PreparedScene& out);
// Re-prepares one section after streaming changed it (it may be new: the last index + 1).
void prepare_section(const scene::Scene& scene, std::size_t section, PreparedScene& out);

// 64 bytes, four RGBA32 texels of the renderer's instance texture: three rows of a 3x4 matrix
// (translation camera-relative), the object id and padding.
struct InstanceGpu {
  glm::vec4 rows[3];
  std::uint32_t object;
  std::uint32_t pad[3];
};
static_assert(sizeof(InstanceGpu) == 64);

// Instances are grouped by mesh: mesh m's visible ones at [mesh_first[m], + mesh_count[m]) of
// `instances`, in a room of mesh_room[m] slots that stays where it is from frame to frame while
// they fit (slots past the count hold whatever an earlier frame left). A renderer that tells the
// GPU where each mesh's instances start (its mesh table) then tells it again only when the rooms
// are laid out anew (`layouts` counts that), not every frame.
struct FramePlan {
  std::vector<std::uint32_t> sections;  // visible section indices
  std::vector<InstanceGpu> instances;   // the rooms, end to end
  std::vector<std::uint32_t> mesh_first, mesh_count, mesh_room;
  std::size_t visible = 0;     // instances drawn: the sum of mesh_count
  std::size_t used_end = 0;    // one past the last drawn slot (what needs uploading)
  std::uint64_t layouts = 0;   // times the rooms were laid out, the first frame's included
  std::uint64_t triangles = 0;
  std::uint32_t meshes_drawn = 0;
};

void plan_frame(const PreparedScene& prepared, const CameraMatrices& camera, const PlanSettings& settings,
                FramePlan& plan);

// The six frustum planes of a view-projection, for camera-relative points.
struct Frustum {
  glm::vec4 planes[6];
  bool intersects(const glm::vec3& lo, const glm::vec3& hi) const;
};
Frustum frustum_of(const glm::mat4& view_projection);

}  // namespace sceneria
