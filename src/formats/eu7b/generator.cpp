#include "formats/eu7b/generator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "formats/eu7b/convert.hpp"
#include "formats/eu7b/pack.hpp"

namespace sceneria::eu7b {

namespace {

// splitmix64: tiny, fast, and the same sequence on every compiler and standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double range(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }

 private:
  std::uint64_t state_;
};

class Strings {
 public:
  explicit Strings(StringTable& table) : table_(table) {}
  Sid operator()(const std::string& s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<Sid>(table_.size());
    table_.push_back(s);
    ids_.emplace(s, id);
    return id;
  }

 private:
  StringTable& table_;
  std::unordered_map<std::string, Sid> ids_;
};

std::uint16_t to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const int exponent = static_cast<int>((x >> 23) & 0xFF) - 127 + 15;
  std::uint32_t mantissa = x & 0x7FFFFFu;
  if (exponent <= 0) return static_cast<std::uint16_t>(sign);  // flush tiny values to zero
  if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);
  mantissa += 0x1000u;  // round to nearest
  if (mantissa & 0x800000u) return static_cast<std::uint16_t>(sign | ((exponent + 1) << 10));
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13));
}

PackedVertex vertex(double x, double y, double z, float u, float v) {
  PackedVertex p;
  p.position[0] = static_cast<float>(x);
  p.position[1] = static_cast<float>(y);
  p.position[2] = static_cast<float>(z);
  p.normal[1] = 32767;  // up
  p.uv[0] = to_half(u);
  p.uv[1] = to_half(v);
  return p;
}

Vec3f v3(double x, double y, double z) { return {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)}; }

SlimNode named(Sid name) {
  SlimNode n;
  n.flags = node_flag::name;
  n.name = name;
  return n;
}

struct Pose {  // a point on the line and its heading (radians, 0 = +Z, positive turns to +X)
  double x = 0, z = 0, heading = 0;
};

struct Segment {
  Pose a, b;
  double length = 0, radius = 0;  // radius 0 = straight; sign = turn direction
};

// The main line: straights and curves, heading roughly +Z.
std::vector<Segment> lay_line(Rng& rng, double km) {
  std::vector<Segment> out;
  Pose p{0.0, -200.0, 0.0};
  double done = 0;
  while (done < km * 1000.0) {
    Segment s;
    s.a = p;
    const bool curve = !out.empty() && rng.uniform() < 0.35;
    s.length = curve ? rng.range(150, 300) : rng.range(100, 250);
    if (curve) {
      const double r = rng.range(900, 2500);
      // Steer back towards +Z so the line stays in its corridor.
      const double sign = p.heading > 0.05 ? -1.0 : (p.heading < -0.05 ? 1.0 : (rng.uniform() < 0.5 ? -1.0 : 1.0));
      s.radius = sign * r;
      const double turn = s.length / r * sign;
      const double h0 = p.heading, h1 = p.heading + turn;
      // Exact arc end point.
      p.x += r * sign * (std::cos(h0) - std::cos(h1));
      p.z += r * sign * (std::sin(h1) - std::sin(h0));
      p.heading = h1;
    } else {
      p.x += s.length * std::sin(p.heading);
      p.z += s.length * std::cos(p.heading);
    }
    s.b = p;
    out.push_back(s);
    done += s.length;
  }
  return out;
}

Pose offset(const Pose& p, double right) {
  return {p.x + right * std::cos(p.heading), p.z - right * std::sin(p.heading), p.heading};
}

TrackPath path_of(const Pose& a, const Pose& b, double length, double radius) {
  TrackPath path;
  path.p1 = v3(a.x, 0, a.z);
  path.p2 = v3(b.x, 0, b.z);
  if (radius != 0) {
    // Control vectors along the tangents, relative to each end point (notes §9).
    const double k = length / 3.0;
    path.cp_out = v3(k * std::sin(a.heading), 0, k * std::cos(a.heading));
    path.cp_in = v3(-k * std::sin(b.heading), 0, -k * std::cos(b.heading));
    path.radius = static_cast<float>(radius);
  }
  return path;
}

struct ModelKind {
  const char* file;
  const char* texture;
  bool named;
  bool lights;
  double scale_jitter;
  double weight;
};

