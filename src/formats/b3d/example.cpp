// The gallery's Hard Truck module, built block by block as the reader lays blocks out (notes
// b3d.md §3-§5), and its resources (§7-§8). Coordinates are B3D's own: metres, right-handed, Z up;
// every polygon is wound counter-clockwise seen from outside, so the scene's culling shows it.
//
// Textures are made with integer arithmetic only, so every build (native or WebAssembly) makes the
// same bytes; every noise is periodic over its texture, because the UVs tile them.
#include "formats/b3d/example.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "formats/b3d/b3d.hpp"
#include "formats/b3d/res.hpp"

namespace sceneria::b3d {

namespace {

// ---- textures ----

struct Rgb {
  int r = 0, g = 0, b = 0;
};

Rgb shade(Rgb c, int by) { return {c.r + by, c.g + by, c.b + by}; }

struct Canvas {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;
  Canvas(int w, int h) : width(w), height(h), rgba(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4, 255) {}
  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    std::uint8_t* p = rgba.data() + (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) * 4;
    p[0] = static_cast<std::uint8_t>(std::clamp(c.r, 0, 255));
    p[1] = static_cast<std::uint8_t>(std::clamp(c.g, 0, 255));
    p[2] = static_cast<std::uint8_t>(std::clamp(c.b, 0, 255));
    p[3] = 255;
  }
};

std::uint32_t hash(std::uint32_t x, std::uint32_t y, std::uint32_t seed) {
  std::uint32_t h = x * 374761393u + y * 668265263u + seed * 2246822519u;
  h = (h ^ (h >> 13)) * 1274126177u;
  return h ^ (h >> 16);
}

// Value noise in 0..255 over cells of cw x ch texels, repeating every `size` texels both ways
// (sizes are multiples of the cells), so a tiled texture shows no seam.
int noise(int x, int y, int cw, int ch, int size, std::uint32_t seed) {
  const int nx = size / cw, ny = size / ch;
  const int ix = x / cw, iy = y / ch, fx = x % cw, fy = y % ch;
  const auto at = [&](int i, int j) {
    return static_cast<int>(hash(static_cast<std::uint32_t>(i % nx), static_cast<std::uint32_t>(j % ny), seed) & 255u);
  };
  const int top = at(ix, iy) * (cw - fx) + at(ix + 1, iy) * fx;
  const int bottom = at(ix, iy + 1) * (cw - fx) + at(ix + 1, iy + 1) * fx;
  return (top * (ch - fy) + bottom * fy) / (cw * ch);
}
// Fine grain: -amp..amp per texel.
int grain(int x, int y, std::uint32_t seed, int amp) {
  return static_cast<int>(hash(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), seed) % static_cast<std::uint32_t>(2 * amp + 1)) - amp;
}

// Asphalt across u (8 m), along v: white edge lines and a dashed yellow middle line (a 4 m dash
// every 8 m of road, the texture's height).
Canvas road_texture() {
  constexpr int n = 128;
  Canvas c(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      Rgb p = shade({78, 78, 84}, (noise(x, y, 8, 8, n, 11) - 128) / 10 + grain(x, y, 12, 10));
      if ((x >= 8 && x < 12) || (x >= 116 && x < 120)) p = shade({236, 236, 226}, grain(x, y, 13, 6));
      if (x >= 62 && x < 66 && y < 64) p = shade({246, 198, 36}, grain(x, y, 14, 6));
      c.set(x, y, p);
    }
  return c;
}

Canvas grass_texture() {
  constexpr int n = 64;
  Canvas c(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const int s = noise(x, y, 8, 8, n, 21) - 128, f = grain(x, y, 22, 16);
      Rgb p{72 + s / 6 + f / 2, 138 + s / 4 + f, 44 + s / 10 + f / 3};
      if (hash(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 23) % 97 == 0) p = {232, 212, 64};  // a flower
      c.set(x, y, p);
    }
  return c;
}

