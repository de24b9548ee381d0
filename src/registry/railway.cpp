#include "registry/railway.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <glm/glm.hpp>

#include "export/export.hpp"
#include "formats/dds/dds.hpp"
#include "formats/e3d/e3d.hpp"
#include "formats/t3d/t3d.hpp"
#include "registry/modelling.hpp"

namespace sceneria::demo {

namespace {

Picture grass() {
  return paint(256, [](double u, double v) {
    const double n = octaves(u, v, 8, 11), fine = hash01(int(u * 256), int(v * 256), 12);
    return mix(mix(Rgb{0.22, 0.36, 0.12}, Rgb{0.42, 0.52, 0.20}, n), Rgb{0.50, 0.47, 0.30}, 0.25 * fine * n);
  });
}
Picture concrete() {  // platform slabs: 4 across the texture, a yellow safety line along u = 0
  return paint(128, [](double u, double v) {
    const double n = octaves(u, v, 8, 21);
    Rgb c = mix(Rgb{0.55, 0.55, 0.53}, Rgb{0.70, 0.69, 0.66}, n);
    if (std::fmod(v * 4, 1.0) < 0.03 || std::fmod(u * 4, 1.0) < 0.03) c = mix(c, Rgb{0.3, 0.3, 0.3}, 0.6);
    if (u < 0.06) c = Rgb{0.85, 0.75, 0.15};
    return c;
  });
}
Picture wall() {  // plaster with a window every half texture, a plinth at the bottom (v near 1)
  return paint(256, [](double u, double v) {
    Rgb c = mix(Rgb{0.80, 0.72, 0.55}, Rgb{0.88, 0.80, 0.62}, octaves(u, v, 8, 31));
    const double wu = std::fmod(u * 2, 1.0);
    if (wu > 0.3 && wu < 0.7 && v > 0.25 && v < 0.65) c = (std::fabs(wu - 0.5) < 0.02 || std::fabs(v - 0.42) < 0.015) ? Rgb{0.9, 0.9, 0.88}
                                                                                                                : Rgb{0.16, 0.22, 0.28};
    if (v > 0.88) c = mix(Rgb{0.42, 0.30, 0.25}, Rgb{0.5, 0.36, 0.3}, octaves(u, v, 8, 32));
    return c;
  });
}
Picture roof() {  // rows of tiles
  return paint(128, [](double u, double v) {
    const double row = std::fmod(v * 16, 1.0), col = std::fmod(u * 16 + (int(v * 16) % 2) * 0.5, 1.0);
    Rgb c = mix(Rgb{0.55, 0.20, 0.12}, Rgb{0.68, 0.28, 0.16}, hash01(int(u * 16), int(v * 16), 41));
    if (row > 0.85 || col < 0.05) c = mix(c, Rgb{0.2, 0.08, 0.05}, 0.7);
    return c;
  });
}
Picture leaves() {
  return paint(128, [](double u, double v) {
    const double n = octaves(u, v, 8, 51);
    return mix(Rgb{0.08, 0.22, 0.06}, Rgb{0.25, 0.45, 0.12}, n * n * 1.4);
  });
}
Picture bark() {
  return paint(64, [](double u, double v) {
    const double n = noise(u * 16, v * 2, 16, 61);
    return mix(Rgb{0.25, 0.17, 0.10}, Rgb{0.40, 0.30, 0.20}, n);
  });
}
// A vehicle's livery: v = 0 its roof line, v = 1 its sole bar; windows in a band along the side.
Picture livery(Rgb body, Rgb stripe, double window_every) {
  return paint(256, [=](double u, double v) {
    if (v < 0.12) return Rgb{0.45, 0.45, 0.47};                                      // roof
    if (v > 0.22 && v < 0.45 && std::fmod(u * window_every, 1.0) > 0.18) return Rgb{0.10, 0.14, 0.18};  // windows
    if (v > 0.70 && v < 0.78) return stripe;
    return mix(body, Rgb{body.r * 0.8, body.g * 0.8, body.b * 0.8}, 0.3 * noise(u * 32, v * 8, 32, 71));
  });
}


// ---- models, as T3D text (Z up, Y forward), converted to E3D by the core ----

struct Model {
  std::string name;               // the file's stem
  std::vector<Part> parts;
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> textures;  // file names → bytes
};

Model ground_tile() {  // 200 m square at the origin, grass every 8 m
  Part p("ground", "grass");
  p.quad({-100, -100, 0}, {100, -100, 0}, {100, 100, 0}, {-100, 100, 0}, 25, 25);
  return {"ground", {p}, {{"grass.dds", dds(grass())}}};
}

Model platform() {  // 50 m of side platform: 4 m wide, 0.76 m above the rail head
  Part p("platform", "concrete");
  p.box({-2, -25, -0.3}, {2, 25, 0.94}, 4);
  return {"platform", {p}, {{"concrete.dds", dds(concrete())}}};
}

Model station() {  // a two-storey station house, 30 m along the line, with a hipped roof
  Part walls("walls", "wall");
  walls.box({-5, -15, 0}, {5, 15, 7.5}, 0);
  // Windows every 5 m: re-map the long walls so the texture (two windows a tile) repeats 3 times.
  for (auto& t : walls.tris)
    for (Vertex& v : t) {
      const bool long_side = std::fabs(std::fabs(v.p.x) - 5) < 1e-9;
      v.uv = {(long_side ? (v.p.y + 15) / 10 : (v.p.x + 5) / 10), 1 - v.p.z / 7.5};
    }
  Part roof_part("roof", "roof");
  const double e = 0.6, h = 7.5, top = 11.5;  // eaves overhang, eaves height, ridge height
  const glm::dvec3 a(-5 - e, -15 - e, h), b(5 + e, -15 - e, h), c(5 + e, 15 + e, h), d(-5 - e, 15 + e, h);
  const glm::dvec3 r0(0, -10, top), r1(0, 10, top);
  roof_part.quad(b, c, r1, r0, 4, 2);  // +X slope
  roof_part.quad(d, a, r0, r1, 4, 2);  // -X slope
  roof_part.tri({a, {0, 1}}, {b, {1, 1}}, {r0, {0.5, 0}});  // hips
  roof_part.tri({c, {0, 1}}, {d, {1, 1}}, {r1, {0.5, 0}});
  roof_part.quad(a, d, c, b, 1, 1);  // the eaves' underside
  return {"station", {walls, roof_part}, {{"wall.dds", dds(wall())}, {"roof.dds", dds(roof())}}};
}

Model portal() {  // a catenary portal: two steel masts 8.5 m either side of the line and a beam
  Part steel("portal", "none", {95, 100, 105});
  steel.box({-8.7, -0.2, 0}, {-8.3, 0.2, 8.6});
  steel.box({8.3, -0.2, 0}, {8.7, 0.2, 8.6});
  steel.box({-8.7, -0.15, 8.0}, {8.7, 0.15, 8.5});
  for (double x : {-2.25, 2.25}) steel.box({x - 0.05, -0.05, 7.1}, {x + 0.05, 0.05, 8.0});  // hangers
  return {"portal", {steel}, {}};
}

Model tree(bool pine) {
  Part trunk("trunk", "bark");
  trunk.prism(0, 0, 0, pine ? 3 : 4, 0.25, 0.18, 6, 2);
  Part crown("crown", "leaves");
  if (pine) {
    crown.prism(0, 0, 2, 8, 2.4, 0, 8, 3);
    crown.prism(0, 0, 5, 12, 1.7, 0, 8, 3);
  } else {
    crown.prism(0, 0, 3, 6.5, 1.2, 3.2, 8, 2);
    crown.prism(0, 0, 6.5, 10, 3.2, 0.6, 8, 2);
  }
  return {pine ? "pine" : "tree", {trunk, crown}, {{"bark.png", png(bark())}, {"leaves.png", png(leaves())}}};
}

Model signal() {  // a two-aspect signal: the red lamp lit, facing both ways
  Part pole("pole", "none", {70, 72, 75});
  pole.prism(0, 0, 0, 4.5, 0.09, 0.09, 6);
  pole.box({-0.3, -0.15, 4.2}, {0.3, 0.15, 5.8});
  Part red("red", "none", {255, 30, 20}), green("green", "none", {20, 90, 40});
  for (int side : {-1, 1}) {
    const double y = side * 0.16;
    const auto lamp = [&](Part& p, double z) {
      const glm::dvec3 a(-0.15, y, z - 0.15), b(0.15, y, z - 0.15), c(0.15, y, z + 0.15), d(-0.15, y, z + 0.15);
      if (side > 0) p.quad(b, a, d, c);
      else p.quad(a, b, c, d);
    };
    lamp(red, 5.35);
    lamp(green, 4.7);
  }
  return {"signal", {pole, red, green}, {}};
}

// A vehicle's body in its replaceable skin (Y forward, its middle at the origin, on the rails).
Model vehicle(const std::string& name, double length, double height, bool cab) {
  Part body("body", "replacableskin");
  const double w = 1.45, floor = 1.1, l = length / 2;
  body.box({-w, -l, floor}, {w, l, height});
  for (auto& t : body.tris)  // the livery along the sides, ends and roof from its edges
    for (Vertex& v : t) v.uv = {(v.p.y + l) / length * (cab ? 1 : 2), std::clamp(1 - (v.p.z - floor) / (height - floor), 0.0, 1.0)};
  Part under("bogies", "none", {40, 40, 42});
  for (double y : {-(l - 3.5), l - 3.5}) under.box({-1.2, y - 1.6, 0.2}, {1.2, y + 1.6, floor});
  std::vector<Part> parts{body, under};
  if (cab) {
    Part panto("pantograph", "none", {30, 30, 30});
    panto.box({-0.9, -3.2, height}, {0.9, -2.9, height + 0.7});
    panto.box({-0.9, -3.2, height + 0.7}, {0.9, -2.2, height + 0.8});
    parts.push_back(panto);
  }
  return {name, parts, {}};
}

// Every model the scenery places, by the name its file takes: each made only when asked for (a
// gallery item wants one, with its textures, not all seven).
using Maker = Model (*)();
constexpr std::pair<std::string_view, Maker> kModels[] = {
    {"ground", ground_tile}, {"platform", platform}, {"station", station},  {"portal", portal},
    {"tree", [] { return tree(false); }}, {"pine", [] { return tree(true); }}, {"signal", signal}};

std::vector<Model> models() {
  std::vector<Model> out;
  for (const auto& [name, make] : kModels) out.push_back(make());
  return out;
}

// ---- the line ----

// The centre line: from the station's middle both ways, 400 m straight, a 40° curve of 600 m
// radius (to the right as one goes out), 600 m straight. Tracks lie 2.25 m either side.
struct Piece {
  double length, radius;  // radius 0: straight
};
const Piece kPieces[] = {{200, 0}, {200, 0}, {600 * glm::radians(20.0), 600}, {600 * glm::radians(20.0), 600}, {300, 0}, {300, 0}};

struct Pose {
  glm::dvec2 p, h;  // position (x, z) and unit heading
  glm::dvec2 right() const { return {h.y, -h.x}; }
};

Pose advance(Pose at, const Piece& piece, double s) {
  if (piece.radius == 0) return {at.p + at.h * s, at.h};
  const double a = s / piece.radius;  // turning right: the heading rotates clockwise seen from above
  const glm::dvec2 centre = at.p + at.right() * piece.radius;
  const glm::dvec2 from = at.p - centre;
  const glm::dvec2 rotated(from.x * std::cos(a) + from.y * std::sin(a), -from.x * std::sin(a) + from.y * std::cos(a));
  const glm::dvec2 h(at.h.x * std::cos(a) + at.h.y * std::sin(a), -at.h.x * std::sin(a) + at.h.y * std::cos(a));
  return {centre + rotated, h};
}

// The poses every `step` metres along one half of the line (going out), from the middle.
std::vector<Pose> stations_along(Pose start, double step) {
  std::vector<Pose> out{start};
  Pose at = start;
  double carried = 0;
  for (const Piece& piece : kPieces) {
    double s = step - carried;
    for (; s <= piece.length + 1e-9; s += step) out.push_back(advance(at, piece, s));
    carried = piece.length - (s - step);
    at = advance(at, piece, piece.length);
  }
  return out;
}

std::string num(double v) { return fmt::format("{:.3f}", v); }
std::string xyz(glm::dvec2 p, double y) { return fmt::format("{} {} {}", num(p.x), num(y), num(p.y)); }

struct Line {
  std::string tracks, wires, models, trees, trains;
};

void lay_tracks(Line& out) {
  for (int dir : {1, -1}) {
    const Pose start{{0, 0}, {0, double(dir)}};
    for (int side : {-1, 1}) {  // track 1 on the east (right going north), track 2 on the west
      const double offset = side * 2.25 * dir;  // the same track on both halves
      Pose at = start;
      int n = 0;
      for (const Piece& piece : kPieces) {
        const Pose end = advance(at, piece, piece.length);
        const glm::dvec2 p1 = at.p + at.right() * offset, p2 = end.p + end.right() * offset;
        glm::dvec2 cv1(0), cv2(0);
        double radius = 0;
        if (piece.radius > 0) {
          radius = piece.radius - offset;  // the track nearer the centre turns tighter
          const double angle = piece.length / piece.radius, k = 4.0 / 3.0 * std::tan(angle / 4) * radius;
          cv1 = at.h * k;
          cv2 = -end.h * k;
        }
        const std::string name = fmt::format("t{}_{}{:02}", side > 0 ? 1 : 2, dir > 0 ? 'n' : 's', n++);
        out.tracks += fmt::format(
            "node -1 0 {} track normal {} 1.435 0.25 25 20 0 flat vis rail_screw_used1 4 tpbps-new2 0.2 0.5 1.1\n"
            "{} 0\n{} 0 {}\n{} 0 {}\n{} 0\n{}\nendtrack\n",  // P1 roll, CV1, CV2 (relative to their ends), P2 roll, radius
            name, num(piece.length), xyz(p1, 0), num(cv1.x), num(cv1.y), num(cv2.x), num(cv2.y), xyz(p2, 0), num(radius));
        at = end;
      }
    }
  }
}

void hang_wires(Line& out) {
  for (int dir : {1, -1}) {
    const auto masts = stations_along({{0, 0}, {0, double(dir)}}, 50);
    for (std::size_t i = 0; i < masts.size(); ++i) {
      const Pose& m = masts[i];
      const double heading = glm::degrees(std::atan2(m.h.x, m.h.y));
      if (dir > 0 || i > 0)  // the middle one stands once
        out.models += fmt::format("node 2000 0 none model {} {} demo/portal.t3d none endmodel\n", xyz(m.p, 0), num(heading));
      if (i + 1 == masts.size()) continue;
      const Pose& n = masts[i + 1];
      for (double side : {-2.25, 2.25}) {
        const double zig = (i % 2 ? 0.2 : -0.2);  // the contact wire zig-zags across the pantograph
        const glm::dvec2 a = m.p + m.right() * (side + zig), b = n.p + n.right() * (side - zig);
        const glm::dvec2 c = m.p + m.right() * side, d = n.p + n.right() * side;
        out.wires += fmt::format("node 2000 0 none traction none 3000 1000 0.075 cu 0.012 0 {} {} {} {} 5.6 10 2 0 vis endtraction\n",
                                 xyz(a, 5.78), xyz(b, 5.78), xyz(c, 7.1), xyz(d, 7.1));
      }
    }
  }
}

void build_station(Line& out) {
  for (double z = -125; z <= 125; z += 50)
    for (double x : {-6.25, 6.25}) out.models += fmt::format("node 1500 0 none model {} 0 {} 0 demo/platform.t3d none endmodel\n", num(x), num(z));
  out.models += "node 3000 0 dworzec model -26 0 0 0 demo/station.t3d none endmodel\n";
  // Entry signals beyond the platforms, beside each track on the right as trains come in.
  out.models += "node 1500 0 S1 model 4.4 0 -180 0 demo/signal.t3d none endmodel\n";
  out.models += "node 1500 0 S2 model -4.4 0 180 180 demo/signal.t3d none endmodel\n";
  // Far ground: a coarse green terrain of 1 km cells to the horizon, under the tiles (a viewer
  // draws a scenery's shapes in their material's colour), both windings so no side culls it.
  out.models += "node -1 0 teren triangles material ambient: 74 112 44 diffuse: 74 112 44 specular: 0 0 0 endmaterial demo/grass\n";
  for (int cx = -4; cx < 4; ++cx)
    for (int cz = -4; cz < 4; ++cz) {
      const double x0 = cx * 1000, x1 = x0 + 1000, z0 = cz * 1000, z1 = z0 + 1000;
      const auto v = [](double x, double z) { return fmt::format("{} -0.3 {} 0 1 0 {} {} end\n", x, z, x / 8, z / 8); };
      out.models += v(x0, z0) + v(x0, z1) + v(x1, z0) + v(x1, z0) + v(x0, z1) + v(x1, z1);  // up
      out.models += v(x0, z0) + v(x1, z0) + v(x0, z1) + v(x1, z0) + v(x1, z1) + v(x0, z1);  // down
    }
  out.models.resize(out.models.size() - 4);  // the last vertex is followed by endtri, not end
  out.models += "endtri\n";
  // Near ground: 200 m tiles of textured grass over the line's extent.
  for (int tx = -5; tx <= 4; ++tx)
    for (int tz = -8; tz <= 7; ++tz)
      out.models += fmt::format("node 5000 0 none model {} -0.02 {} 0 demo/ground.t3d none endmodel\n", tx * 200 + 100, tz * 200 + 100);
}

void plant_trees(Line& out) {
  // Beside the line (12–120 m out, either side), not on the station's forecourt.
  int k = 0;
  for (int dir : {1, -1}) {
    const auto along = stations_along({{0, 0}, {0, double(dir)}}, 9);
    for (std::size_t i = 0; i < along.size(); ++i) {
      const Pose& m = along[i];
      for (int side : {-1, 1}) {
        const double r = hash01(int(i), side * dir, 81);
        if (r < 0.35) continue;
        const double off = side * (14 + 110 * std::pow(hash01(int(i), side * dir, 82), 1.6));
        const glm::dvec2 p = m.p + m.right() * off;
        if (std::fabs(p.y) < 60 && p.x < 0 && p.x > -50) continue;  // the forecourt
        const bool pine = hash01(int(i), side * dir, 83) < 0.45;
        const double scale = 0.7 + 0.6 * hash01(int(i), side * dir, 84);
        out.trees += fmt::format("node 1500 0 none model {} {} demo/{}.t3d none scale {:.2f} {:.2f} {:.2f} endmodel\n", xyz(p, 0),
                                 int(hash01(int(i), side * dir, 85) * 360), pine ? "pine" : "tree", scale, scale, scale);
        ++k;
      }
    }
  }
}

// An EP07 electric locomotive and three coaches at the platform of track 1, heading north.
void couple_train(Line& out) {
  out.trains +=
      "trainset osobowy t1_n00 110 0\n"
      "node -1 0 EP07-1001 dynamic demo\\ep07 ep07_blue ep07 0 headdriver 3 0 enddynamic\n"
      "node -1 0 coach1 dynamic demo\\coach coach_green coach 0 nobody 3 0 enddynamic\n"
      "node -1 0 coach2 dynamic demo\\coach coach_green coach 0 nobody 3 0 enddynamic\n"
      "node -1 0 coach3 dynamic demo\\coach coach_green coach 0 nobody 3 0 enddynamic\n"
      "endtrainset\n";
}

std::vector<ExampleFile> vehicle_files(const std::string& folder, const Model& body, double length, double bogies,
                                       const std::string& skin, const Picture& livery_picture) {
  const std::string fiz = fmt::format("// {}: what placement needs of the engine's physics file\nDimensions: L={} W=2.9 H=4.2\nWheels: Bd={}\n",
                                      body.name, length, 2 * bogies);
  const std::string mmd = fmt::format("models: {}.t3d#\nendmodels\nlocations:\n bogies: {} {} end\nendlocations\n", body.name, -bogies, bogies);
  return {{folder + body.name + ".mmd", bytes(mmd)},
          {folder + body.name + ".fiz", bytes(fiz)},
          {folder + body.name + ".e3d", to_e3d(t3d_text(body.parts))},
          {folder + skin + ",1.dds", dds(livery_picture)}};
}

}  // namespace

std::vector<ExampleFile> railway_files() {
  Line line;
  lay_tracks(line);
  hang_wires(line);
  build_station(line);
  plant_trees(line);
  couple_train(line);
  const std::string head =
      "// sceneria's demo: a double-track electrified line through a station, generated by the core.\n"
      "// Infrastructure here; models, trees and the train in the .inc files, as a game's scenery keeps them.\n"
      "atmo 140 170 200 400 3000 endatmo\n"
      "time 12:00 endtime\n";
  std::vector<ExampleFile> files{
      {"scenery/demo.scn", bytes(head + line.tracks + line.wires + "include demo/station.inc end\ninclude demo/trees.inc end\n" +
                                 line.trains + "FirstInit\n")},
      {"scenery/demo/station.inc", bytes("// the station, the catenary's portals and the ground\n" + line.models)},
      {"scenery/demo/trees.inc", bytes("// trees beside the line\n" + line.trees)},
  };
  std::map<std::string, bool> written;
  for (const Model& m : models()) {
    files.push_back({"models/demo/" + m.name + ".e3d", to_e3d(t3d_text(m.parts))});
    for (const auto& [name, data] : m.textures)
      if (!written[name]) written[name] = true, files.push_back({"textures/demo/" + name, data});
  }
  for (auto& f : vehicle_files("dynamic/demo/ep07/", vehicle("ep07", 16.2, 4.2, true), 16.2, 4.55, "ep07_blue",
                               livery({0.10, 0.25, 0.60}, {0.95, 0.80, 0.10}, 1)))
    files.push_back(std::move(f));
  for (auto& f : vehicle_files("dynamic/demo/coach/", vehicle("coach", 24.5, 4.1, false), 24.5, 8.5, "coach_green",
                               livery({0.15, 0.40, 0.22}, {0.92, 0.92, 0.88}, 10)))
    files.push_back(std::move(f));
  return files;
}

std::vector<ExampleFile> railway_model_t3d(const std::string& name) {
  for (const auto& [id, make] : kModels) {
    if (id != name) continue;
    const Model m = make();
    std::vector<ExampleFile> out{{name + ".t3d", bytes(t3d_text(m.parts))}};
    for (const auto& [file, data] : m.textures) out.push_back({file, data});
    return out;
  }
  return {};
}

std::vector<ExampleFile> railway_model_e3d(const std::string& name) {
  auto out = railway_model_t3d(name);
  if (out.empty()) return out;
  const std::string text(out[0].bytes.begin(), out[0].bytes.end());
  out[0] = {name + ".e3d", to_e3d(text)};
  return out;
}

std::array<double, 6> railway_view() {
  // From behind the station house, over the platforms and the train, the line curving away north.
  return {-6, 3, 35, 115, 3.6, 0.3};
}

}  // namespace sceneria::demo