constexpr ModelKind kKinds[] = {
    {"drzewa/sosna1.t3d", "none", false, false, 0.25, 18},    {"drzewa/sosna2.t3d", "none", false, false, 0.25, 14},
    {"drzewa/brzoza1.t3d", "none", false, false, 0.2, 10},    {"drzewa/dab1.t3d", "none", false, false, 0.3, 8},
    {"drzewa/swierk1.t3d", "none", false, false, 0.2, 8},     {"krzaki/krzak1.t3d", "none", false, false, 0.4, 8},
    {"krzaki/krzak2.t3d", "none", false, false, 0.4, 6},      {"trakcja/slup_b.t3d", "none", false, false, 0, 5},
    {"trakcja/slup_s.t3d", "none", false, false, 0, 3},       {"budynki/dom1.t3d", "budynki/dach_czerwony.bmp", false, false, 0, 2},
    {"budynki/dom2.t3d", "budynki/dach_szary.bmp", false, false, 0, 2},
    {"budynki/blok12.t3d", "none", true, false, 0, 1},        {"budynki/garaz.t3d", "none", false, false, 0, 2},
    {"plot/plot_S\xb3up_A.t3d", "none", false, false, 0, 4},  {"plot/plot_pole_B.t3d", "none", false, false, 0, 3},
    {"lampy/lampa.t3d", "none", true, true, 0, 2},            {"sygnaly/semafor_3k.t3d", "none", true, true, 0, 1},
    {"znaki/w4.t3d", "znaki/w4.bmp", false, false, 0, 1},     {"infrastruktura/szafa.t3d", "none", false, false, 0, 1},
};

// A file GeneratorOptions::model_files names: untextured, unnamed, unlit, scaled ±10 %.
constexpr ModelKind kGiven = {"", "none", false, false, 0.2, 1};

}  // namespace

