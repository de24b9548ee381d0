#include "formats/eu7b/to_scene.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <glm/gtc/constants.hpp>
#include <fmt/format.h>
#include <glm/gtc/quaternion.hpp>

#include "formats/eu7b/format.hpp"
#include "formats/eu7b/pack.hpp"

namespace sceneria::eu7b {

namespace {

using scene::Batch;
using scene::rgba;

constexpr double kRailHeight = 0.18;  // the engine adds it to rail track ends at load (notes §9)
constexpr double kRailGauge = 1.435;
constexpr double kRailWidth = 0.08;
constexpr double kBallastWidth = 3.2;
constexpr double kMaxPiece = 20.0;    // long straight pieces are cut (clipping-friendly, fog per vertex)
constexpr float kProxySize = 4.0f;

std::string_view text(const Module& m, Sid id) {
  return id == kNoString || id >= m.strings.size() ? std::string_view() : m.strings[id];
}
glm::dvec3 d3(const Vec3f& v) { return {v.x, v.y, v.z}; }

// A piece count from a length a hostile file sets (1e30, NaN): within [lo, hi], never an
// out-of-range conversion or a billion-piece loop.
int bounded_count(double v, int lo, int hi) {
  if (!(v >= lo)) return lo;
  if (v >= hi) return hi;
  return static_cast<int>(v);
}

}  // namespace

namespace {
struct Kinds {
  std::uint32_t tracks, traction, shapes, terrain, lines, models, pack, launchers, sounds, power, dynamics;
};
// Every kind in the same order in every scene and delta, so that kind ids agree between them.
Kinds add_kinds(scene::Scene& s) {
  return {s.add_kind("tracks"), s.add_kind("traction"), s.add_kind("shapes"), s.add_kind("terrain"), s.add_kind("lines"),
          s.add_kind("models"), s.add_kind("pack_models"), s.add_kind("launchers"), s.add_kind("sounds"),
          s.add_kind("power"), s.add_kind("dynamics")};
}
}  // namespace

struct SceneBuilder::Builder {
  const Module& m;
  const Vehicles* vehicles = nullptr;
  scene::Scene s;
  std::map<std::string, std::int32_t> curve_of_track;  // a rail track's name -> its first curve
  std::unordered_map<std::uint64_t, std::uint32_t> mesh_of;  // file sid -> mesh id (global)
  std::unordered_map<std::uint32_t, float> mesh_size;        // proxy mesh id -> its box's size
  std::uint32_t mesh_total = 0, object_total = 0;             // across everything built so far
  std::map<std::uint32_t, std::uint64_t> next_index;          // chunk id -> its next record's index
  std::size_t chunks_built = 0;                               // module chunks turned into scene so far
  std::vector<scene::TrackCurve> curves;                      // build's rail curves, kept for rest()'s vehicles
  bool vehicles_placed = false;

  void records(const Kinds& kind);

  // An object of this scene with its id in the whole document (deltas continue the ids).
  std::uint32_t object(std::uint32_t kind, std::uint64_t index, const glm::dvec3& anchor, float radius = 5.0f) {
    return s.object_base + s.add_object(kind, index, anchor, radius);
  }

  // A batch of `primitive` in the section holding `anchor`; positions are made relative to it.
  Batch& batch(scene::Section& sec, Batch::Primitive primitive) {
    for (Batch& b : sec.batches)
      if (b.primitive == primitive) return b;
    sec.batches.emplace_back().primitive = primitive;
    return sec.batches.back();
  }

  void triangle_vertex(Batch& b, const scene::Section& sec, const glm::dvec3& p, const glm::vec3& n,
                       std::uint32_t color, std::uint32_t object) {
    b.positions.emplace_back(p - sec.origin);
    b.normals.push_back(n);
    b.colors.push_back(color);
    b.objects.push_back(object);
  }
  // `max_pieces`: how finely a long line may be cut (a hostile file's droppers each as long as
  // its wire would otherwise make 200 x 2000 pieces of one record).
  void line(scene::Section& sec, const glm::dvec3& a, const glm::dvec3& b, std::uint32_t color, std::uint32_t object,
            int max_pieces = 2000) {
    Batch& lines = batch(sec, Batch::Primitive::lines);
    const int pieces = bounded_count(std::ceil(glm::length(b - a) / kMaxPiece), 1, max_pieces);
    for (int i = 0; i < pieces; ++i) {
      for (int k : {i, i + 1}) {
        lines.positions.emplace_back(glm::mix(a, b, static_cast<double>(k) / pieces) - sec.origin);
        lines.normals.emplace_back(0.0f, 1.0f, 0.0f);
        lines.colors.push_back(color);
        lines.objects.push_back(object);
      }
    }
  }

