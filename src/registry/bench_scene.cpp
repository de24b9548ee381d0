#include "registry/bench_scene.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/writer.hpp"
#include "registry/modelling.hpp"

namespace sceneria::demo {

namespace {

std::string texture_stem(std::uint32_t index) { return fmt::format("t{:03}", index); }
bool texture_is_tga(std::uint32_t index) { return index % 4 == 3; }

// 256², 512² or 1024² (two in five, two in five, one in five), and a look of its own: a colour,
// stripes or tiles, and grain.
Picture bench_picture(std::uint32_t index, std::uint64_t seed) {
  const int s = static_cast<int>(seed), i = static_cast<int>(index);
  const double pick = hash01(i, 1, s);
  const std::uint32_t size = pick < 0.4 ? 256 : pick < 0.8 ? 512 : 1024;
  const Rgb base{0.2 + 0.6 * hash01(i, 2, s), 0.2 + 0.6 * hash01(i, 3, s), 0.2 + 0.6 * hash01(i, 4, s)};
  const Rgb dark{base.r * 0.55, base.g * 0.55, base.b * 0.55};
  const int kind = static_cast<int>(hash01(i, 5, s) * 3), bands = 2 + static_cast<int>(hash01(i, 6, s) * 14);
  return paint(size, [&](double u, double v) {
    const double grain = hash01(static_cast<int>(u * size), static_cast<int>(v * size), s * 7919 + i);
    double t = 0;
    if (kind == 0) t = std::fmod(v * bands, 1.0) < 0.5 ? 0.0 : 0.6;                                            // bands
    else if (kind == 1) t = (static_cast<int>(u * bands) + static_cast<int>(v * bands)) % 2 ? 0.7 : 0.1;       // tiles
    else t = 0.5 + 0.5 * std::sin(6.2831853 * (u * bands + 0.3 * std::sin(6.2831853 * v * 2)));               // waves
    return mix(mix(base, dark, t), Rgb{grain, grain, grain}, 0.15);
  });
}

// A solid of revolution about Z (T3D's up) with `sides` around and `rings` up, 2·sides·rings
// triangles: a tree, a tower or a silo by its index, its radius rippled so no two rings match.
// The rings below `split` wear the body's texture, the rest the top's.
std::vector<Part> bench_parts(std::uint32_t index, std::uint64_t seed, std::uint32_t textures) {
  const int s = static_cast<int>(seed), i = static_cast<int>(index);
  const double triangles = 2100 + 17800 * hash01(i, 7, s);  // within 2,000-20,000 once rounded
  const int sides = 16 + static_cast<int>(index % 17);
  const int rings = std::max(1, static_cast<int>(std::lround(triangles / (2.0 * sides))));
  const double height = 4 + 16 * hash01(i, 8, s), radius = 1 + 4 * hash01(i, 9, s);
  const int kind = static_cast<int>(index % 3);
  const double split = kind == 0 ? 0.25 : kind == 1 ? 0.8 : 0.85;
  const auto profile = [&](double t) {
    switch (kind) {
      case 0: return t < 0.25 ? 0.12 * radius : radius * std::sin(M_PI * (t - 0.25) / 0.75) * (1 - 0.3 * (t - 0.25)) + 0.01;
      case 1: return radius * (1 - 0.5 * t);
      default: return t < 0.85 ? radius : radius * std::cos(M_PI / 2 * (t - 0.85) / 0.15) + 0.01;
    }
  };
  const auto at = [&](int side, int ring) {
    const double a = 2 * M_PI * side / sides, t = static_cast<double>(ring) / rings;
    const double r = profile(t) * (1 + 0.06 * std::sin(5 * a + 3 * t + i));
    return Vertex{{r * std::cos(a), r * std::sin(a), t * height}, {static_cast<double>(side) / sides, 1 - t}};
  };
  Part body("body", texture_stem((2 * index) % textures)), top("top", texture_stem((2 * index + 1) % textures));
  for (int ring = 0; ring < rings; ++ring) {
    Part& part = static_cast<double>(ring) / rings < split ? body : top;
    for (int side = 0; side < sides; ++side) {
      const Vertex a = at(side, ring), b = at(side + 1, ring), c = at(side + 1, ring + 1), d = at(side, ring + 1);
      part.tri(a, b, c);
      part.tri(a, c, d);
    }
  }
  std::vector<Part> parts;
  for (Part* p : {&body, &top})
    if (!p->tris.empty()) parts.push_back(std::move(*p));
  return parts;
}

}  // namespace

std::string bench_model_name(std::uint32_t index) { return fmt::format("bench/m{:03}.t3d", index); }

Error write_bench_scene(const BenchSceneOptions& o, const std::function<Error(const BenchSceneFile&)>& write) {
  if (o.instances == 0 || o.models == 0 || o.textures == 0 || o.sections == 0)
    return Error{Errc::bad_value, 0, "the benchmark scene needs at least one instance, model, texture and section"};
  if (o.models > 10'000 || o.textures > 20'000)
    return Error{Errc::bad_count, 0, fmt::format("at most 10,000 models and 20,000 textures (asked: {} and {})", o.models, o.textures)};

  {  // the scenery first, let go of before the models are made
    eu7b::GeneratorOptions g;
    g.models = o.instances;
    g.seed = o.seed;
    g.models_per_section = static_cast<std::uint32_t>(std::min<std::uint64_t>(
        std::numeric_limits<std::uint32_t>::max(), (o.instances + o.sections - 1) / o.sections));
    for (std::uint32_t i = 0; i < o.models; ++i) g.model_files.push_back(bench_model_name(i));
    auto module = eu7b::generate_module(g);
    if (!module) return module.error();
    auto scenery = eu7b::write_module(*module);
    if (!scenery) return scenery.error();
    if (Error e = write({"scenery/bench.eu7", *scenery})) return e;
  }

  for (std::uint32_t i = 0; i < o.models; ++i) {
    const std::vector<std::uint8_t> e3d = to_e3d(t3d_text(bench_parts(i, o.seed, o.textures)));
    if (e3d.empty()) return Error{Errc::bad_value, 0, fmt::format("benchmark model {} did not convert", i)};
    if (Error e = write({fmt::format("models/bench/m{:03}.e3d", i), e3d})) return e;
  }
  // Only the textures some model names (models × 2 of them at most).
  const std::uint32_t used = static_cast<std::uint32_t>(std::min<std::uint64_t>(o.textures, std::uint64_t{2} * o.models));
  for (std::uint32_t t = 0; t < used; ++t) {
    const Picture picture = bench_picture(t, o.seed);
    const bool tga_file = texture_is_tga(t);
    const std::vector<std::uint8_t> bytes = tga_file ? tga(picture) : dds(picture);
    if (Error e = write({fmt::format("textures/bench/{}.{}", texture_stem(t), tga_file ? "tga" : "dds"), bytes})) return e;
  }
  return {};
}

}  // namespace sceneria::demo
