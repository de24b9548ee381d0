#pragma once
// A scene handed over in pieces (Document::scene_pieces), for a writer that never holds it whole.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "scene/scene.hpp"

namespace sceneria::scene {

// A scene handed over in pieces, for a writer that never holds it whole (a scene
// export of a million-model scenery): base() first, then next() until it gives nullopt. Objects
// have fields (Document::record's) while their piece is the latest, and base()'s throughout.
class Pieces {
 public:
  virtual ~Pieces() = default;
  // The scene without what comes later: looks, meshes, objects and sections there from the start.
  virtual Result<Scene> base() = 0;
  // Where the later pieces lie (world bounds, one per piece, in order; heights unknown, 0), for
  // an export that must place its offset and count its work before it sees them.
  virtual std::vector<std::pair<glm::dvec3, glm::dvec3>> later_bounds() const { return {}; }
  // Later pieces whose bounds `wanted` refuses may be passed by unread (an export of an area);
  // later_bounds() still lists them all, and ids and record numbers stay as if they were read.
  virtual void only(std::function<bool(const std::pair<glm::dvec3, glm::dvec3>&)> wanted) { (void)wanted; }
  // The next piece: a delta continuing the ids, as merge_delta takes (new meshes and looks,
  // its own objects, one section); nullopt after the last.
  virtual Result<std::optional<Scene>> next() { return std::optional<Scene>(); }
  // An object's fields, for objects of base() and of the latest piece (null: none).
  virtual nlohmann::ordered_json fields(const Object& object, const std::string& kind) = 0;
};

// A scene already in hand as its one piece (a copy of it); no fields.
class OnePiece final : public Pieces {
 public:
  explicit OnePiece(const Scene& scene) : scene_(scene) {}
  Result<Scene> base() override { return scene_; }
  nlohmann::ordered_json fields(const Object&, const std::string&) override { return nullptr; }

 private:
  const Scene& scene_;
};

}  // namespace sceneria::scene