// Bricks of 16 x 8 texels in half-offset rows, mortar on their right and bottom edges.
Canvas brick_texture() {
  constexpr int n = 64;
  Canvas c(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const int row = y / 8, shifted = (x + (row % 2) * 8) % n, column = shifted / 16;
      if (y % 8 == 7 || shifted % 16 == 15) {
        c.set(x, y, shade({206, 200, 188}, grain(x, y, 31, 6)));
        continue;
      }
      const int brick = static_cast<int>(hash(static_cast<std::uint32_t>(column), static_cast<std::uint32_t>(row), 32) % 41) - 20;
      c.set(x, y, shade({168, 62, 42}, brick + grain(x, y, 33, 8)));
    }
  return c;
}

// Clay tiles in rows of 16 texels, lit at their top and shadowed where the next row overlaps.
Canvas roof_texture() {
  constexpr int n = 64;
  Canvas c(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const int row = y / 16, along = (x + (row % 2) * 8) % 16, down = y % 16;
      Rgb p = shade({152, 50, 34}, 22 - down * 3 + grain(x, y, 41, 6));
      if (along == 0) p = {88, 28, 20};
      c.set(x, y, p);
    }
  return c;
}

// Vertical planks in a frame, and a brass knob.
Canvas door_texture() {
  constexpr int n = 64;
  Canvas c(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      Rgb p = shade({126, 78, 40}, (noise(x, y, 2, 16, n, 51) - 128) / 8 + grain(x, y, 52, 5));
      if (x % 16 == 0) p = {62, 36, 18};
      if (x < 3 || x >= n - 3 || y < 3) p = {84, 50, 26};
      if ((x - 50) * (x - 50) + (y - 34) * (y - 34) <= 9) p = {232, 190, 60};
      c.set(x, y, p);
    }
  return c;
}

// A four-pane window: a white frame and cross, the glass blue by day or warm light by night.
Canvas window_texture(bool lit) {
  constexpr int n = 64;
  Canvas c(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const bool frame = x < 5 || x >= n - 5 || y < 5 || y >= n - 5 || (x >= 30 && x < 34) || (y >= 30 && y < 34);
      Rgb p;
      if (frame) p = lit ? Rgb{196, 186, 166} : Rgb{240, 240, 234};
      else if (lit) p = {252, 214 - y / 2, 92};
      else p = shade({108 + y / 2, 158 + y / 3, 216}, (x + y) % 40 < 5 ? 30 : 0);  // the sky, and a glint
      c.set(x, y, p);
    }
  return c;
}

Canvas bark_texture() {
  constexpr int n = 64;
  Canvas c(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) c.set(x, y, shade({98, 64, 38}, (noise(x, y, 4, 16, n, 61) - 128) / 4 + grain(x, y, 62, 6)));
  return c;
}

Canvas needles_texture() {
  constexpr int n = 64;
  Canvas c(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      Rgb p{38, 94, 46};
      p = shade(p, (noise(x, y, 4, 4, n, 71) - 128) / 5 + grain(x, y, 72, 10));
      if (hash(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 73) % 11 == 0) p = {74, 142, 62};
      c.set(x, y, p);
    }
  return c;
}

// A white road post with a red reflector band near its top (v 0.125-0.375).
Canvas post_texture() {
  constexpr int n = 64;
  Canvas c(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      Rgb p = shade({238, 238, 232}, grain(x, y, 81, 5));
      if (y >= 8 && y < 24) p = shade({206, 30, 30}, grain(x, y, 82, 6));
      c.set(x, y, p);
    }
  return c;
}

void put16(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}
void put4cc(std::vector<std::uint8_t>& out, const char* id) { out.insert(out.end(), id, id + 4); }

