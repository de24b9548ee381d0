// CPU cost of a frame (section culling + per-instance range test + packing the instance buffer)
// against the total instance count, with the camera in the same place and the same view: the
// cost follows the visible sections, not the scenery's size. Native and WebAssembly.
//   sceneria_frame_bench [--models 10000,100000,1000000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "formats/eu7b/writer.hpp"
#include "render/frame_plan.hpp"

using namespace sceneria;

int main(int argc, char** argv) {
  std::vector<std::uint64_t> counts = {10'000, 100'000, 1'000'000};
  if (argc > 2 && !std::strcmp(argv[1], "--models")) {
    counts.clear();
    for (char* p = argv[2]; *p;) {
      counts.push_back(std::strtoull(p, &p, 10));
      if (*p == ',') ++p;
    }
  }
#ifdef __EMSCRIPTEN__
  const char* platform = "wasm";
#else
  const char* platform = "native";
#endif
  for (std::uint64_t n : counts) {
    auto bytes = eu7b::write_module(*eu7b::generate_module({.models = n, .seed = 1})).value();
    MemorySource src(bytes, "bench.eu7");
    auto module = eu7b::read_module(src, {.load_pack = true, .decode_pack = true});
    const scene::Scene s = eu7b::to_scene(*module).value();
    PreparedScene prepared;
    prepare(s, prepared);
    // The same view for every size: above the first section of models, looking along the line.
    OrbitCamera cam;
    cam.target = {-500, 0, 500};
    cam.distance = 400;
    const CameraMatrices m = cam.matrices(1280, 720);
    FramePlan plan;
    std::vector<double> ms;
    std::vector<InstanceGpu> upload;  // stands in for the GPU buffer the plan is copied into
    for (int i = 0; i < 40; ++i) {
      const auto t = std::chrono::steady_clock::now();
      plan_frame(prepared, m, {.draw_distance = 6000, .model_distance = 2500}, plan);
      upload.assign(plan.instances.begin(), plan.instances.begin() + static_cast<std::ptrdiff_t>(plan.used_end));
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
    }
    std::sort(ms.begin(), ms.end());
    std::size_t total = 0;
    for (const auto& sec : s.sections) total += sec.instances.size();
    std::printf("{\"platform\":\"%s\",\"models\":%llu,\"instances_total\":%zu,\"sections_total\":%zu,"
                "\"sections_visible\":%zu,\"instances_drawn\":%zu,\"meshes_drawn\":%u,\"frame_cpu_ms\":%.3f}\n",
                platform, static_cast<unsigned long long>(n), total, s.sections.size(), plan.sections.size(),
                plan.visible, plan.meshes_drawn, ms[ms.size() / 2]);
  }
  return 0;
}
