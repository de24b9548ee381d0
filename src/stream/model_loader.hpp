#pragma once
// The real models behind a scene's proxies (scene::Mesh::files), loaded one at a time, nearest
// the camera first, each file once, in the parse worker: each becomes a delta that replaces its
// proxy mesh (scene::replace_meshes), so every instance of it, in every section streamed so far
// or later, draws the model through the same instanced path. Format-blind: a file opens through
// the OpenModel it is given (formats/catalog.hpp's open_model_scene: E3D, T3D, whatever reads
// models) and its scene is flattened to one mesh.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <glm/glm.hpp>

#include "core/error.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"
#include "scene/scene.hpp"

namespace sceneria::stream {

struct ModelLoadStats {
  std::uint64_t loaded = 0, failed = 0;  // files
  std::uint64_t bytes = 0;               // of the model files read
  std::uint64_t vertices = 0, indices = 0, parts = 0;  // of the meshes made
  std::uint64_t textures_shared = 0;  // sent without pixels: an earlier model brought that file
  double ms = 0;                         // spent reading, converting and flattening
};

// A model file opened to its scene, its textures looked for from `texture_base` among `assets`.
// `params`: the open choices the scene gives the file (scene::Mesh::file_params).
using OpenModel = Result<scene::Scene> (*)(ByteSource& file, AssetResolver& assets, const std::string& texture_base,
                                           const std::vector<std::pair<std::string, std::string>>& params);

class ModelLoader {
 public:
  explicit ModelLoader(OpenModel open) : open_(open) {}

  // Bigger files are not read as models (the worker's fetch holds the same limit).
  static constexpr std::uint64_t kMaxModelBytes = 64ull * 1024 * 1024;

  // Learns the proxies a scene or a delta brings (by their files) and the sections their
  // instances stand in. Call with every scene and delta before it goes to the viewer.
  void track(const scene::Scene& scene);
  // Proxies with files not tried yet.
  std::size_t pending() const { return pending_; }
  // Tries the proxy nearest `camera` (by the middle of the nearest section holding one of its
  // instances) that has not been tried: its first file that exists, opened with its textures from
  // `assets` (looked for from `textures/<the model's folder>/`), flattened. nullopt when nothing
  // loaded this call (nothing pending, or that file failed: it stays a proxy, listed in failed()).
  std::optional<scene::Scene> load_next(const glm::dvec3& camera, AssetResolver& assets);
  // The same in two steps, for files that must be fetched first (a URL): which proxy is next,
  // and then that one loaded (whatever the camera did meanwhile).
  struct Wanted {
    std::uint32_t mesh = 0;
    std::string name;
    std::vector<std::string> files;
  };
  std::optional<Wanted> nearest(const glm::dvec3& camera) const;
  std::optional<scene::Scene> load(std::uint32_t mesh, AssetResolver& assets);
  // A proxy whose file could not be had (too big, its fetch failed): tried, listed with `why`.
  void give_up(std::uint32_t mesh, std::string_view why);
  // Models found but not drawable ("name: why"); a file not found at all is in assets.missing().
  const std::vector<std::string>& failed() const { return failed_; }
  const ModelLoadStats& stats() const { return stats_; }

 private:
  struct Entry {
    std::uint32_t mesh = 0;
    std::string name;
    std::vector<std::string> files;
    std::vector<std::pair<std::string, std::string>> params;
    std::vector<glm::dvec3> places;     // middles of the sections holding its instances
    std::unordered_set<std::int64_t> cells;  // those sections, by grid cell
    bool tried = false;
  };
  // The entry of an untried proxy, marked tried; nullptr if there is none.
  Entry* take(std::uint32_t mesh);
  OpenModel open_;
  std::vector<Entry> entries_;
  std::unordered_map<std::uint32_t, std::size_t> entry_of_mesh_;
  std::size_t pending_ = 0;
  std::vector<std::string> failed_;
  std::unordered_set<std::string> sent_;  // texture sources whose pixels went out with a model
  ModelLoadStats stats_;
};

}  // namespace sceneria::stream
