#include "export/writers.hpp"

#include <fmt/format.h>

#include "export/export.hpp"

namespace sceneria::exports {

namespace {

Target target_for(const Document& document, const WriteOptions& options) {
  Target t;
  t.name = options.name.empty() ? "scene" : options.name;
  t.sidecars = options.sidecars;
  t.sidecar_sink = options.sidecar_sink;
  t.source = document.headline();
  t.progress = options.progress;
  t.written = options.written;
  return t;
}

// The document's scene in pieces, its models in place of their proxies where `assets` has them
// (each file read once, as the viewer does).
template <int Kind>  // 0 glb, 1 gltf, 2 obj
Error stream(const Document& document, const WriteOptions& options, ByteSink& sink) {
  auto parsed = parse_options(options.params);
  if (!parsed) return parsed.error();
  const Source source{[&document] { return document.scene_pieces(); }, options.assets};
  const Target target = target_for(document, options);
  if constexpr (Kind == 2) return obj(source, *parsed, target, sink);
  else return gltf(source, *parsed, target, Kind == 0, sink);
}

}  // namespace

std::vector<Writer> scene_writers() {
  return {
      {"glb", ".glb", "glTF 2.0 binary: meshes, materials and their textures, instances (EXT_mesh_gpu_instancing)", kParams,
       gathered<stream<0>>, {}, false, stream<0>, true},
      {"gltf", ".gltf", "glTF 2.0 JSON with its .bin and images beside it (or inside, as data: URIs)", kParams, gathered<stream<1>>, {},
       false, stream<1>, true},
      {"obj", ".obj", "Wavefront OBJ with its .mtl and images beside it, instances baked", kParams, gathered<stream<2>>, {}, true,
       stream<2>, true},
  };
}

Format with_scene_writers(Format format) {
  for (Writer& w : scene_writers()) format.writers.push_back(std::move(w));
  return format;
}

}  // namespace sceneria::exports
