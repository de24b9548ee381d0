#pragma once
// The sections of a scene as an export writes them, one at a time, from the scene's pieces
// (scene::Pieces): a later piece's section joins the first piece's section of the same cell, the
// models behind proxies are loaded in their place as their pieces bring them, and sections outside
// the area are passed by. It holds the first piece (less what it has handed out), every mesh and
// look, and one later piece's instances and objects: an export of a million-model scenery keeps a
// section of it in memory, not the scenery.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "core/error.hpp"
#include "export/export.hpp"
#include "formats/catalog.hpp"
#include "io/assets.hpp"
#include "scene/pieces.hpp"
#include "scene/scene.hpp"
#include "stream/model_loader.hpp"

namespace sceneria::exports {

class SceneWalk {
 public:
  // `assets`: where models are read from (nullptr: proxies stay boxes). Sections outside
  // options.area are passed by; `replay`: only the later pieces whose cells miss it, so that a
  // second pass sees every section the first considered (its choices are replayed).
  SceneWalk(scene::Pieces& pieces, const Options& options, AssetResolver* assets, bool replay = false);

  // Reads the first piece (and its models); the offset and the section count are known after it.
  Error start();
  // The next section to write (nullptr after the last), valid until the next call. Its instances'
  // objects are found with object().
  Result<const scene::Section*> next();

  // Meshes, looks and a model's nodes: everything the sections refer to, as far as walked.
  const scene::Scene& world() const { return world_; }
  glm::dvec3 offset() const { return offset_; }
  // Sections the walk may give (the first piece's and one per later piece), for progress.
  std::size_t total() const { return total_; }
  std::size_t walked() const { return walked_; }
  // Which section next() gave last, counted from 0 over all it considered (given or passed by):
  // the same for the same pieces whatever the area, so a second pass can replay the first.
  std::size_t index() const { return index_; }

  struct ObjectRef {
    const scene::Object* object = nullptr;
    const std::string* kind = nullptr;
  };
  // An instance's or a node's object, from the first piece or the latest one.
  ObjectRef object(std::uint32_t id) const;
  nlohmann::ordered_json fields(const scene::Object& object, const std::string& kind) { return pieces_.fields(object, kind); }

 private:
  Error load_models();
  bool in_area(const scene::Section& section) const;

  scene::Pieces& pieces_;
  const Options& options_;
  AssetResolver* assets_;
  bool replay_;
  scene::Scene world_;
  stream::ModelLoader models_{open_model_scene};
  std::vector<bool> given_;           // the first piece's sections handed out
  std::size_t next_first_ = 0;        // the next of them to look at, once the later pieces are done
  bool later_done_ = false;
  scene::Section current_;
  // The latest later piece's objects (ids from object_base) and kinds.
  std::uint32_t piece_object_base_ = 0;
  std::vector<scene::Object> piece_objects_;
  std::vector<std::string> piece_kinds_;
  glm::dvec3 offset_{0.0};
  std::size_t total_ = 0, walked_ = 0, index_ = 0, considered_ = 0;
};

}  // namespace sceneria::exports