  // A surface's material (its texture by name: loaded once model files and textures are).
  std::uint32_t material(std::string_view texture, std::uint32_t color, bool translucent) {
    scene::Material look;
    look.name = std::string(texture);
    look.color = color;
    if (!texture.empty()) look.texture = s.add_texture(std::string(texture));
    look.alpha = translucent ? scene::Material::Alpha::blend : scene::Material::Alpha::opaque;
    return s.add_material(look);
  }

  // A file's proxy: a box standing on the ground, as big as the first instance of the file says
  // the model is (its node's bounding sphere, in the model's own units), else 4 m. The size is the
  // mesh's, not the instances', so a loaded model takes the proxy's place under the same
  // instance transforms (scene::replace_meshes).
  std::uint32_t proxy_mesh(Sid file, std::string_view name, float size) {
    auto it = mesh_of.find(file);
    if (it != mesh_of.end()) return it->second;
    scene::Material look;
    look.name = std::string(name);
    look.color = scene::color_for_name(name);
    const float h = size / 2;
    scene::Mesh mesh = scene::box_mesh(std::string(name), {-h, 0, -h}, {h, size, h}, s.add_material(look));
    mesh.proxy = true;
    if (file != kNoString && !text(m, file).empty()) mesh.files = model_candidates(text(m, file));
    s.meshes.push_back(std::move(mesh));
    const std::uint32_t id = mesh_total++;  // ids continue across streamed deltas
    mesh_of.emplace(file, id);
    mesh_size.emplace(id, size);
    return id;
  }

  void instance(std::uint32_t kind, std::uint64_t index, Sid file, const SlimNode* node, float range_sq_max,
                const Vec3f& location, const Vec3f& angles, const Vec3f& scale) {
    const glm::dvec3 where = d3(location);
    scene::Section& sec = s.section_at(where);
    scene::Instance inst;
    inst.offset = glm::vec3(where - sec.origin);
    // MaSzyna turns a model about Y, then X, then Z (degrees), then scales it.
    inst.rotation = glm::angleAxis(glm::radians(angles.y), glm::vec3(0, 1, 0)) *
                    glm::angleAxis(glm::radians(angles.x), glm::vec3(1, 0, 0)) *
                    glm::angleAxis(glm::radians(angles.z), glm::vec3(0, 0, 1));
    inst.scale = {scale.x, scale.y, scale.z};
    const float largest = std::max({std::abs(scale.x), std::abs(scale.y), std::abs(scale.z)});
    float size = kProxySize;
    // The node's bounding sphere is in the world; the model's own size is that over its scale.
    if (node && (node->flags & node_flag::bounds) && node->bounds_radius > 0.5f && largest > 1e-3f &&
        std::isfinite(node->bounds_radius))
      size = std::min(node->bounds_radius * 2.0f / largest, 1000.0f);
    inst.mesh = proxy_mesh(file, text(m, file).empty() ? std::string_view("(no model file)") : text(m, file), size);
    inst.range_sq_max = std::isinf(range_sq_max) ? 1e30f : range_sq_max;
    const float box = mesh_size_of(inst.mesh);
    inst.object = s.object_base + s.add_object(kind, index, where, box * std::max({inst.scale.x, inst.scale.y, inst.scale.z}));
    sec.instances.push_back(inst);
  }

  float mesh_size_of(std::uint32_t id) const {
    auto it = mesh_size.find(id);
    return it == mesh_size.end() ? kProxySize : it->second;
  }

  // ---- tracks ----

