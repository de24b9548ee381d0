#include "export/writers.hpp"

#include <fmt/format.h>

#include "stream/model_loader.hpp"

namespace sceneria::exports {

namespace {

// The document's scene with its models in place of their proxies where `assets` has them (each
// file read once, as the viewer does), ready for any exporter.
Result<scene::Scene> export_scene(const Document& document, const WriteOptions& options) {
  auto scene = document.scene();
  if (!scene || !options.assets) return scene;
  stream::ModelLoader models;
  models.track(*scene);
  const double total = static_cast<double>(models.pending());
  while (models.pending() > 0) {
    if (auto delta = models.load_next(glm::dvec3(0.0), *options.assets)) {
      if (auto replaced = scene::replace_meshes(*scene, std::move(*delta)); !replaced) return replaced.error();
    }
    if (options.progress) options.progress(0.5 * (1.0 - static_cast<double>(models.pending()) / total));
  }
  return scene;
}

Target target_for(const Document& document, const WriteOptions& options) {
  Target t;
  t.name = options.name.empty() ? "scene" : options.name;
  t.sidecars = options.sidecars;
  t.source = document.headline();
  t.fields = [&document](const scene::Object& object, const std::string& kind) { return document.record(kind, object.index); };
  // Models (when there are assets) take the first half of the bar, the writing the rest.
  if (options.progress) {
    const double from = options.assets ? 0.5 : 0.0;
    t.progress = [from, progress = options.progress](double done) { progress(from + (1.0 - from) * done); };
  }
  return t;
}

template <int Kind>  // 0 glb, 1 gltf, 2 obj
Result<std::vector<std::uint8_t>> write(const Document& document, const WriteOptions& options) {
  auto parsed = parse_options(options.params);
  if (!parsed) return parsed.error();
  auto scene = export_scene(document, options);
  if (!scene) return scene.error();
  const Target target = target_for(document, options);
  if constexpr (Kind == 2) return obj(*scene, *parsed, target);
  else return gltf(*scene, *parsed, target, Kind == 0);
}

}  // namespace

std::vector<Writer> scene_writers() {
  return {
      {"glb", ".glb", "glTF 2.0 binary: meshes, materials with textures, instances (EXT_mesh_gpu_instancing)", kParams, write<0>},
      {"gltf", ".gltf", "glTF 2.0 JSON with its .bin and images beside it (or inside, as data: URIs)", kParams, write<1>},
      {"obj", ".obj", "Wavefront OBJ with its .mtl and images beside it, instances baked", kParams, write<2>, {}, true},
  };
}

Format with_scene_writers(Format format) {
  for (Writer& w : scene_writers()) format.writers.push_back(std::move(w));
  return format;
}

}  // namespace sceneria::exports
