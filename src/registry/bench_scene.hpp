#pragma once
// The benchmark scene of real models at scale (issue 36): a game folder made by the core, shaped
// like a big MaSzyna scenery — one EU7B module placing `instances` models over `sections` square
// kilometres, `models` distinct E3D files of 2,000-20,000 triangles (written by our T3D converter
// and E3D writer), and `textures` textures of 256²-1024² (DXT1 DDS, every fourth a 32-bit TGA),
// two per model. Deterministic for a seed; nothing of the shared samples is in it.
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "core/error.hpp"

namespace sceneria::demo {

struct BenchSceneOptions {
  std::uint64_t instances = 1'000'000;
  std::uint32_t models = 200;
  std::uint32_t textures = 400;  // at most 2 per model are used
  std::uint32_t sections = 400;  // of 1 km², 10 across
  std::uint64_t seed = 1;
};

struct BenchSceneFile {
  std::string path;  // "scenery/bench.eu7", "models/bench/m007.e3d", "textures/bench/t013.dds"
  std::span<const std::uint8_t> bytes;
};

// Hands each file to `write` as soon as it is made (the folder is hundreds of megabytes), the
// scenery first; stops at the first error `write` returns. The models name their files `.t3d`,
// as sceneries do; the engine's lookup finds the `.e3d` beside that name.
Error write_bench_scene(const BenchSceneOptions& options, const std::function<Error(const BenchSceneFile&)>& write);

// The model file names the scenery places, in order: "bench/m000.t3d", …
std::string bench_model_name(std::uint32_t index);

}  // namespace sceneria::demo