  void track(const Track& t, std::uint64_t index, std::uint32_t kind) {
    if (t.paths.empty()) return;
    const bool rail = t.category == 1, road = t.category == 2;
    const double lift = rail ? kRailHeight : 0.0;
    std::uint32_t object = scene::kNoObject;
    for (const TrackPath& path : t.paths) {
      glm::dvec3 p[4] = {d3(path.p1), d3(path.p1) + d3(path.cp_out), d3(path.p2) + d3(path.cp_in), d3(path.p2)};
      double length = 0;
      glm::dvec3 prev = p[0];
      for (int i = 1; i <= 32; ++i) {
        const glm::dvec3 q = scene::bezier_point(p, i / 32.0);
        length += glm::length(q - prev);
        prev = q;
      }
      if (object == scene::kNoObject) object = this->object(kind, index, scene::bezier_point(p, 0.5), static_cast<float>(length / 2));
      // Segments: 20 m on straights, about 2 degrees of turn on curves.
      const double turn = std::acos(std::clamp(glm::dot(scene::bezier_direction(p, 0), scene::bezier_direction(p, 1)), -1.0, 1.0));
      const int n = bounded_count(std::ceil(std::max(length / kMaxPiece, turn / glm::radians(2.0))), 1, 500);
      if (rail) {
        curve_of_track.emplace(std::string(text(m, t.node.name)), static_cast<std::int32_t>(s.tracks.size()));
        scene::TrackCurve curve;
        std::copy(p, p + 4, curve.p);
        curve.roll[0] = path.roll1;
        curve.roll[1] = path.roll2;
        curve.length = length;
        curve.object = object;
        s.tracks.push_back(curve);
      }
      std::vector<glm::dvec3> centre(static_cast<std::size_t>(n) + 1), right(centre.size());
      std::vector<glm::vec3> up(centre.size());
      for (int i = 0; i <= n; ++i) {
        const double u = static_cast<double>(i) / n;
        const glm::dvec3 tangent = scene::bezier_direction(p, u);
        glm::dvec3 r = glm::cross(tangent, glm::dvec3(0, 1, 0));
        r = glm::length(r) < 1e-9 ? glm::dvec3(1, 0, 0) : glm::normalize(r);
        const double roll = glm::radians(glm::mix(static_cast<double>(path.roll1), static_cast<double>(path.roll2), u));
        r = r * std::cos(roll) + glm::cross(tangent, r) * std::sin(roll);
        centre[static_cast<std::size_t>(i)] = scene::bezier_point(p, u);
        right[static_cast<std::size_t>(i)] = r;
        up[static_cast<std::size_t>(i)] = glm::vec3(glm::normalize(glm::cross(r, tangent)));
      }
      scene::Section& sec = s.section_at(scene::bezier_point(p, 0.5));
      Batch& tris = batch(sec, Batch::Primitive::triangles);
      auto ribbon = [&](double from, double to, double height, std::uint32_t color) {
        for (int i = 0; i < n; ++i) {
          const auto a = static_cast<std::size_t>(i), b = a + 1;
          const glm::dvec3 y(0, height, 0);
          const glm::dvec3 a0 = centre[a] + right[a] * from + y, a1 = centre[a] + right[a] * to + y;
          const glm::dvec3 b0 = centre[b] + right[b] * from + y, b1 = centre[b] + right[b] * to + y;
          for (const auto& [q, nrm] : {std::pair{a0, up[a]}, {b0, up[b]}, {a1, up[a]}, {a1, up[a]}, {b0, up[b]}, {b1, up[b]}})
            triangle_vertex(tris, sec, q, nrm, color, object);
        }
      };
      if (rail) {
        if (t.has_visibility) ribbon(-kBallastWidth / 2, kBallastWidth / 2, 0.02, rgba(0.56f, 0.52f, 0.47f));
        for (double side : {-1.0, 1.0}) {
          const double c = side * (kRailGauge + kRailWidth) / 2;
          ribbon(c - kRailWidth / 2, c + kRailWidth / 2, lift, rgba(0.30f, 0.28f, 0.27f));
        }
      } else {
        const double w = std::max(1.0, static_cast<double>(t.width));
        ribbon(-w / 2, w / 2, 0.03, road ? rgba(0.30f, 0.30f, 0.33f) : rgba(0.22f, 0.38f, 0.62f));
      }
    }
  }

