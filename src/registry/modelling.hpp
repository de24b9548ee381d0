#pragma once
// What the core's made-up game folders are built from (the railway demo, the benchmark scene):
// deterministic procedural pictures written as DDS, PNG or TGA, and models as T3D parts turned
// into E3D by our own converter and writer, the way a game's models are made from T3D.
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

namespace sceneria::demo {

// ---- procedural pictures ----

// A deterministic hash noise in [0, 1): the same picture on every build and every machine.
double hash01(int x, int y, int seed);
// Smooth value noise that tiles every `period` texels (so a ground texture repeats seamlessly).
double noise(double x, double y, int period, int seed);
// Three octaves of `noise`, `base` cells across the picture.
double octaves(double u, double v, int base, int seed);

struct Rgb {
  double r, g, b;
};
Rgb mix(Rgb a, Rgb b, double t);

struct Picture {
  std::uint32_t size;
  std::vector<std::uint8_t> rgba;
};

// A square picture of `size` texels, each coloured by `paint(u, v)` (u, v in [0, 1), v = 0 the
// first row: where a DDS's v = 0 samples).
Picture paint(std::uint32_t size, const std::function<Rgb(double, double)>& f);

std::vector<std::uint8_t> dds(const Picture& p);  // DXT1, with mipmaps
std::vector<std::uint8_t> png(const Picture& p);
std::vector<std::uint8_t> tga(const Picture& p);  // 32-bit, uncompressed, its first row at the top

// ---- models, as T3D text (Z up, Y forward), converted to E3D by the core ----

struct Vertex {
  glm::dvec3 p;
  glm::dvec2 uv;
};

// One submodel: a material (a texture or a colour) and its triangles, each with its face normal.
struct Part {
  explicit Part(std::string n, std::string m = "none", glm::ivec3 c = {255, 255, 255}) : name(std::move(n)), map(std::move(m)), colour(c) {}
  std::string name, map;
  glm::ivec3 colour;
  std::vector<std::array<Vertex, 3>> tris;

  // A triangle facing the side its corners turn counter-clockwise to.
  void tri(const Vertex& a, const Vertex& b, const Vertex& c) { tris.push_back({a, b, c}); }
  // A quad a b c d, counter-clockwise seen from its front, its texture `u` and `v` tiles wide.
  void quad(glm::dvec3 a, glm::dvec3 b, glm::dvec3 c, glm::dvec3 d, double u = 1, double v = 1) {
    tri({a, {0, v}}, {b, {u, v}}, {c, {u, 0}});
    tri({a, {0, v}}, {c, {u, 0}}, {d, {0, 0}});
  }
  // An axis-aligned box from `lo` to `hi`, its faces textured `metres` per tile (0: once a face).
  void box(glm::dvec3 lo, glm::dvec3 hi, double metres = 0, bool bottom = false) {
    const auto t = [&](double len) { return metres > 0 ? len / metres : 1.0; };
    const glm::dvec3 s = hi - lo;
    const auto P = [&](int x, int y, int z) { return glm::dvec3(x ? hi.x : lo.x, y ? hi.y : lo.y, z ? hi.z : lo.z); };
    quad(P(0, 0, 0), P(1, 0, 0), P(1, 0, 1), P(0, 0, 1), t(s.x), t(s.z));  // -Y (rear)
    quad(P(1, 1, 0), P(0, 1, 0), P(0, 1, 1), P(1, 1, 1), t(s.x), t(s.z));  // +Y (front)
    quad(P(1, 0, 0), P(1, 1, 0), P(1, 1, 1), P(1, 0, 1), t(s.y), t(s.z));  // +X
    quad(P(0, 1, 0), P(0, 0, 0), P(0, 0, 1), P(0, 1, 1), t(s.y), t(s.z));  // -X
    quad(P(0, 0, 1), P(1, 0, 1), P(1, 1, 1), P(0, 1, 1), t(s.x), t(s.y));  // top
    if (bottom) quad(P(0, 1, 0), P(1, 1, 0), P(1, 0, 0), P(0, 0, 0), t(s.x), t(s.y));
  }
  // A vertical prism of `sides` around (x, y) from z0 to z1, its radius r0 at the foot and r1 at
  // the top (r1 = 0: a cone).
  void prism(double x, double y, double z0, double z1, double r0, double r1, int sides, double v_tiles = 1) {
    for (int i = 0; i < sides; ++i) {
      const double a0 = 2 * M_PI * i / sides, a1 = 2 * M_PI * (i + 1) / sides;
      const glm::dvec3 b0(x + r0 * std::cos(a0), y + r0 * std::sin(a0), z0), b1(x + r0 * std::cos(a1), y + r0 * std::sin(a1), z0);
      const glm::dvec3 t0(x + r1 * std::cos(a0), y + r1 * std::sin(a0), z1), t1(x + r1 * std::cos(a1), y + r1 * std::sin(a1), z1);
      const double u0 = double(i) / sides, u1 = double(i + 1) / sides;
      if (r1 > 0) {
        tri({b0, {u0, v_tiles}}, {b1, {u1, v_tiles}}, {t1, {u1, 0}});
        tri({b0, {u0, v_tiles}}, {t1, {u1, 0}}, {t0, {u0, 0}});
      } else {
        tri({b0, {u0, v_tiles}}, {b1, {u1, v_tiles}}, {t0, {(u0 + u1) / 2, 0}});
      }
    }
  }
};

// The parts as T3D text: one submodel each, every face with its own normal.
std::string t3d_text(const std::vector<Part>& parts);
// T3D text -> the engine's converter -> E3D bytes (empty if the text does not read).
std::vector<std::uint8_t> to_e3d(const std::string& text);
std::vector<std::uint8_t> bytes(const std::string& s);

}  // namespace sceneria::demo
