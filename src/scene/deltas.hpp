#pragma once
// A scene handed out a section at a time, nearest a point first, as deltas (merge_delta) that
// continue a scene the viewer already holds: what a document loads after its first view (a
// scenery's visual nodes after its infrastructure) arrives around the camera first instead of
// all at once.
#include <cstdint>
#include <optional>
#include <vector>

#include <glm/glm.hpp>

#include "scene/scene.hpp"

namespace sceneria::scene {

class DeltaQueue {
 public:
  // `rest`: the scene still to give; `mesh_base`/`object_base`: the counts of the scene the
  // deltas merge into when the first is given (its kinds must be `rest`'s).
  DeltaQueue(Scene rest, std::uint32_t mesh_base, std::uint32_t object_base);

  // The section nearest `near` not given yet, as a delta: the meshes, objects, materials and
  // textures it uses that no earlier delta brought, under ids that continue the viewer's.
  std::optional<Scene> next(const glm::dvec3& near);
  std::size_t left() const { return left_; }
  std::size_t total() const { return rest_.sections.size(); }

 private:
  static constexpr std::uint32_t kUnset = 0xFFFFFFFFu;
  Scene rest_;
  std::vector<bool> given_;                     // per section of rest_
  std::vector<std::uint32_t> mesh_, object_;  // rest_'s id → the viewer's (kUnset: not given yet)
  std::uint32_t meshes_ = 0, objects_ = 0;     // the viewer's counts after the deltas given
  std::size_t left_ = 0;
};

}  // namespace sceneria::scene
