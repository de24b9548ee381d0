#include "stream/model_loader.hpp"

#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "scene/scene.hpp"

namespace sceneria::stream {

namespace {

// The engine's texture folder for a model the scenery names "ip/pkp/d1": textures/ip/pkp/ (a
// model at the root: textures/). `file` is a normalized candidate path, `models/` prefix or not.
std::string texture_base_of(std::string_view file) {
  if (file.rfind("models/", 0) == 0) file.remove_prefix(7);
  const auto slash = file.rfind('/');
  return "textures/" + (slash == std::string_view::npos ? std::string() : std::string(file.substr(0, slash + 1)));
}

}  // namespace

void ModelLoader::track(const scene::Scene& scene) {
  for (std::size_t k = 0; k < scene.meshes.size(); ++k) {
    const scene::Mesh& m = scene.meshes[k];
    const auto id = static_cast<std::uint32_t>(scene.mesh_base + k);
    if (!m.proxy || m.files.empty() || entry_of_mesh_.count(id)) continue;
    entry_of_mesh_.emplace(id, entries_.size());
    entries_.push_back({.mesh = id, .name = m.name, .files = m.files, .params = m.file_params, .places = {}, .cells = {}, .tried = false});
    ++pending_;
  }
  if (entries_.empty()) return;
  for (const scene::Section& sec : scene.sections) {
    const std::int64_t cell = std::int64_t{sec.row} * 65536 + sec.col;
    const glm::dvec3 middle = scene.grid.middle(sec.row, sec.col);
    std::uint32_t last = scene::kNoObject;  // instances of one mesh tend to come together
    for (const scene::Instance& i : sec.instances) {
      if (i.mesh == last) continue;
      last = i.mesh;
      auto it = entry_of_mesh_.find(i.mesh);
      if (it == entry_of_mesh_.end()) continue;
      Entry& e = entries_[it->second];
      if (e.cells.insert(cell).second) e.places.push_back(middle);
    }
  }
}

std::optional<ModelLoader::Wanted> ModelLoader::nearest(const glm::dvec3& camera) const {
  const Entry* next = nullptr;
  double best = std::numeric_limits<double>::infinity();
  for (const Entry& e : entries_) {
    if (e.tried || e.places.empty()) continue;
    for (const glm::dvec3& p : e.places) {
      const glm::dvec3 d = p - camera;
      const double d2 = d.x * d.x + d.z * d.z;  // on the map: height does not make a model nearer
      if (d2 < best) best = d2, next = &e;
    }
  }
  if (!next) return std::nullopt;
  return Wanted{next->mesh, next->name, next->files};
}

std::optional<scene::Scene> ModelLoader::load_next(const glm::dvec3& camera, AssetResolver& assets) {
  const auto next = nearest(camera);
  return next ? load(next->mesh, assets) : std::nullopt;
}

ModelLoader::Entry* ModelLoader::take(std::uint32_t mesh) {
  const auto it = entry_of_mesh_.find(mesh);
  if (it == entry_of_mesh_.end() || entries_[it->second].tried) return nullptr;
  Entry& e = entries_[it->second];
  e.tried = true;
  --pending_;
  return &e;
}

void ModelLoader::give_up(std::uint32_t mesh, std::string_view why) {
  Entry* e = take(mesh);
  if (!e) return;
  ++stats_.failed;
  failed_.push_back(fmt::format("{}: {}", e->name, why));
}

std::optional<scene::Scene> ModelLoader::load(std::uint32_t mesh, AssetResolver& assets) {
  Entry* taken = take(mesh);
  if (!taken) return std::nullopt;
  Entry& e = *taken;
  const auto started = std::chrono::steady_clock::now();
  const auto took = [&] {
    stats_.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  };
  const auto fail = [&](const std::string& why) -> std::optional<scene::Scene> {
    ++stats_.failed;
    failed_.push_back(fmt::format("{}: {}", e.name, why));
    took();
    return std::nullopt;
  };
  auto source = assets.open_first(e.files, e.name);
  if (!source) {  // listed by the resolver as missing
    ++stats_.failed;
    took();
    return std::nullopt;
  }
  stats_.bytes += source->size();
  const std::string& path = source->name();
  if (source->size() > kMaxModelBytes)
    return fail(fmt::format("{}: {} bytes, more than a model file may have ({})", path, source->size(), kMaxModelBytes));
  // Opened by the format its name says (open_model_scene), never by what its bytes sniff as. A
  // texture file an earlier model brought is named, not read or decoded again.
  assets.set_known(&sent_);
  auto model = open_(*source, assets, texture_base_of(e.files.front()), e.params);
  assets.set_known(nullptr);
  if (!model) return fail(model.error().describe());
  scene::Scene delta = scene::single_mesh(*model, e.mesh, e.name);
  const scene::Mesh& flat = delta.meshes.front();
  if (flat.indices.empty()) return fail("nothing to draw in it");
  // A texture file an earlier model brought goes without its pixels (a format that decoded it
  // all the same included): the scene has them (scene::adopt_looks takes it by its source).
  for (scene::Texture& t : delta.textures) {
    if (t.source.empty()) continue;
    if (!sent_.insert(t.source).second) {
      t.levels.clear();
      t.levels.shrink_to_fit();
      t.format = scene::Texture::Format::none;
      ++stats_.textures_shared;
    }
  }
  ++stats_.loaded;
  stats_.vertices += flat.positions.size();
  stats_.indices += flat.indices.size();
  stats_.parts += flat.parts.size();
  took();
  return delta;
}

}  // namespace sceneria::stream