// A TXR as the games store one (notes §8): a 16-bit TGA, top row first, whose ID field is a LOFF
// record pointing at the footer, which gives the pixel format (PFRM, 565) and ends with ENDR.
std::vector<std::uint8_t> txr(const Canvas& c) {
  std::vector<std::uint8_t> out{12, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  put16(out, static_cast<std::uint32_t>(c.width));
  put16(out, static_cast<std::uint32_t>(c.height));
  out.push_back(16);
  out.push_back(0x20);  // top-left origin
  put4cc(out, "LOFF");
  put32(out, 4);
  const std::size_t footer_at = out.size();
  put32(out, 0);  // the footer's offset, known once the pixels are in
  for (std::size_t i = 0; i + 3 < c.rgba.size(); i += 4)
    put16(out, ((std::uint32_t{c.rgba[i]} >> 3) << 11) | ((std::uint32_t{c.rgba[i + 1]} >> 2) << 5) | (std::uint32_t{c.rgba[i + 2]} >> 3));
  const auto footer = static_cast<std::uint32_t>(out.size());
  for (int k = 0; k < 4; ++k) out[footer_at + static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(footer >> (8 * k));
  put4cc(out, "PFRM");
  put32(out, 16);
  put32(out, 0xF800), put32(out, 0x07E0), put32(out, 0x001F), put32(out, 0);
  put4cc(out, "ENDR");
  put32(out, 0);
  return out;
}

// ---- the module's materials: texnum = position here = TEXTUREFILES number - 1 ----

enum Texnum : std::uint32_t { kRoad, kGrass, kBrick, kRoof, kDoor, kWindow, kWindowLit, kBark, kNeedles, kPost, kMaterials };

struct Look {
  const char* name;
  Canvas (*make)();
};
const std::array<Look, kMaterials>& looks() {
  static const std::array<Look, kMaterials> table{{
      {"road", road_texture},
      {"grass", grass_texture},
      {"brick", brick_texture},
      {"roof", roof_texture},
      {"door", door_texture},
      {"window", [] { return window_texture(false); }},
      {"window_lit", [] { return window_texture(true); }},
      {"bark", bark_texture},
      {"needles", needles_texture},
      {"post", post_texture},
  }};
  return table;
}

std::vector<std::uint8_t> resources() {
  ResFile res;
  ResSection textures, materials;
  textures.name = "TEXTUREFILES", materials.name = "MATERIALS";
  textures.count = materials.count = kMaterials;
  textures.header = "TEXTUREFILES " + std::to_string(kMaterials);
  materials.header = "MATERIALS " + std::to_string(kMaterials);
  for (std::uint32_t k = 0; k < kMaterials; ++k) {
    const Look& look = looks()[k];
    textures.entries.push_back({std::string("txr\\") + look.name + ".txr", true, txr(look.make())});
    materials.entries.push_back({std::string(look.name) + " tex " + std::to_string(k + 1), false, {}});
  }
  res.sections.push_back(std::move(textures));
  res.sections.push_back(std::move(materials));
  return write_res(res);
}

// ---- geometry ----

struct Corner {
  std::uint32_t point = 0;
  glm::vec2 uv{0.0f};
};
struct Piece {  // one polygon block (35): its name, material and polygons
  std::string name;
  std::uint32_t texnum = 0;
  std::vector<std::vector<Corner>> polygons;
};
struct Model {  // the points of one vertex block, shared by its polygon blocks
  std::vector<glm::vec3> points;
  std::vector<glm::vec2> uvs;  // the vertex block's own UV: a point's first corner's

  std::uint32_t point(const glm::vec3& p, const glm::vec2& uv) {
    for (std::size_t k = 0; k < points.size(); ++k)
      if (points[k] == p) return static_cast<std::uint32_t>(k);
    points.push_back(p), uvs.push_back(uv);
    return static_cast<std::uint32_t>(points.size() - 1);
  }
  // The quad o, o+u, o+u+v, o+v (u x v its outward normal), its texture from (u0, v0) at o+v
  // to (u1, v1) at o+u: v runs down the quad, as TXR rows do.
  void quad(Piece& piece, glm::vec3 o, glm::vec3 u, glm::vec3 v, glm::vec4 st) {
    const std::array<std::pair<glm::vec3, glm::vec2>, 4> c{{{o, {st.x, st.w}}, {o + u, {st.z, st.w}}, {o + u + v, {st.z, st.y}}, {o + v, {st.x, st.y}}}};
    std::vector<Corner> polygon;
    for (const auto& [p, uv] : c) polygon.push_back({point(p, uv), uv});
    piece.polygons.push_back(std::move(polygon));
  }
  void triangle(Piece& piece, std::array<glm::vec3, 3> p, std::array<glm::vec2, 3> uv) {
    std::vector<Corner> polygon;
    for (std::size_t k = 0; k < 3; ++k) polygon.push_back({point(p[k], uv[k]), uv[k]});
    piece.polygons.push_back(std::move(polygon));
  }
};

// A vertical wall quad of width w (along `right`) and height h from `o`; its outward normal is
// right x up. `scale`: metres per texture repeat; `top`: the height v = 0 is at.
void wall(Model& m, Piece& piece, glm::vec3 o, glm::vec3 right, float w, float h, float scale, float top) {
  const float v0 = (top - o.z - h) / scale, v1 = (top - o.z) / scale;
  m.quad(piece, o, right * w, {0, 0, h}, {0.0f, v0, w / scale, v1});
}

// A cone of `sides` sides (4 or 6) from a base at height z0 to an apex at z1, closed below.
void cone(Model& m, Piece& piece, int sides, float radius, float z0, float z1) {
  // The unit circle at multiples of 60 or 90 degrees, written out (no libm: the same bytes on
  // every platform).
  static const glm::vec2 kHex[6] = {{1, 0}, {0.5f, 0.8660254f}, {-0.5f, 0.8660254f}, {-1, 0}, {-0.5f, -0.8660254f}, {0.5f, -0.8660254f}};
  static const glm::vec2 kSquare[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  const glm::vec2* ring = sides == 6 ? kHex : kSquare;
  const glm::vec3 apex(0, 0, z1), centre(0, 0, z0);
  for (int k = 0; k < sides; ++k) {
    const glm::vec2 a = ring[k], b = ring[(k + 1) % sides];
    const glm::vec3 pa(a * radius, z0), pb(b * radius, z0);
    m.triangle(piece, {pa, pb, apex}, {glm::vec2(0, 1), glm::vec2(1, 1), glm::vec2(0.5f, 0)});
    m.triangle(piece, {centre, pb, pa}, {glm::vec2(0.5f), glm::vec2(0.5f) + b * 0.5f, glm::vec2(0.5f) + a * 0.5f});
  }
}

// A square prism of half-width r from z0 to z1 (four sides; its top closed when asked), the
// texture's u running 0-1 around it.
void prism(Model& m, Piece& piece, float r, float z0, float z1, float v_per_metre, bool cap) {
  const float h = z1 - z0;
  const std::array<std::pair<glm::vec3, glm::vec3>, 4> sides{{{{-r, -r, z0}, {1, 0, 0}}, {{r, -r, z0}, {0, 1, 0}}, {{r, r, z0}, {-1, 0, 0}}, {{-r, r, z0}, {0, -1, 0}}}};
  for (std::size_t k = 0; k < sides.size(); ++k) {
    const float u0 = static_cast<float>(k) * 0.25f;
    m.quad(piece, sides[k].first, sides[k].second * (2 * r), {0, 0, h}, {u0, 0.0f, u0 + 0.25f, h * v_per_metre});
  }
  if (cap) m.quad(piece, {-r, -r, z1}, {2 * r, 0, 0}, {0, 2 * r, 0}, {0.45f, 0.6f, 0.55f, 0.7f});
}

// ---- blocks ----

struct Sphere {
  glm::vec3 centre{0.0f};
  float radius = 0;
};
Sphere bound(std::span<const glm::vec3> points) {
  if (points.empty()) return {};
  glm::vec3 lo(points[0]), hi(points[0]);
  for (const glm::vec3& p : points) lo = glm::min(lo, p), hi = glm::max(hi, p);
  Sphere s{(lo + hi) * 0.5f, 0.0f};
  for (const glm::vec3& p : points) s.radius = std::max(s.radius, glm::length(p - s.centre));
  return s;
}

// The data section as words, and the file around it.
class Words {
 public:
  void u(std::uint32_t v) { words_.push_back(v); }
  void f(float v) { u(float_bits(v)); }
  void vec(const glm::vec3& v) { f(v.x), f(v.y), f(v.z); }
  void sphere(const Sphere& s) { vec(s.centre), f(s.radius); }
  void name(std::string_view n) {
    Name bytes{};
    std::copy_n(n.begin(), std::min<std::size_t>(n.size(), bytes.size() - 1), bytes.begin());  // NUL-ended
    for (std::size_t k = 0; k < bytes.size(); k += 4)
      u(std::uint32_t{bytes[k]} | (std::uint32_t{bytes[k + 1]} << 8) | (std::uint32_t{bytes[k + 2]} << 16) | (std::uint32_t{bytes[k + 3]} << 24));
  }
  void begin(std::string_view n, std::uint32_t type) { u(marker::block_begin), name(n), u(type); }
  void end() { u(marker::block_end); }
  void separator() { u(marker::group); }

  // Header, material list and data section; the header's counts are words (notes §2).
  std::vector<std::uint8_t> file(std::span<const Look> materials) const {
    std::vector<std::uint32_t> all;
    const auto material_words = static_cast<std::uint32_t>(1 + 8 * materials.size());
    const auto data_words = static_cast<std::uint32_t>(words_.size() + 2);  // with 111 and 222
    all.push_back(0x00643362u);  // "b3d\0"
    for (std::uint32_t w : {6 + material_words + data_words, 6u, material_words, 6 + material_words, data_words}) all.push_back(w);
    all.push_back(static_cast<std::uint32_t>(materials.size()));
    Words names;
    for (const Look& m : materials) names.name(m.name);
    all.insert(all.end(), names.words_.begin(), names.words_.end());
    all.push_back(marker::data_begin);
    all.insert(all.end(), words_.begin(), words_.end());
    all.push_back(marker::data_end);
    std::vector<std::uint8_t> out;
    out.reserve(all.size() * 4);
    for (std::uint32_t w : all) put32(out, w);
    return out;
  }

 private:
  std::vector<std::uint32_t> words_;
};

// A vertex block (7: position and UV per vertex, no normals: the scene shades each polygon flat).
void vertices7(Words& w, std::string_view name, const Model& m, std::uint32_t children) {
  w.begin(name, 7);
  w.sphere(bound(m.points));
  w.name("");
  w.u(static_cast<std::uint32_t>(m.points.size()));
  for (std::size_t k = 0; k < m.points.size(); ++k) w.vec(m.points[k]), w.f(m.uvs[k].x), w.f(m.uvs[k].y);
  w.u(children);
}

// A polygon block (35) of "breakable UV" polygons (mType 1): format 2, each corner its vertex and
// its own UV, all of the block's material.
void polygons35(Words& w, const Piece& piece, const Model& m) {
  std::vector<glm::vec3> used;
  for (const auto& polygon : piece.polygons)
    for (const Corner& c : polygon) used.push_back(m.points[c.point]);
  w.begin(piece.name, 35);
  w.sphere(bound(used));
  w.u(1), w.u(piece.texnum), w.u(static_cast<std::uint32_t>(piece.polygons.size()));
  for (const auto& polygon : piece.polygons) {
    w.u(2), w.f(1.0f), w.u(32767), w.u(piece.texnum), w.u(static_cast<std::uint32_t>(polygon.size()));
    for (const Corner& c : polygon) w.u(c.point), w.f(c.uv.x), w.f(c.uv.y);
  }
  w.end();
}

// A container (5) of one object, closed by the caller after its children.
void container(Words& w, std::string_view name, const Sphere& s, std::uint32_t children) {
  w.begin(name, 5);
  w.sphere(s);
  w.name("");
  w.u(children);
}

// A locator (24) turned by (cos, sin) about Z and placed at `at`: its rows are where its x, y and
// z axes go.
void locator(Words& w, std::string_view name, glm::vec2 turn, const glm::vec3& at, std::uint32_t children) {
  w.begin(name, 24);
  w.vec({turn.x, turn.y, 0}), w.vec({-turn.y, turn.x, 0}), w.vec({0, 0, 1});
  w.vec(at);
  w.u(1);  // what it holds is shown
  w.u(children);
}

void link(Words& w, std::string_view name, std::string_view space, std::string_view object, const glm::vec3& at, float radius) {
  w.begin(name, 18);
  w.sphere({at, radius});
  w.name(space), w.name(object);
  w.end();
}

// A flat field of vertex-block normals (37, format 2: position, UV, normal) cut into polygons of
// format 0 (corners are vertex indices; the UVs are the vertices'), mType 3 "unbroken UV".
void flat(Words& w, std::string_view object, std::uint32_t texnum, std::span<const std::array<float, 4>> rects, float metres_per_u,
          float metres_per_v, float u_offset) {
  std::vector<glm::vec3> points;
  for (const auto& r : rects)
    for (const glm::vec2 p : {glm::vec2(r[0], r[1]), glm::vec2(r[2], r[1]), glm::vec2(r[2], r[3]), glm::vec2(r[0], r[3])}) points.emplace_back(p, 0.0f);
  const Sphere s = bound(points);
  const std::string name(object);
  container(w, name, s, 1);
  w.begin(name + "_v", 37);
  w.sphere(s);
  w.name("");
  w.u(2), w.u(static_cast<std::uint32_t>(points.size()));
  for (const glm::vec3& p : points) w.vec(p), w.f(p.x / metres_per_u + u_offset), w.f(-p.y / metres_per_v), w.vec({0, 0, 1});
  w.u(1);
  w.begin(name + "_p", 35);
  w.sphere(s);
  w.u(3), w.u(texnum), w.u(static_cast<std::uint32_t>(rects.size()));
  for (std::uint32_t k = 0; k < rects.size(); ++k) {
    w.u(0), w.f(1.0f), w.u(32767), w.u(texnum), w.u(4);
    for (std::uint32_t c = 0; c < 4; ++c) w.u(4 * k + c);
  }
  w.end();
  w.end();  // the vertex block
  w.end();  // the container
}

// The house in its own frame: 8 x 6 m of brick walls 3 m high, its front (with the door) at
// y = -3 facing -y, a gable roof with its ridge along x at 5 m overhanging the walls, and six
// windows in a switch: group 0 by day, group 1 lit.
void house(Words& w) {
  Model m;
  Piece walls{"walls", kBrick, {}}, roof{"roof", kRoof, {}}, door{"door", kDoor, {}}, day{"windows_day", kWindow, {}};
  constexpr float b = 1.5f;  // metres per brick texture repeat
  wall(m, walls, {-4, -3, 0}, {1, 0, 0}, 8, 3, b, 5);
  wall(m, walls, {4, -3, 0}, {0, 1, 0}, 6, 3, b, 5);
  wall(m, walls, {4, 3, 0}, {-1, 0, 0}, 8, 3, b, 5);
  wall(m, walls, {-4, 3, 0}, {0, -1, 0}, 6, 3, b, 5);
  // The gables, textured on from the walls below them.
  m.triangle(walls, {glm::vec3(4, -3, 3), glm::vec3(4, 3, 3), glm::vec3(4, 0, 5)}, {glm::vec2(0, 2 / b), glm::vec2(6 / b, 2 / b), glm::vec2(3 / b, 0)});
  m.triangle(walls, {glm::vec3(-4, 3, 3), glm::vec3(-4, -3, 3), glm::vec3(-4, 0, 5)}, {glm::vec2(0, 2 / b), glm::vec2(6 / b, 2 / b), glm::vec2(3 / b, 0)});
  // The roof: each slope from its eave (0.5 m out, 1/3 m lower) to the ridge, and its underside
  // a little below it, facing down (seen under the overhang).
  constexpr float eave = 3 - 1.0f / 3.0f, t = 1.4f, slope = 4.2064824f;  // slope: the rafter's length
  m.quad(roof, {-4.4f, -3.5f, eave}, {8.8f, 0, 0}, {0, 3.5f, 5 - eave}, {0.0f, 0.0f, 8.8f / t, slope / t});
  m.quad(roof, {4.4f, 3.5f, eave}, {-8.8f, 0, 0}, {0, -3.5f, 5 - eave}, {0.0f, 0.0f, 8.8f / t, slope / t});
  m.quad(roof, {4.4f, -3.5f, eave - 0.03f}, {-8.8f, 0, 0}, {0, 3.5f, 5 - eave}, {0.0f, 0.0f, 8.8f / t, slope / t});
  m.quad(roof, {-4.4f, 3.5f, eave - 0.03f}, {8.8f, 0, 0}, {0, -3.5f, 5 - eave}, {0.0f, 0.0f, 8.8f / t, slope / t});
  // The door and the windows stand 2 cm proud of their walls.
  m.quad(door, {-0.6f, -3.02f, 0}, {1.2f, 0, 0}, {0, 0, 2.1f}, {0, 0, 1, 1});
  const std::array<std::pair<glm::vec3, glm::vec3>, 6> windows{{{{-3.1f, -3.02f, 1}, {1, 0, 0}},
                                                                 {{1.7f, -3.02f, 1}, {1, 0, 0}},
                                                                 {{3.1f, 3.02f, 1}, {-1, 0, 0}},
                                                                 {{-1.7f, 3.02f, 1}, {-1, 0, 0}},
                                                                 {{4.02f, -0.7f, 1}, {0, 1, 0}},
                                                                 {{-4.02f, 0.7f, 1}, {0, -1, 0}}}};
  for (const auto& [o, right] : windows) m.quad(day, o, right * 1.4f, {0, 0, 1.2f}, {0, 0, 1, 1});
  Piece night = day;
  night.name = "windows_night", night.texnum = kWindowLit;

  container(w, "house", bound(m.points), 1);
  vertices7(w, "house_v", m, 4);
  polygons35(w, walls, m);
  polygons35(w, roof, m);
  polygons35(w, door, m);
  w.begin("windows", 21);
  w.sphere(bound(m.points));
  w.u(2), w.u(0);  // two groups; the first shown
  w.u(2);
  polygons35(w, day, m);
  w.separator();
  polygons35(w, night, m);
  w.end();
  w.end();  // house_v
  w.end();  // house
}

// A fir in its own frame, in a LOD group: near, a trunk and two stacked six-sided cones; far, a
// trunk and one four-sided cone.
void tree(Words& w) {
  Model near, far;
  Piece trunk{"trunk", kBark, {}}, crown{"crown", kNeedles, {}}, trunk_far{"trunk_far", kBark, {}}, crown_far{"crown_far", kNeedles, {}};
  prism(near, trunk, 0.15f, 0, 2.2f, 0.9f, false);
  cone(near, crown, 6, 1.9f, 1.3f, 4.8f);
  cone(near, crown, 6, 1.35f, 3.4f, 6.6f);
  prism(far, trunk_far, 0.15f, 0, 2.2f, 0.9f, false);
  cone(far, crown_far, 4, 1.8f, 1.3f, 6.4f);
  const Sphere s = bound(near.points);
  container(w, "tree", s, 1);
  w.begin("tree_lod", 10);
  w.sphere(s);
  w.vec(s.centre), w.f(40.0f);  // where and within what distance the near group is drawn
  w.u(2);
  vertices7(w, "tree_near", near, 2);
  polygons35(w, trunk, near);
  polygons35(w, crown, near);
  w.end();
  w.separator();
  vertices7(w, "tree_far", far, 2);
  polygons35(w, trunk_far, far);
  polygons35(w, crown_far, far);
  w.end();
  w.end();  // tree_lod
  w.end();  // tree
}

// A road post: 12 cm square, 1 m high, capped.
void post(Words& w) {
  Model m;
  Piece piece{"post_p", kPost, {}};
  prism(m, piece, 0.06f, 0, 1.0f, 1.0f, true);
  container(w, "post", bound(m.points), 1);
  vertices7(w, "post_v", m, 1);
  polygons35(w, piece, m);
  w.end();
  w.end();
}

std::vector<std::uint8_t> module() {
  Words w;
  // The road runs along y, 8 m wide; the fields either side of it, 60 m square in all.
  static constexpr std::array<float, 4> kRoadRect[] = {{-4, -30, 4, 30}};
  static constexpr std::array<float, 4> kFieldRects[] = {{-30, -30, -4, 30}, {4, -30, 30, 30}};
  flat(w, "road", kRoad, kRoadRect, 8, 8, 0.5f);
  flat(w, "ground", kGrass, kFieldRects, 4, 4, 0);
  // The house beside the road, turned so its front (its -y) faces the road (-x).
  locator(w, "house_space", {0, -1}, {14, 4, 0}, 1);
  house(w);
  w.end();
  // Trees: the first where its own locator stands, the others its link copies; likewise the posts.
  static const std::array<std::pair<glm::vec2, glm::vec3>, 6> kTrees{{{{1, 0}, {-10, -13, 0}},
                                                                          {{0.8f, 0.6f}, {-16, 5, 0}},
                                                                          {{0, 1}, {-23, -6, 0}},
                                                                          {{-0.6f, 0.8f}, {-9, 20, 0}},
                                                                          {{0.28f, 0.96f}, {21, -16, 0}},
                                                                          {{-1, 0}, {24, 19, 0}}}};
  static const std::array<std::pair<glm::vec2, glm::vec3>, 8> kPosts{{{{1, 0}, {-4.9f, -22.5f, 0}},
                                                                          {{1, 0}, {-4.9f, -7.5f, 0}},
                                                                          {{1, 0}, {-4.9f, 7.5f, 0}},
                                                                          {{1, 0}, {-4.9f, 22.5f, 0}},
                                                                          {{-1, 0}, {4.9f, -22.5f, 0}},
                                                                          {{-1, 0}, {4.9f, -7.5f, 0}},
                                                                          {{-1, 0}, {4.9f, 7.5f, 0}},
                                                                          {{-1, 0}, {4.9f, 22.5f, 0}}}};
  const auto place = [&](std::string_view what, const auto& spots, void (*object)(Words&), float radius) {
    const std::string name(what);
    for (std::size_t k = 0; k < spots.size(); ++k) {
      const std::string space = name + "_space" + std::to_string(k + 1);
      locator(w, space, spots[k].first, spots[k].second, k == 0 ? 1 : 0);
      if (k == 0) object(w);
      w.end();
    }
    for (std::size_t k = 1; k < spots.size(); ++k)
      link(w, name + "_link" + std::to_string(k + 1), name + "_space" + std::to_string(k + 1), name, spots[k].second, radius);
  };
  place("tree", kTrees, tree, 6.8f);
  place("post", kPosts, post, 0.6f);
  return w.file(looks());
}

}  // namespace

std::vector<ExampleFile> example_files() {
  std::vector<ExampleFile> out;
  out.push_back({"example.b3d", module()});
  out.push_back({"example.res", resources()});
  return out;
}

}  // namespace sceneria::b3d
