#include "registry/modelling.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "export/export.hpp"
#include "formats/dds/dds.hpp"
#include "formats/e3d/e3d.hpp"
#include "formats/t3d/t3d.hpp"

namespace sceneria::demo {

double hash01(int x, int y, int seed) {
  std::uint32_t h = static_cast<std::uint32_t>(x) * 374761393u + static_cast<std::uint32_t>(y) * 668265263u +
                    static_cast<std::uint32_t>(seed) * 2246822519u;
  h = (h ^ (h >> 13)) * 1274126177u;
  return ((h ^ (h >> 16)) & 0xFFFFFF) / double(0x1000000);
}

double noise(double x, double y, int period, int seed) {
  const int x0 = static_cast<int>(std::floor(x)), y0 = static_cast<int>(std::floor(y));
  const double fx = x - x0, fy = y - y0;
  const auto at = [&](int i, int j) { return hash01(((i % period) + period) % period, ((j % period) + period) % period, seed); };
  const auto s = [](double t) { return t * t * (3 - 2 * t); };
  const double a = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * s(fx);
  const double b = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * s(fx);
  return a + (b - a) * s(fy);
}

Rgb mix(Rgb a, Rgb b, double t) { return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t}; }

Picture paint(std::uint32_t size, const std::function<Rgb(double, double)>& f) {
  Picture p{size, std::vector<std::uint8_t>(std::size_t(size) * size * 4)};
  for (std::uint32_t y = 0; y < size; ++y)
    for (std::uint32_t x = 0; x < size; ++x) {
      const Rgb c = f((x + 0.5) / size, (y + 0.5) / size);
      std::uint8_t* o = &p.rgba[4 * (std::size_t(y) * size + x)];
      o[0] = static_cast<std::uint8_t>(std::clamp(c.r, 0.0, 1.0) * 255 + 0.5);
      o[1] = static_cast<std::uint8_t>(std::clamp(c.g, 0.0, 1.0) * 255 + 0.5);
      o[2] = static_cast<std::uint8_t>(std::clamp(c.b, 0.0, 1.0) * 255 + 0.5);
      o[3] = 255;
    }
  return p;
}

double octaves(double u, double v, int base, int seed) {
  return 0.55 * noise(u * base, v * base, base, seed) + 0.3 * noise(u * base * 2, v * base * 2, base * 2, seed + 1) +
         0.15 * noise(u * base * 4, v * base * 4, base * 4, seed + 2);
}

std::vector<std::uint8_t> dds(const Picture& p) { return dds::write_dxt1(p.size, p.size, p.rgba); }
std::vector<std::uint8_t> png(const Picture& p) { return exports::png(p.rgba, p.size, p.size); }
std::vector<std::uint8_t> tga(const Picture& p) { return exports::tga(p.rgba, p.size, p.size); }

std::string t3d_text(const std::vector<Part>& parts) {
  std::string out;
  for (const Part& part : parts) {
    out += fmt::format(
        "Parent: none\nType: Mesh\nName: {}\nAnim: false\nAmbient: {} {} {}\nDiffuse: {} {} {}\nSpecular: 0 0 0\nSelfIllum: false\n"
        "Wire: false\nWireSize: 1\nOpacity: 100\nMap: {}\nMaxDistance: -1\nMinDistance: 0\n"
        "Transform: 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\nNumVerts: {}\n",
        part.name, part.colour.r, part.colour.g, part.colour.b, part.colour.r, part.colour.g, part.colour.b, part.map,
        part.tris.size() * 3);
    for (const auto& t : part.tris) {
      const glm::dvec3 n = glm::normalize(glm::cross(t[1].p - t[0].p, t[2].p - t[0].p));
      out += "-1\n";  // explicit normals: every face flat
      for (const Vertex& v : t)
        out += fmt::format("{:.3f} {:.3f} {:.3f} {:.4f} {:.4f} {:.4f} {:.4f} {:.4f}\n", v.p.x, v.p.y, v.p.z, n.x, n.y, n.z, v.uv.x, v.uv.y);
    }
  }
  return out;
}

std::vector<std::uint8_t> to_e3d(const std::string& text) {
  auto model = t3d::read_model(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  if (!model) return {};
  return e3d::write_model(t3d::to_e3d(std::move(*model)));
}

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace sceneria::demo