  void traction(const Traction& w, std::uint64_t index, std::uint32_t kind) {
    const glm::dvec3 p1 = d3(w.p1), p2 = d3(w.p2), p3 = d3(w.p3), p4 = d3(w.p4);
    const std::uint32_t object = this->object(kind, index, (p1 + p2) * 0.5, static_cast<float>(glm::length(p2 - p1) / 2));
    scene::Section& sec = s.section_at((p1 + p2) * 0.5);
    line(sec, p1, p2, rgba(0.62f, 0.38f, 0.18f), object);  // contact wire
    line(sec, p3, p4, rgba(0.18f, 0.18f, 0.20f), object);  // messenger
    const double length = glm::length(p2 - p1);
    const double step = w.segment_length > 0.5f ? w.segment_length : 10.0;
    const int droppers = bounded_count(length / step, 1, 200);
    for (int i = 1; i < droppers; ++i) {
      const double u = static_cast<double>(i) / droppers;
      line(sec, glm::mix(p1, p2, u), glm::mix(p3, p4, u), rgba(0.35f, 0.35f, 0.38f), object, 1);  // a dropper is short
    }
  }

  static glm::vec3 normal_of(const PackedVertex& v) {
    glm::vec3 n(v.normal[0] / 32767.0f, v.normal[1] / 32767.0f, v.normal[2] / 32767.0f);
    return glm::length(n) < 1e-6f ? glm::vec3(0, 1, 0) : glm::normalize(n);
  }

  void triangles(const std::vector<PackedVertex>& verts, const glm::dvec3& origin, std::uint32_t color,
                 std::uint32_t object) {
    if (verts.size() < 3) return;
    glm::dvec3 lo(1e300), hi(-1e300);
    for (const PackedVertex& v : verts) {
      const glm::dvec3 p = origin + glm::dvec3(v.position[0], v.position[1], v.position[2]);
      lo = glm::min(lo, p);
      hi = glm::max(hi, p);
    }
    scene::Section& sec = s.section_at((lo + hi) * 0.5);
    if (object >= s.object_base && object - s.object_base < s.objects.size()) {  // it sits at the middle of its triangles
      s.objects[object - s.object_base].anchor = (lo + hi) * 0.5;
      s.objects[object - s.object_base].radius = static_cast<float>(glm::length(hi - lo) / 2);
    }
    Batch& tris = batch(sec, Batch::Primitive::triangles);
    const std::size_t usable = verts.size() - verts.size() % 3;
    for (std::size_t i = 0; i < usable; ++i) {
      const PackedVertex& v = verts[i];
      triangle_vertex(tris, sec, origin + glm::dvec3(v.position[0], v.position[1], v.position[2]), normal_of(v), color,
                      object);
    }
  }

  // Each DYNM record where its trainset puts it, a box of its size until its .mmd's models load.
  void vehicles_on_tracks(std::uint32_t kind, std::span<const scene::TrackCurve> on) {
    Vehicles fallback;
    const Vehicles* v = vehicles;
    if (!v) v = &(fallback = read_vehicles(m, nullptr));
    if (v->looks.empty()) return;
    vehicles_placed = true;
    const auto poses = place_vehicles(m, *v, on, curve_of_track);
    std::map<std::string, std::uint32_t> mesh_of_look;  // folder/type, skin, size -> proxy
    for (std::size_t i = 0; i < poses.size() && i < v->looks.size(); ++i) {
      if (!poses[i].placed) continue;
      const VehicleLook& look = v->looks[i];
      const std::string key = fmt::format("{}{}\n{}\n{}x{}x{}", look.folder, look.type, look.skin, look.length, look.width, look.height);
      auto it = mesh_of_look.find(key);
      if (it == mesh_of_look.end()) {
        scene::Material paint;
        paint.name = look.type;
        paint.color = scene::color_for_name(look.type);
        const float l = static_cast<float>(look.length) / 2, w = static_cast<float>(look.width) / 2, h = static_cast<float>(look.height);
        scene::Mesh box = scene::box_mesh(fmt::format("{}{} ({})", look.folder, look.type, look.skin), {-w, 0, -l}, {w, h, l}, s.add_material(paint));
        box.proxy = true;
        if (!look.mmd.empty()) {
          box.files = {look.mmd};
          box.file_params = {{"skin-set", look.skin}};
        }
        s.meshes.push_back(std::move(box));
        it = mesh_of_look.emplace(key, mesh_total++).first;
        mesh_size.emplace(it->second, static_cast<float>(look.length));
      }
      const VehiclePose& pose = poses[i];
      scene::Section& sec = s.section_at(pose.position);
      scene::Instance inst;
      inst.offset = glm::vec3(pose.position - sec.origin);
      inst.rotation = glm::quat(pose.rotation);
      inst.mesh = it->second;
      inst.object = s.object_base + s.add_object(kind, i, pose.position + glm::dvec3(0, look.height / 2, 0), static_cast<float>(look.length / 2));
      sec.instances.push_back(inst);
    }
  }

