// Model and texture throughput, the same code natively and as WebAssembly: every sample model read
// (E3D), read and converted as the engine's converter does (T3D), opened into a document and
// its scene built (meshes and materials, what the viewer draws), and every sample DDS read and
// its blocks decoded to RGBA8 (the worker's work for a context without S3TC); with --b3d and
// --xray, the Hard Truck B3D and X-Ray .object files in those folders read and their scenes
// built too. Prints one JSON line; bench/model-run.mjs runs both builds side by side.
//   sceneria_model_bench --dir SAMPLES/maszyna/models [--b3d DIR] [--xray DIR] [--repeat R]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_clock.hpp"
#include "formats/dds/dds.hpp"
#include "formats/b3d/b3d.hpp"
#include "formats/e3d/e3d.hpp"
#include "formats/t3d/t3d.hpp"
#include "formats/xray/xray.hpp"
#include "registry/registry.hpp"

using namespace sceneria;
using namespace sceneria::bench;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Untimed runs of each step first, for this long (ms; --warmup): V8 compiles a hot function with
// TurboFan in the background, and a large one (the B3D scene build, into which Binaryen inlines
// its builder) is still running baseline code when 200 runs of 0.1 ms end. Natively it only
// warms the caches, as the best of the runs does anyway.
double warmup_ms = 0;

// Best of `repeat` runs of f over every input, in ms. `f` is called through std::function so
// that each step stays a function of its own in WebAssembly: called directly, Binaryen inlines a
// step into main, which runs once, so V8 never tiers it up from Liftoff (WebAssembly has no
// on-stack replacement) and the "default" column measured baseline code a page does not run.
double best(int repeat, const std::function<void()>& f) {
  for (const auto start = Clock::now(); ms_since(start) < warmup_ms;) f();
  double b = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto t = Clock::now();
    f();
    b = std::min(b, ms_since(t));
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, b3d_dir, xray_dir;
  int repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--b3d")) b3d_dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--xray")) xray_dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--warmup")) warmup_ms = std::max(0.0, std::atof(argv[i + 1]));
  }
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> e3d, t3d, dds;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".e3d") e3d.emplace_back(e.path().filename().string(), read(e.path()));
    else if (ext == ".t3d") t3d.emplace_back(e.path().filename().string(), read(e.path()));
    else if (ext == ".dds") dds.emplace_back(e.path().filename().string(), read(e.path()));
  }
  // Only the files that read: the X-Ray samples include broken ones made to be refused.
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> b3d, xray;
  const auto gather = [](const std::string& from, const char* ext, auto ok, auto& into) {
    if (from.empty()) return;
    for (const auto& e : fs::directory_iterator(from))
      if (e.path().extension() == ext)
        if (auto b = read(e.path()); ok(b)) into.emplace_back(e.path().filename().string(), std::move(b));
  };
  gather(b3d_dir, ".b3d", [](const auto& b) { return b3d::read_b3d(b).ok(); }, b3d);
  gather(xray_dir, ".object", [](const auto& b) { return xray::read_object(b).ok(); }, xray);
  const auto bytes = [](const auto& list) {
    std::size_t n = 0;
    for (const auto& [name, b] : list) n += b.size();
    return n;
  };
  std::size_t sink = 0, pixels = 0;
  const double e3d_read = best(repeat, [&] {
    for (const auto& [name, b] : e3d)
      if (auto m = e3d::read_model(b)) sink += m->submodels.size();
  });
  // Opened as the page opens a dropped file, its scene built (what the viewer draws).
  const auto scenes = [&](const auto& list) {
    for (const auto& [name, b] : list) {
      MemorySource source(b, name);
      if (auto doc = open_document(source))
        if (auto scene = (*doc)->scene()) sink += scene->meshes.size();
    }
  };
  const double e3d_scene = best(repeat, [&] { scenes(e3d); });
  const double t3d_convert = best(repeat, [&] {
    for (const auto& [name, b] : t3d)
      if (auto m = t3d::read_model(b)) sink += e3d::write_model(t3d::to_e3d(std::move(m).value())).size();
  });
  const double dds_read = best(repeat, [&] {
    for (const auto& [name, b] : dds)
      if (auto im = dds::read_image(b)) sink += dds::to_texture(*im, b, name).levels.size();
  });
  const double dds_decode = best(repeat, [&] {
    pixels = 0;
    for (const auto& [name, b] : dds)
      if (auto im = dds::read_image(b)) {
        scene::Scene s;
        s.textures.push_back(dds::to_texture(*im, b, name));
        scene::decode_block_textures(s);
        pixels += std::size_t{im->width} * im->height;
        sink += s.textures[0].levels.size();
      }
  });
  const double b3d_read = best(repeat, [&] {
    for (const auto& [name, b] : b3d)
      if (auto f = b3d::read_b3d(b)) sink += f->blocks.size();
  });
  const double b3d_scene = best(repeat, [&] { scenes(b3d); });
  const double xray_read = best(repeat, [&] {
    for (const auto& [name, b] : xray)
      if (auto f = xray::read_object(b)) sink += f->object.meshes.size();
  });
  const double xray_scene = best(repeat, [&] { scenes(xray); });
  // What every reader's records cost: 1000 times 64 operator new of 16-143 bytes, then their
  // deletes (in WebAssembly, src/platform/wasm/thread_cache_new.cpp's).
  constexpr int kAllocRounds = 1000, kAllocBlocks = 64;
  const double alloc = best(repeat, [&] {
    void* blocks[kAllocBlocks];
    for (int i = 0; i < kAllocRounds; ++i) {
      for (int k = 0; k < kAllocBlocks; ++k) {
        blocks[k] = ::operator new(16 + static_cast<std::size_t>((i * 7 + k * 13) & 127));
        sink += reinterpret_cast<std::uintptr_t>(blocks[k]) & 1;
      }
      for (void* p : blocks) ::operator delete(p);
    }
  });
  const std::string others = fmt::format("\"b3d_files\":{},\"b3d_bytes\":{},\"b3d_read_ms\":{:.5f},\"b3d_scene_ms\":{:.5f},\"xray_files\":{},"
                                         "\"xray_bytes\":{},\"xray_read_ms\":{:.5f},\"xray_scene_ms\":{:.5f},\"alloc_pairs\":{},\"alloc_ms\":{:.5f},",
                                         b3d.size(), bytes(b3d), b3d_read, b3d_scene, xray.size(), bytes(xray), xray_read, xray_scene,
                                         kAllocRounds * kAllocBlocks, alloc);
  std::printf("%s\n", fmt::format("{{{}\"e3d_models\":{},\"e3d_bytes\":{},\"t3d_models\":{},\"t3d_bytes\":{},\"dds_files\":{},\"dds_bytes\":{},"
                                  "\"dds_pixels\":{},\"e3d_read_ms\":{:.5f},\"e3d_scene_ms\":{:.5f},\"t3d_convert_ms\":{:.5f},"
                                  "\"dds_read_ms\":{:.5f},\"dds_decode_ms\":{:.5f},\"sink\":{}}}",
                                  others, e3d.size(), bytes(e3d), t3d.size(), bytes(t3d), dds.size(), bytes(dds), pixels, e3d_read, e3d_scene, t3d_convert,
                                  dds_read, dds_decode, sink)
                          .c_str());
  return 0;
}