Result<Module> generate_module(const GeneratorOptions& o) {
  if (o.version < 7 || o.version > 9)
    return Error{Errc::unsupported_version, 0, fmt::format("the generator writes versions 7-9, not {}", o.version)};
  if (o.models > 200'000'000ull) return Error{Errc::bad_count, 0, "at most 200,000,000 models"};
  Rng rng(o.seed);
  Module m;
  m.container.version = 7;  // built flat, then converted to the requested version/format
  Strings sid(m.strings);
  auto add = [&](std::uint32_t id, ChunkData data) { m.chunks.push_back(Chunk{id, 0, std::move(data), {}, false}); };

  // ---- includes and placement ----
  std::vector<Include> includes(2);
  includes[0].source_line = 3;
  includes[0].source_path = sid("scenery/generated/teren.scm");
  includes[0].binary_path = sid("scenery/generated/teren.eu7");
  includes[1].source_line = 4;
  includes[1].source_path = sid("scenery/generated/stacja.inc");
  includes[1].binary_path = sid("scenery/generated/stacja.eu7");
  includes[1].parameters = {sid("120.5"), sid("0"), sid("2040"), sid("90")};
  includes[1].site.origins = {v3(120.5, 0, 2040)};
  includes[1].site.rotation = v3(0, 90, 0);

  // ---- tracks along the line, a parallel track, a station with switches, a road and a river ----
  const std::vector<Segment> line = lay_line(rng, o.track_km);
  RecordList<Track> tracks;
  RecordList<Traction> traction;
  std::vector<Event> events;
  auto make_track = [&](const std::string& name, std::uint8_t type, std::uint8_t category, std::vector<TrackPath> paths,
                        double length) {
    Track t;
    t.node = named(sid(name));
    t.type = type;
    t.category = category;
    t.length = static_cast<float>(length);
    t.width = category == 1 ? 1.435f : (category == 2 ? 7.0f : 12.0f);
    t.friction = 0.15f;
    t.sound_distance = 20.0f;
    t.quality = 20;
    t.environment = 1;
    t.has_visibility = 1;
    t.visibility.material1 = sid(category == 1 ? "rail_screw_used1" : (category == 2 ? "asfalt" : "woda"));
    t.visibility.tex_length = 4.0f;
    t.visibility.material2 = sid(category == 1 ? "tpbps-new3" : "none");
    t.visibility.tex_height1 = 0.2f;
    t.visibility.tex_width = 1.5f;
    t.visibility.tex_slope = 1.2f;
    t.paths = std::move(paths);
    t.tails.push_back({7, kNoString, sid(category == 1 ? "120" : "50")});  // velocity
    return t;
  };
  for (int side = 0; side < 2; ++side) {
    const double right = side == 0 ? 0.0 : 4.5;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const Segment& s = line[i];
      const Pose a = offset(s.a, right), b = offset(s.b, right);
      const std::string name = fmt::format("t{}_{:04}", side + 1, i);
      Track t = make_track(name, 1, 1, {path_of(a, b, s.length, s.radius)}, s.length);
      if (i % 10 == 0) {
        const std::string ev = fmt::format("ev_{}", name);
        t.tails.push_back({1, kNoString, sid(ev)});  // event0
        Event e;
        e.name = sid(ev);
        e.type = 7;  // Multiple
        e.targets = {sid(fmt::format("mc_{}", name))};
        e.payload = {{sid("condition"), sid("trackoccupied")}};
        events.push_back(e);
      }
      if (i == 0) t.tails.push_back({255, sid("trackbed_custom"), sid("gravel")});
      tracks.records.push_back(std::move(t));

      // Catenary over every main-line segment: contact wire 5.6 m, messenger 7.0 m.
      Traction w;
      w.node = named(sid(fmt::format("w{}_{:04}", side + 1, i)));
      w.power_supply = sid("ps_main");
      w.material = 1;
      w.nominal_voltage = 3000;
      w.max_current = 2000;
      w.resistivity = 0.01f;
      w.resistivity_legacy = 0.01f;
      w.material_raw = sid("cu");
      w.wire_thickness = 0.012f;
      w.p1 = v3(a.x, 5.6, a.z);
      w.p2 = v3(b.x, 5.6, b.z);
      w.p3 = v3(a.x, 7.0, a.z);
      w.p4 = v3(b.x, 7.0, b.z);
      w.min_height = 0.4f;
      w.segment_length = 10.0f;
      w.wire_count = 3;
      w.wire_offset = 0.1f;
      if (side == 1) {
        w.has_parallel = 1;
        w.parallel = sid(fmt::format("w1_{:04}", i));
      }
      traction.records.push_back(w);
    }
  }
  {  // Station switches at the second segment: straight path + diverging path to the parallel track.
    const Segment& s = line[std::min<std::size_t>(1, line.size() - 1)];
    const Pose a = s.a;
    const Pose straight{a.x + 40 * std::sin(a.heading), a.z + 40 * std::cos(a.heading), a.heading};
    const Pose diverge = offset(straight, 4.5);
    TrackPath p1 = path_of(a, straight, 40, 0);
    TrackPath p2 = path_of(a, diverge, 40.3, 0);
    p2.cp_out = v3(13 * std::sin(a.heading), 0, 13 * std::cos(a.heading));
    p2.cp_in = v3(-13 * std::sin(a.heading), 0, -13 * std::cos(a.heading));
    p2.radius = 300;
    tracks.records.push_back(make_track("zwr_1", 2, 1, {p1, p2}, 40));
    Track road = make_track("droga_1", 1, 2, {path_of({-300, 600, std::numbers::pi / 2}, {300, 600, std::numbers::pi / 2}, 600, 0)}, 600);
    tracks.records.push_back(std::move(road));
    tracks.records.push_back(make_track("rzeka_1", 1, 4, {path_of({-500, 1500, 1.2}, {500, 1800, 1.2}, 1044, 0)}, 1044));
  }

  // ---- terrain tiles: one batch per 1 km section along the line ----
  Terrain terrain;
  terrain.flags = terrain_flag::batched;
  terrain.material = sid("grass_spring");
  {
    const int rows = static_cast<int>(std::ceil(o.track_km)) + 1;
    for (int r = -1; r < rows; ++r)
      for (int c = -1; c <= 0; ++c) {
        TerrainBatch b;
        b.section_x = c + 250;
        b.section_z = r + 250;
        const double x0 = c * 1000.0, z0 = r * 1000.0, step = 100.0;
        for (int i = 0; i < 10; ++i)
          for (int j = 0; j < 10; ++j) {
            const double x = x0 + i * step, z = z0 + j * step;
            auto h = [&](double px, double pz) { return std::abs(px) < 30 ? -0.3 : 0.5 * std::sin(px * 0.01) * std::cos(pz * 0.013) - 0.3; };
            const auto u = static_cast<float>(i), v = static_cast<float>(j);
            b.vertices.push_back(vertex(x, h(x, z), z, u, v));
            b.vertices.push_back(vertex(x, h(x, z + step), z + step, u, v + 1));
            b.vertices.push_back(vertex(x + step, h(x + step, z), z, u + 1, v));
            b.vertices.push_back(vertex(x + step, h(x + step, z), z, u + 1, v));
            b.vertices.push_back(vertex(x, h(x, z + step), z + step, u, v + 1));
            b.vertices.push_back(vertex(x + step, h(x + step, z + step), z + step, u + 1, v + 1));
          }
        terrain.batches.push_back(std::move(b));
      }
  }

  // ---- shapes (platforms) and lines (fences) ----
  RecordList<Shape> shapes;
  for (int i = 0; i < 4; ++i) {
    Shape s;
    s.node = named(sid(fmt::format("peron_{}", i + 1)));
    s.node.flags |= node_flag::range_max;
    s.node.range_sq_max = 1500.0f * 1500.0f;
    s.material = sid("peron_beton");
    s.has_lighting = i == 0;
    const double x = 8 + i * 0.01, z = 300 + i * 200.0;
    s.vertices = {vertex(x, 0.9, z, 0, 0), vertex(x, 0.9, z + 150, 0, 15), vertex(x + 6, 0.9, z, 1, 0),
                  vertex(x + 6, 0.9, z, 1, 0), vertex(x, 0.9, z + 150, 0, 15), vertex(x + 6, 0.9, z + 150, 1, 15)};
    shapes.records.push_back(std::move(s));
  }
  RecordList<Line> lines;
  for (int i = 0; i < 3; ++i) {
    Line l;
    l.subtype = static_cast<std::uint8_t>(i);
    l.node = named(sid(fmt::format("plot_{}", i + 1)));
    l.width = 1.0f;
    for (int k = 0; k < 5; ++k) l.vertices.push_back(v3(-20 - i * 3.0, 1.2, 250 + k * 25.0));
    lines.records.push_back(std::move(l));
  }

  // ---- a few MODL models (station buildings), simulation records ----
  ModelList modl;
  for (int i = 0; i < 3; ++i) {
    Model mo;
    mo.node = named(sid(fmt::format("dworzec_{}", i + 1)));
    mo.transition = 1;
    mo.location = v3(25, 0, 400 + i * 60.0);
    mo.angles = v3(0, 90, 0);
    mo.scale = v3(1, 1, 1);
    mo.model_file = sid("budynki/dworzec.t3d");
    mo.texture = sid("none");
    modl.models.push_back(mo);
  }
  RecordList<PowerSource> power;
  {
    PowerSource p;
    p.node = named(sid("ps_main"));
    p.position = v3(30, 0, 500);
    p.nominal_voltage = 3300;
    p.frequency = 0;
    p.internal_resistance = 0.2f;
    p.max_output_current = 6000;
    p.fast_fuse_timeout = 0.1f;
    p.fast_fuse_repetition = 10;
    p.slow_fuse_timeout = 60;
    p.modifier = 2;
    power.records.push_back(p);
  }
  RecordList<MemCell> memcells;
  for (int i = 0; i < 4; ++i) {
    MemCell c;
    c.node = named(sid(fmt::format("mc_t1_{:04}", i * 10)));
    c.text = sid("ShuntVelocity");
    c.value1 = 40;
    c.track = sid(fmt::format("t1_{:04}", i * 10));
    memcells.records.push_back(c);
  }
  RecordList<EventLauncher> launchers;
  for (int i = 0; i < 3; ++i) {
    EventLauncher l;
    l.node = named(sid(fmt::format("lau_{}", i + 1)));
    l.location = v3(10, 0, 350 + i * 100.0);
    l.radius_sq = 100;
    l.activation_key_raw = sid("none");
    l.delta_time = i == 0 ? 60.0f : -1.0f;
    l.event1 = sid(fmt::format("ev_t1_{:04}", i * 10));
    l.hour = -1;
    l.minute = -1;
    if (i == 2) {
      l.has_condition = 1;
      l.memcell = sid("mc_t1_0000");
      l.compare_text = sid("*");
      l.compare_value1 = 40;
      l.check_mask = 2;
    }
    launchers.records.push_back(l);
  }
  RecordList<Dynamic> dynamics;
  const char* vehicles[] = {"EU07-424", "EU07-424", "Bdhpumn"};
  for (int i = 0; i < 3; ++i) {
    Dynamic d;
    d.node = named(sid(fmt::format("poj_{}", i + 1)));
    d.data_folder = sid(i < 2 ? "dynamic/pkp/eu07_v1" : "dynamic/pkp/bdhpumn");
    d.skin = sid(i < 2 ? "eu07-424" : "bdhpumn_1");
    d.mmd = sid(vehicles[i]);
    d.track = sid("t1_0002");
    d.driver_type = sid(i == 0 ? "headdriver" : "nobody");
    d.load_type = sid("none");
    d.coupling_params = sid("3");
    d.coupling_raw = sid("3");
    d.offset = static_cast<float>(-1.0 - 20.0 * i);
    d.coupling = 3;
    d.velocity = 0;
    d.has_trainset_index = 1;
    d.trainset_index = 0;
    dynamics.records.push_back(d);
  }
  RecordList<Sound> sounds;
  for (int i = 0; i < 2; ++i) {
    Sound s;
    s.node = named(sid(fmt::format("dzwiek_{}", i + 1)));
    s.node.flags |= node_flag::range_max;
    s.node.range_sq_max = 200 * 200;
    s.location = v3(20, 2, 420 + i * 40.0);
    s.wav = sid(i == 0 ? "sounds/ptaki.wav" : "sounds/dzwonek.wav");
    sounds.records.push_back(s);
  }
  std::vector<Trainset> trainsets(1);
  trainsets[0].name = sid("osobowy_1234");
  trainsets[0].track = sid("t1_0002");
  trainsets[0].velocity = 0;
  trainsets[0].assignments = {{sid("rozklad"), sid("1234")}};
  trainsets[0].vehicles = {0, 1, 2};
  trainsets[0].couplings = {3, 3, 3};
  trainsets[0].driver_index = 0;

  // ---- PACK models over 1 km sections ----
  // At most 500 x 250 sections (checked below), so section indices fit in size_t everywhere.
  const auto sections = static_cast<std::size_t>(
      std::max<std::uint64_t>(1, (o.models + o.models_per_section - 1) / o.models_per_section));
  const auto width = static_cast<std::size_t>(std::max(3.0, std::ceil(std::sqrt(static_cast<double>(sections)) / 2)));
  const std::size_t length = (sections + width - 1) / width;
  if (length > 250 || width > 500)
    return Error{Errc::bad_count, 0, fmt::format("{} models need {} sections, more than the 500 x 500 grid holds",
                                                 o.models, sections)};
  // Split the models over the sections with some variation, summing exactly to `models`.
  std::vector<double> weight(sections);
  double total = 0;
  for (auto& w : weight) total += (w = rng.range(0.6, 1.4));
  std::vector<std::uint64_t> per_section(sections);
  std::uint64_t assigned = 0;
  for (std::size_t i = 0; i < sections; ++i) {
    per_section[i] = static_cast<std::uint64_t>(std::floor(static_cast<double>(o.models) * weight[i] / total));
    assigned += per_section[i];
  }
  for (std::size_t i = 0; assigned < o.models; i = (i + 1) % sections, ++assigned) ++per_section[i];

  double weight_sum = 0;
  for (const ModelKind& k : kKinds) weight_sum += k.weight;
  std::vector<Sid> kind_file, kind_tex, given_file;
  for (const ModelKind& k : kKinds) {
    kind_file.push_back(sid(k.file));
    kind_tex.push_back(sid(k.texture));
  }
  for (const std::string& f : o.model_files) given_file.push_back(sid(f));
  const Sid no_texture = sid("none");
  std::vector<PidxEntry> pidx;
  PackChunk pack;
  pack.loaded = pack.decoded = true;
  std::uint64_t serial = 0;
  const auto first_col = static_cast<int>(250 - width / 2);
  for (std::size_t i = 0; i < sections; ++i) {
    PidxEntry e;
    e.row = static_cast<std::uint16_t>(250 + i / width);
    e.col = static_cast<std::uint16_t>(first_col + static_cast<int>(i % width));
    e.model_count = static_cast<std::uint32_t>(per_section[i]);
    e.pack_offset = i;
    pidx.push_back(e);
    PackSection s;
    s.offset = i;
    s.format = SectionFormat::flat;
    s.solo.models.reserve(static_cast<std::size_t>(per_section[i]));
    const double x_min = (e.col - 250) * 1000.0, z_min = (e.row - 250) * 1000.0;
    for (std::uint64_t k = 0; k < per_section[i]; ++k) {
      // The file first (one of the given ones, each as likely, or a kind by weight), then one
      // placement for either.
      const double pick = rng.uniform();
      std::size_t kind = 0;
      if (given_file.empty()) {
        double left = pick * weight_sum;
        while (kind + 1 < std::size(kKinds) && left >= kKinds[kind].weight) left -= kKinds[kind++].weight;
      } else {
        kind = std::min(given_file.size() - 1, static_cast<std::size_t>(pick * static_cast<double>(given_file.size())));
      }
      const ModelKind& mk = given_file.empty() ? kKinds[kind] : kGiven;
      Model mo;
      if (mk.named) mo.node = named(sid(fmt::format("{}_{}", mk.file[0] == 'b' ? "bud" : "obj", serial)));
      mo.transition = 1;
      mo.location = v3(x_min + rng.range(0, 1000), 0, z_min + rng.range(0, 1000));
      mo.angles = v3(0, std::floor(rng.range(0, 360)), 0);
      const double sc = 1.0 + mk.scale_jitter * (rng.uniform() - 0.5);
      mo.scale = v3(sc, sc, sc);
      mo.model_file = given_file.empty() ? kind_file[kind] : given_file[kind];
      mo.texture = given_file.empty() ? kind_tex[kind] : no_texture;
      if (mk.lights) {
        mo.lights = {static_cast<std::uint32_t>(s.solo.light_states.size()), 2};
        s.solo.light_states.insert(s.solo.light_states.end(), {1.0f, 0.0f});
        mo.colors = {static_cast<std::uint32_t>(s.solo.light_colors.size()), 1};
        s.solo.light_colors.push_back(0xFFFFD080u);
      }
      s.solo.models.push_back(mo);
      ++serial;
    }
    s.solo_count = static_cast<std::uint32_t>(s.solo.models.size());
    pack.sections.push_back(std::move(s));
  }

  // ---- assemble in the reference writer's chunk order (notes §4) ----
  const auto strings_count = static_cast<std::uint32_t>(m.strings.size());
  add(chunk::STRS, StringsChunk{0, strings_count});
  add(chunk::INCL, std::move(includes));
  add(chunk::PLAC, Placement{});
  add(chunk::TRAK, std::move(tracks));
  add(chunk::TERR, std::move(terrain));
  add(chunk::MESH, std::move(shapes));
  add(chunk::LINE, std::move(lines));
  add(chunk::MODL, std::move(modl));
  add(chunk::PIDX, std::move(pidx));
  add(chunk::PACK, std::move(pack));
  add(chunk::TRAC, std::move(traction));
  add(chunk::PWRS, std::move(power));
  add(chunk::MEMC, std::move(memcells));
  add(chunk::LAUN, std::move(launchers));
  add(chunk::DYNM, std::move(dynamics));
  add(chunk::SOND, std::move(sounds));
  add(chunk::TRSE, std::move(trainsets));
  add(chunk::EVNT, std::move(events));
  add(chunk::FINT, std::uint32_t{1});
  if (m.strings.size() != strings_count) return Error{Errc::bad_value, 0, "generator: strings added after STRS was sized"};

  ConvertOptions convert;
  convert.version = o.version;
  convert.keep_pack_format = o.keep_default_format;
  convert.pack_format = o.pack_format;
  if (o.keep_default_format) {
    convert.keep_pack_format = false;
    convert.pack_format = default_section_format(o.version);
  }
  return convert_module(m, convert);
}

}  // namespace sceneria::eu7b