  static std::uint32_t lit_color(std::uint8_t has_lighting, const Lighting& l, std::uint32_t fallback) {
    return has_lighting ? rgba(l.diffuse[0], l.diffuse[1], l.diffuse[2]) : fallback;
  }
};

SceneBuilder::SceneBuilder(const Module& module, const Vehicles* vehicles) : b_(std::make_unique<Builder>(Builder{module, vehicles, {}, {}, {}, {}, 0, 0, {}, 0, {}, false})) {}
SceneBuilder::~SceneBuilder() = default;


// The module's chunks not yet built, from where the last build or rest stopped; indices count
// across repeated chunks of a kind, as RecordBrowser's lists do.
void SceneBuilder::Builder::records(const Kinds& kind) {
  Builder& b = *this;
  for (std::size_t ci = b.chunks_built; ci < m.chunks.size(); ++ci) {
    const Chunk& c = m.chunks[ci];
    std::uint64_t& i = b.next_index[c.id];
    if (const auto* tracks = std::get_if<RecordList<Track>>(&c.data)) {
      for (const Track& t : tracks->records) b.track(t, i++, kind.tracks);
    } else if (const auto* wires = std::get_if<RecordList<Traction>>(&c.data)) {
      for (const Traction& w : wires->records) b.traction(w, i++, kind.traction);
    } else if (const auto* shapes = std::get_if<RecordList<Shape>>(&c.data)) {
      for (const Shape& sh : shapes->records) {
        const std::uint32_t color =
            Builder::lit_color(sh.has_lighting, sh.lighting, scene::color_for_name(text(m, sh.material)) | 0xFF000000u);
        b.material(text(m, sh.material), color, sh.translucent != 0);
        glm::dvec3 anchor = d3(sh.origin);
        if (!sh.vertices.empty()) anchor += glm::dvec3(sh.vertices[0].position[0], sh.vertices[0].position[1], sh.vertices[0].position[2]);
        b.triangles(sh.vertices, d3(sh.origin), color, b.object(kind.shapes, i++, anchor));
      }
    } else if (const auto* t = std::get_if<Terrain>(&c.data)) {
      const std::uint32_t color = Builder::lit_color(t->flags & terrain_flag::lighting, t->lighting, rgba(0.40f, 0.52f, 0.30f));
      b.material(text(m, t->material), color, (t->flags & terrain_flag::translucent) != 0);
      b.s.has_ground = b.s.has_ground || !t->batches.empty() || !t->legacy.empty();
      for (const TerrainBatch& batch : t->batches) {
        glm::dvec3 anchor(0.0);
        if (!batch.vertices.empty()) anchor = {batch.vertices[0].position[0], batch.vertices[0].position[1], batch.vertices[0].position[2]};
        b.triangles(batch.vertices, {}, color, b.object(kind.terrain, i++, anchor));
      }
      for (std::size_t k = 0; k + 3 <= t->legacy.size(); k += 3) {
        const std::vector<PackedVertex> tri(t->legacy.begin() + static_cast<std::ptrdiff_t>(k),
                                            t->legacy.begin() + static_cast<std::ptrdiff_t>(k + 3));
        b.triangles(tri, {}, color, b.object(kind.terrain, i++, {tri[0].position[0], tri[0].position[1], tri[0].position[2]}));
      }
    } else if (const auto* lines = std::get_if<RecordList<Line>>(&c.data)) {
      for (const Line& l : lines->records) {
        const std::uint64_t index = i++;
        if (l.vertices.size() < 2) continue;
        const glm::dvec3 origin = d3(l.origin);
        const std::uint32_t object = b.object(kind.lines, index, origin + d3(l.vertices[0]));
        const std::uint32_t color = Builder::lit_color(l.has_lighting, l.lighting, rgba(0.85f, 0.85f, 0.6f));
        scene::Section& sec = b.s.section_at(origin + d3(l.vertices[0]));
        const std::size_t n = l.vertices.size();
        if (l.subtype == 0) {
          for (std::size_t k = 0; k + 1 < n; k += 2) b.line(sec, origin + d3(l.vertices[k]), origin + d3(l.vertices[k + 1]), color, object);
        } else {
          for (std::size_t k = 0; k + 1 < n; ++k) b.line(sec, origin + d3(l.vertices[k]), origin + d3(l.vertices[k + 1]), color, object);
          if (l.subtype == 2) b.line(sec, origin + d3(l.vertices[n - 1]), origin + d3(l.vertices[0]), color, object);
        }
      }
    } else if (const auto* models = std::get_if<ModelList>(&c.data)) {
      for (const Model& mo : models->models)
        b.instance(kind.models, i++, mo.model_file, &mo.node, mo.node.range_sq_max, mo.location, mo.angles, mo.scale);
    } else if (const auto* launchers = std::get_if<RecordList<EventLauncher>>(&c.data)) {
      for (const EventLauncher& l : launchers->records) b.instance(kind.launchers, i++, 0xFFFFFFF0u, nullptr, 4e6f, l.location, {}, {0.25f, 0.25f, 0.25f});
    } else if (const auto* sounds = std::get_if<RecordList<Sound>>(&c.data)) {
      for (const Sound& so : sounds->records) b.instance(kind.sounds, i++, 0xFFFFFFF1u, nullptr, 4e6f, so.location, {}, {0.25f, 0.25f, 0.25f});
    } else if (const auto* power = std::get_if<RecordList<PowerSource>>(&c.data)) {
      for (const PowerSource& p : power->records) b.instance(kind.power, i++, 0xFFFFFFF2u, nullptr, 4e6f, p.position, {}, {0.5f, 0.5f, 0.5f});
    }
  }
  // Markers for non-model objects are named proxies too.
  for (auto& [file, mesh] : b.mesh_of) {
    if (mesh < b.s.mesh_base || mesh - b.s.mesh_base >= b.s.meshes.size()) continue;  // an earlier part's
    std::string& name = b.s.meshes[mesh - b.s.mesh_base].name;
    if (file == 0xFFFFFFF0u) name = "(event launcher)";
    if (file == 0xFFFFFFF1u) name = "(sound)";
    if (file == 0xFFFFFFF2u) name = "(power source)";
  }
  b.chunks_built = m.chunks.size();
}

scene::Scene SceneBuilder::build(bool with_pack) {
  Builder& b = *b_;
  const Module& m = b.m;
  b.s = {};
  b.s.grid = kSectionGrid;
  b.s.add_material({});  // [0]: the default
  const Kinds kind = add_kinds(b.s);
  const std::uint32_t k_pack = kind.pack;
  b.next_index.clear();
  b.chunks_built = 0;
  b.records(kind);
  // PACK models, in the order RecordBrowser numbers them.
  if (const PackChunk* pack = m.pack(); with_pack && pack && pack->decoded) {
    std::uint64_t index = 0;
    for (const PackSection& sec : pack->sections)
      for (const ExpandedModel& e : expand_section(sec, m.prototypes()))
        b.instance(k_pack, index++, e.file, e.solo ? &e.solo->node : nullptr, e.range_sq_max, e.location, e.angles, e.scale);
  }
  // Drivable connections: curve ends that meet within 0.3 m.
  std::map<std::pair<long long, long long>, std::vector<std::pair<std::int32_t, std::uint8_t>>> ends;
  auto key = [](const glm::dvec3& p) { return std::pair{std::llround(p.x / 0.3), std::llround(p.z / 0.3)}; };
  for (std::size_t c = 0; c < b.s.tracks.size(); ++c)
    for (std::uint8_t end : {std::uint8_t{0}, std::uint8_t{1}})
      ends[key(b.s.tracks[c].p[end * 3])].push_back({static_cast<std::int32_t>(c), end});
  for (std::size_t c = 0; c < b.s.tracks.size(); ++c)
    for (std::uint8_t end : {std::uint8_t{0}, std::uint8_t{1}}) {
      for (const auto& [other, other_end] : ends[key(b.s.tracks[c].p[end * 3])]) {
        if (other == static_cast<std::int32_t>(c)) continue;
        b.s.tracks[c].next[end] = other;
        b.s.tracks[c].next_end[end] = other_end;
        break;
      }
    }
  b.vehicles_on_tracks(kind.dynamics, b.s.tracks);
  // A module read to PACK gets the rest later (read_rest): its vehicles may stand on these curves.
  if (m.container.rest_offset < m.container.file_size) b.curves = b.s.tracks;
  b.s.finish();
  b.object_total = static_cast<std::uint32_t>(b.s.objects.size());
  return std::move(b.s);
}

scene::Scene SceneBuilder::rest() {
  Builder& b = *b_;
  b.s = {};
  b.s.grid = kSectionGrid;
  b.s.mesh_base = b.mesh_total;
  b.s.object_base = b.object_total;
  b.s.add_material({});  // [0]: the default, which batches use
  const Kinds kind = add_kinds(b.s);
  b.records(kind);
  if (!b.vehicles_placed) b.vehicles_on_tracks(kind.dynamics, b.curves);
  b.s.finish();
  b.s.keeps_instances = true;  // what it places stays: the sections' own, not streamed
  b.object_total += static_cast<std::uint32_t>(b.s.objects.size());
  return std::move(b.s);
}

scene::Scene SceneBuilder::pack_section(const PackSection& section, std::uint64_t first_index) {
  Builder& b = *b_;
  b.s = {};
  b.s.grid = kSectionGrid;
  b.s.mesh_base = b.mesh_total;
  b.s.object_base = b.object_total;
  add_kinds(b.s);
  const std::uint32_t k_pack = b.s.add_kind("pack_models");
  std::uint64_t index = first_index;
  for (const ExpandedModel& e : expand_section(section, b.m.prototypes()))
    b.instance(k_pack, index++, e.file, e.solo ? &e.solo->node : nullptr, e.range_sq_max, e.location, e.angles, e.scale);
  // One section per delta: models of a PACK section all lie in it (the writer puts them there).
  if (b.s.sections.size() > 1) {
    scene::Section& keep = b.s.sections.front();
    for (std::size_t k = 1; k < b.s.sections.size(); ++k) {
      scene::Section& other = b.s.sections[k];
      for (scene::Instance i : other.instances) {
        i.offset += glm::vec3(other.origin - keep.origin);
        keep.instances.push_back(i);
      }
    }
    b.s.sections.resize(1);
  }
  for (scene::Section& sec : b.s.sections) {
    b.s.update_bounds(sec);
    sec.static_instances = 0;
  }
  b.object_total += static_cast<std::uint32_t>(b.s.objects.size());
  return std::move(b.s);
}

Result<scene::Scene> to_scene(const Module& m, const Vehicles* vehicles) { return SceneBuilder(m, vehicles).build(true); }

std::uint32_t strings_needed(const PackSection& section, const PrototypeList* prototypes) {
  std::uint32_t reach = 0;
  for (const ExpandedModel& e : expand_section(section, prototypes))
    if (e.file != kNoString) reach = std::max(reach, e.file + 1);
  return reach;
}


}  // namespace sceneria::eu7b
