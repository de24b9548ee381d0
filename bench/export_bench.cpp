// Scene export throughput: a generated scenery of N models opened once, then written as GLB with
// EXT_mesh_gpu_instancing, as GLB with a node per model, and as OBJ (instances baked), each the
// best of --repeat runs. Prints one JSON line (bench/export-run.mjs runs it natively and as wasm
// side by side):
//   {"models", "instances", "scene_ms", "glb_ms", "glb_bytes", "plain_ms", "plain_bytes", "obj_ms", "obj_bytes"}
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_clock.hpp"
#include "export/export.hpp"
#include "formats/registry.hpp"
#include "io/byte_source.hpp"

using namespace sceneria;

int main(int argc, char** argv) {
  std::uint64_t models = 1'000'000;
  int repeat = 3;
  bool glb = true, obj = true;  // --only glb|obj: a 1M-model OBJ is 2.7 GB, past wasm's 4 GB with its copy
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--models")) models = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--only")) glb = !std::strcmp(argv[i + 1], "glb"), obj = !std::strcmp(argv[i + 1], "obj");
  }
  const Format* format = find_format("eu7b");
  auto bytes = format->generate({.models = models, .seed = 1, .params = {}});
  if (!bytes) return std::fprintf(stderr, "generate: %s\n", bytes.error().describe().c_str()), 1;
  MemorySource source(std::move(bytes).value(), "bench.eu7");
  auto document = open_document(source);
  if (!document) return std::fprintf(stderr, "open: %s\n", document.error().describe().c_str()), 1;

  auto t = bench::Clock::now();
  auto scene = (*document)->scene();
  const double scene_ms = bench::ms_since(t);
  if (!scene) return std::fprintf(stderr, "scene: %s\n", scene.error().describe().c_str()), 1;
  std::uint64_t instances = 0;
  for (const auto& s : scene->sections) instances += s.instances.size();

  // Extras off: the record fields are the document's JSON, measured by its own benchmark.
  const auto time = [&](auto&& write, double& best_ms, std::size_t& size) {
    best_ms = 1e300;
    for (int r = 0; r < repeat; ++r) {
      const auto start = bench::Clock::now();
      auto out = write();
      best_ms = std::min(best_ms, bench::ms_since(start));
      size = out.ok() ? out->size() : 0;
    }
  };
  exports::Options instanced, plain;
  instanced.extras = plain.extras = false;
  plain.instancing = false;
  exports::Target target;
  target.name = "bench.glb";
  double glb_ms = 0, plain_ms = 0, obj_ms = 0;
  std::size_t glb_bytes = 0, plain_bytes = 0, obj_bytes = 0;
  if (glb) {
    time([&] { return exports::gltf(*scene, instanced, target, true); }, glb_ms, glb_bytes);
    time([&] { return exports::gltf(*scene, plain, target, true); }, plain_ms, plain_bytes);
  }
  if (obj) time([&] { return exports::obj(*scene, instanced, target); }, obj_ms, obj_bytes);
  std::printf(
      "{\"models\":%llu,\"instances\":%llu,\"scene_ms\":%.1f,\"glb_ms\":%.1f,\"glb_bytes\":%zu,\"plain_ms\":%.1f,\"plain_bytes\":%zu,"
      "\"obj_ms\":%.1f,\"obj_bytes\":%zu}\n",
      static_cast<unsigned long long>(models), static_cast<unsigned long long>(instances), scene_ms, glb_ms, glb_bytes, plain_ms,
      plain_bytes, obj_ms, obj_bytes);
  return 0;
}
