// An object as a scene: each mesh with its normals from the smoothing groups as the reading
// asks (SoC, CoP or told from the values), its surfaces as materials, and the bones as joints
// with the motions as animations.
#include "formats/xray/document.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <span>

#include <fmt/format.h>

#include <glm/gtc/matrix_transform.hpp>

#include "core/text.hpp"
#include "formats/xray/envelope.hpp"

namespace sceneria::xray {

namespace {

using ojson = nlohmann::ordered_json;

constexpr std::uint32_t kAllSharp = 0xFFFFFFFFu;

glm::vec3 to_scene(const std::array<float, 3>& p) { return {p[0], p[1], -p[2]}; }

// A face's corners in drawing order (p0, p2, p1), and its edges e0 = (c0, c1), e1 = (c1, c2),
// e2 = (c2, c0) in that order: the order blender-xray numbers edges in for CoP's bits.
constexpr std::array<std::size_t, 3> kDrawOrder{0, 2, 1};

struct Groups {  // union-find over a point's faces
  std::vector<std::uint32_t> up;
  std::uint32_t root(std::uint32_t a) {
    while (up[a] != a) a = up[a] = up[up[a]];
    return a;
  }
};

// Whether the edge faces a and b share (edge ea of a, eb of b) is smooth.
bool smooth_edge(const Mesh& m, bool soc, std::uint32_t a, std::uint32_t b, int ea, int eb) {
  const std::uint32_t ga = m.smoothing[a], gb = m.smoothing[b];
  if (soc) {
    const std::uint32_t sharp = m.flags & 0x4 ? 0u : kAllSharp;
    return ga == gb && ga != sharp;
  }
  if (ga == kAllSharp || gb == kAllSharp) return false;
  const bool back_a = ga & 0x8, back_b = gb & 0x8;
  if (back_a != back_b) return false;
  // Bits 4, 2, 1 mark edges 0, 1, 2 hard; a back face numbers its edges the other way round.
  const auto soft = [](std::uint32_t g, bool back, int e) {
    constexpr std::uint32_t kBit[3] = {4, 2, 1};
    return (g & kBit[back ? (4 - e) % 3 : e]) == 0;
  };
  return soft(ga, back_a, ea) && soft(gb, back_b, eb);
}

// A transform in X-Ray's frame (offset, then the rotation vector's angles: z first, then x, then
// y, as blender-xray composes them) turned into the scene's frame: conjugated by the reflection
// diag(1, 1, -1), as the notes say, rather than editing the angles.
glm::mat4 pose(const std::array<float, 3>& offset, std::array<float, 3> rotate, bool swapped) {
  if (swapped) std::swap(rotate[0], rotate[1]);  // old bones store x and y the other way round (OpenXRay)
  glm::mat4 m = glm::translate(glm::mat4(1), glm::vec3(offset[0], offset[1], offset[2]));
  m = glm::rotate(m, rotate[1], glm::vec3(0, 1, 0));
  m = glm::rotate(m, rotate[0], glm::vec3(1, 0, 0));
  m = glm::rotate(m, rotate[2], glm::vec3(0, 0, 1));
  const glm::mat4 mirror = glm::scale(glm::mat4(1), glm::vec3(1, 1, -1));
  return mirror * m * mirror;
}

// The bones in an order with parents first, each with its parent and its rest pose.
struct Skeleton {
  std::vector<std::size_t> order;
  std::vector<int> parent;  // by bone: its parent bone, -1 for a root (or a parent not found, or a cycle)
  std::vector<glm::mat4> local, world;
};

Skeleton skeleton_of(const Object& o) {
  Skeleton k;
  const std::size_t n = o.bones.size();
  k.parent.assign(n, -1);
  k.local.resize(n), k.world.resize(n);
  std::map<std::string, std::size_t> by_name;
  for (std::size_t b = 0; b < n; ++b) by_name.try_emplace(o.bones[b].name, b);
  for (std::size_t b = 0; b < n; ++b)
    if (const auto it = by_name.find(o.bones[b].parent); !o.bones[b].parent.empty() && it != by_name.end() && it->second != b)
      k.parent[b] = static_cast<int>(it->second);
  // Parents first; what a cycle leaves unplaced becomes a root.
  std::vector<bool> placed(n, false);
  for (bool progress = true; progress && k.order.size() < n;) {
    progress = false;
    for (std::size_t b = 0; b < n; ++b)
      if (!placed[b] && (k.parent[b] < 0 || placed[static_cast<std::size_t>(k.parent[b])])) placed[b] = true, k.order.push_back(b), progress = true;
  }
  for (std::size_t b = 0; b < n; ++b)
    if (!placed[b]) k.parent[b] = -1, k.order.push_back(b);
  for (std::size_t b : k.order) {
    const Bone& bone = o.bones[b];
    k.local[b] = pose(bone.offset, bone.rotate, o.bone_chunk == 0x0913 || bone.version == 1);
    k.world[b] = k.parent[b] < 0 ? k.local[b] : k.world[static_cast<std::size_t>(k.parent[b])] * k.local[b];
  }
  return k;
}

// The bone each weight map weights (by the bone's weight-map name, else its own name); -1: none.
std::vector<int> bones_of_maps(const Mesh& m, const Object& o) {
  std::map<std::string_view, int> by_map, by_name;  // the first bone of each name
  for (std::size_t b = 0; b < o.bones.size(); ++b) {
    by_map.try_emplace(o.bones[b].weight_map, static_cast<int>(b));
    by_name.try_emplace(o.bones[b].name, static_cast<int>(b));
  }
  std::vector<int> out(m.vmaps.size(), -1);
  for (std::size_t v = 0; v < m.vmaps.size(); ++v) {
    if (m.vmaps[v].type != 1 || m.vmaps[v].dim != 1) continue;
    if (const auto it = by_map.find(m.vmaps[v].name); it != by_map.end()) out[v] = it->second;
    else if (const auto jt = by_name.find(m.vmaps[v].name); jt != by_name.end()) out[v] = jt->second;
  }
  return out;
}

scene::Mesh render_mesh(const Mesh& m, const std::vector<std::uint32_t>& material_of_surface, const Object& o, Smoothing mode) {
  scene::Mesh out;
  out.name = display_cp1251(m.name);
  const std::size_t nf = m.faces.size(), np = m.points.size();
  // Which surface each face belongs to (the first that lists it), as a scene material.
  std::vector<std::uint32_t> material(nf, 0);
  std::vector<bool> owned(nf, false);
  for (const SurfaceFaces& sf : m.surfaces) {
    std::uint32_t mat = 0;
    for (std::size_t s = 0; s < o.surfaces.size(); ++s)
      if (o.surfaces[s].name == sf.surface) {
        mat = material_of_surface[s];
        break;
      }
    for (std::uint32_t f : sf.faces)
      if (f < nf && !owned[f]) owned[f] = true, material[f] = mat;
  }
  // Faces that can be drawn, and their normals in the scene's frame.
  std::vector<bool> drawn(nf, false);
  std::vector<glm::vec3> face_normal(nf, glm::vec3(0));
  for (std::size_t f = 0; f < nf; ++f) {
    const Face& face = m.faces[f];
    const auto& p = face.point;
    if (p[0] >= np || p[1] >= np || p[2] >= np || p[0] == p[1] || p[1] == p[2] || p[0] == p[2]) continue;
    const glm::vec3 a = to_scene(m.points[p[0]]), b = to_scene(m.points[p[2]]), c = to_scene(m.points[p[1]]);
    const glm::vec3 n = glm::cross(b - a, c - a);
    face_normal[f] = glm::length(n) > 0 ? glm::normalize(n) : glm::vec3(0, 1, 0);
    drawn[f] = true;
  }
  // Each corner's smoothing group: the faces around its point joined through smooth edges.
  const bool have_sg = m.smoothing.size() == nf;
  const bool soc = mode == Smoothing::soc || (mode == Smoothing::automatic && looks_like_soc(m));
  // The drawn faces around each point, in face order: faces_around[first[p] .. first[p + 1]).
  // Flat arrays, and the per-point work below reuses its buffers: an allocation per point was
  // most of the scene build (allocating costs WebAssembly more than native code).
  std::vector<std::uint32_t> first(np + 1, 0), faces_around;
  for (std::uint32_t f = 0; f < nf; ++f)
    if (drawn[f])
      for (std::uint32_t p : m.faces[f].point) ++first[p + 1];
  for (std::size_t p = 0; p < np; ++p) first[p + 1] += first[p];
  faces_around.resize(first[np]);
  {
    std::vector<std::uint32_t> next(first.begin(), first.end() - 1);
    for (std::uint32_t f = 0; f < nf; ++f)
      if (drawn[f])
        for (std::uint32_t p : m.faces[f].point) faces_around[next[p]++] = f;
  }
  // The corner (face, k) in drawing order: its point, its vmref.
  const auto point_of = [&](std::uint32_t f, int k) { return m.faces[f].point[static_cast<std::size_t>(kDrawOrder[static_cast<std::size_t>(k)])]; };
  const auto ref_of = [&](std::uint32_t f, int k) { return m.faces[f].vmref[static_cast<std::size_t>(kDrawOrder[static_cast<std::size_t>(k)])]; };
  std::vector<std::array<glm::vec3, 3>> corner_normal(nf);
  Groups g;
  std::vector<glm::vec3> normal_sum;
  for (std::uint32_t p = 0; p < np; ++p) {
    const std::span<const std::uint32_t> around(faces_around.data() + first[p], first[p + 1] - first[p]);
    g.up.resize(around.size());
    std::iota(g.up.begin(), g.up.end(), 0u);
    if (!have_sg) {
      for (auto& u : g.up) u = 0;  // no groups stored (old files): all smooth
    } else {
      for (std::size_t i = 0; i < around.size(); ++i)
        for (std::size_t j = i + 1; j < around.size(); ++j) {
          const std::uint32_t a = around[i], b = around[j];
          // An edge through p that both faces have.
          for (int ea = 0; ea < 3; ++ea) {
            const std::uint32_t a0 = point_of(a, ea), a1 = point_of(a, (ea + 1) % 3);
            if (a0 != p && a1 != p) continue;
            for (int eb = 0; eb < 3; ++eb) {
              const std::uint32_t b0 = point_of(b, eb), b1 = point_of(b, (eb + 1) % 3);
              if (!((a0 == b0 && a1 == b1) || (a0 == b1 && a1 == b0))) continue;
              if (smooth_edge(m, soc, a, b, ea, eb)) g.up[g.root(static_cast<std::uint32_t>(i))] = g.root(static_cast<std::uint32_t>(j));
            }
          }
        }
    }
    normal_sum.assign(around.size(), glm::vec3(0));  // by group root
    for (std::size_t i = 0; i < around.size(); ++i) normal_sum[g.root(static_cast<std::uint32_t>(i))] += face_normal[around[i]];
    for (std::size_t i = 0; i < around.size(); ++i) {
      const std::uint32_t f = around[i];
      const glm::vec3 n = normal_sum[g.root(static_cast<std::uint32_t>(i))];
      for (int k = 0; k < 3; ++k)
        if (point_of(f, k) == p) corner_normal[f][static_cast<std::size_t>(k)] = glm::length(n) > 0 ? glm::normalize(n) : face_normal[f];
    }
  }
  const bool split = m.normals.size() == nf * 3;
  // Weights from the vmref's pairs into weight maps: the four heaviest bones, below 0.0002 as
  // none (as blender-xray reads them).
  const std::vector<int> bone_of_map = bones_of_maps(m, o);
  const bool weighted = std::any_of(bone_of_map.begin(), bone_of_map.end(), [](int b) { return b >= 0; });
  const auto weights_of = [&](std::uint32_t r) {
    std::vector<std::pair<float, int>> found;
    if (r < m.vmref_count())
      for (std::uint32_t q = m.vmref_start[r]; q < m.vmref_start[r + 1]; ++q) {
        const auto& [vm, index] = m.vmref_pairs[q];
        if (vm >= m.vmaps.size() || bone_of_map[vm] < 0 || index >= m.vmaps[vm].data.size()) continue;
        const float w = m.vmaps[vm].data[index];
        if (std::isfinite(w) && w >= 0.0002f) found.emplace_back(w, bone_of_map[vm]);
      }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    glm::u16vec4 joints(0);
    glm::vec4 weights(0);
    float sum = 0;
    for (std::size_t k = 0; k < found.size() && k < 4; ++k) sum += found[k].first;
    for (std::size_t k = 0; k < found.size() && k < 4; ++k)
      joints[static_cast<int>(k)] = static_cast<std::uint16_t>(found[k].second), weights[static_cast<int>(k)] = found[k].first / sum;
    return std::pair{joints, weights};
  };
  // A vertex per (point, vmref, normal): UVs and normals split where they differ.
  std::map<std::tuple<std::uint32_t, std::uint32_t, float, float, float>, std::uint32_t> vertex_of;
  std::map<std::uint32_t, std::vector<std::uint32_t>> indices_by_material;
  for (std::uint32_t f = 0; f < nf; ++f) {
    if (!drawn[f]) continue;
    auto& list = indices_by_material[material[f]];
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t p = point_of(f, k), r = ref_of(f, k);
      glm::vec3 n = corner_normal[f][static_cast<std::size_t>(k)];
      if (split) n = glm::normalize(to_scene(m.normals[std::size_t{f} * 3 + static_cast<std::size_t>(kDrawOrder[static_cast<std::size_t>(k)])]));
      const auto key = std::tuple{p, r, n.x, n.y, n.z};
      auto [it, fresh] = vertex_of.try_emplace(key, static_cast<std::uint32_t>(out.positions.size()));
      if (fresh) {
        glm::vec2 uv(0);
        if (r < m.vmref_count())
          for (std::uint32_t q = m.vmref_start[r]; q < m.vmref_start[r + 1]; ++q) {
            const auto& [vm, index] = m.vmref_pairs[q];
            if (vm < m.vmaps.size() && m.vmaps[vm].type == 0 && m.vmaps[vm].dim == 2 && index < m.vmaps[vm].size())
              uv = {m.vmaps[vm].data[std::size_t{index} * 2], m.vmaps[vm].data[std::size_t{index} * 2 + 1]};
          }
        out.positions.push_back(to_scene(m.points[p]));
        out.normals.push_back(std::isfinite(n.x) ? n : glm::vec3(0, 1, 0));
        out.uvs.push_back(uv);
        if (weighted) {
          const auto [joints, weights] = weights_of(r);
          out.joints.push_back(joints), out.weights.push_back(weights);
        }
      }
      list.push_back(it->second);
    }
  }
  for (const auto& [mat, list] : indices_by_material) {
    out.parts.push_back({mat, static_cast<std::uint32_t>(out.indices.size()), static_cast<std::uint32_t>(list.size())});
    out.indices.insert(out.indices.end(), list.begin(), list.end());
  }
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (const glm::vec3& p : out.positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
  out.bounds_min = lo, out.bounds_max = hi;
  return out;
}

}  // namespace

bool looks_like_soc(const Mesh& mesh) {
  return std::any_of(mesh.smoothing.begin(), mesh.smoothing.end(), [](std::uint32_t g) { return g != kAllSharp && g > 0xF; });
}

Result<scene::Scene> XrayDocument::scene() const {
  const Object& o = f_.object;
  scene::Scene s;
  s.grid = {.cell = 1000.0, .centre = 250, .cells = 500};
  s.add_material({});
  const std::uint32_t kind = s.add_kind("meshes");
  std::vector<std::uint32_t> material_of_surface(o.surfaces.size(), 0);
  for (std::size_t k = 0; k < o.surfaces.size(); ++k) {
    const Surface& surface = o.surfaces[k];
    scene::Material m;
    m.name = display_cp1251(surface.name);
    m.color = scene::color_for_name(surface.texture.empty() ? surface.name : surface.texture) | 0xFF000000u;
    m.two_sided = surface.two_sided();
    if (textures_[k]) {
      m.texture = static_cast<std::uint32_t>(s.textures.size());
      m.color = 0xFFFFFFFFu;
      s.textures.push_back(*textures_[k]);
    }
    material_of_surface[k] = s.add_material(m);
  }
  // Meshes: placed by instances for the renderer, and by nodes (after the bones') for exports.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> placed;  // (mesh, object)
  for (std::size_t i = 0; i < o.meshes.size(); ++i) {
    scene::Mesh mesh = render_mesh(o.meshes[i], material_of_surface, o, smoothing);
    if (mesh.indices.empty()) continue;
    const glm::vec3 lo = mesh.bounds_min, hi = mesh.bounds_max;
    const auto id = static_cast<std::uint32_t>(s.meshes.size());
    s.meshes.push_back(std::move(mesh));
    scene::Instance& in = scene::add_instance(s, glm::dmat4(1.0), id);
    in.object = s.add_object(kind, i, glm::dvec3((lo + hi) * 0.5f), std::max(0.05f, glm::length(hi - lo) / 2));
    placed.emplace_back(id, in.object);
  }
  if (!o.bones.empty()) add_skeleton(s);
  for (const auto& [mesh, object] : placed) {
    scene::Node n;
    n.name = s.meshes[mesh].name;
    n.mesh = static_cast<std::int32_t>(mesh);
    n.object = object;
    if (!s.skins.empty() && !s.meshes[mesh].joints.empty()) n.skin = 0;
    s.nodes.push_back(std::move(n));
  }
  // A skeleton that weights no mesh stays as nodes (and lines), without a skin nothing uses.
  if (std::none_of(s.nodes.begin(), s.nodes.end(), [](const scene::Node& n) { return n.skin >= 0; })) s.skins.clear();
  s.finish();
  return s;
}

void XrayDocument::add_skeleton(scene::Scene& s) const {
  const Object& o = f_.object;
  const Skeleton k = skeleton_of(o);
  const std::uint32_t kind = s.add_kind("bones");
  // Joints are the bones' nodes; several roots get a common parent, as glTF's skins want.
  const std::size_t roots = static_cast<std::size_t>(std::count(k.parent.begin(), k.parent.end(), -1));
  std::int32_t top = -1;
  if (roots > 1) {
    top = static_cast<std::int32_t>(s.nodes.size());
    scene::Node skeleton;
    skeleton.name = "skeleton";
    s.nodes.push_back(std::move(skeleton));
  }
  std::vector<std::uint32_t> node_of(o.bones.size());
  std::vector<std::uint32_t> object_of(o.bones.size());
  for (std::size_t b : k.order) {
    const Bone& bone = o.bones[b];
    const glm::vec3 head(k.world[b][3]);
    scene::Node n;
    n.name = display_cp1251(bone.name);
    n.parent = k.parent[b] < 0 ? top : static_cast<std::int32_t>(node_of[static_cast<std::size_t>(k.parent[b])]);
    // Rest poses are rigid: a translation and a rotation, nothing to decompose.
    n.translation = glm::vec3(k.local[b][3]);
    n.rotation = glm::quat_cast(glm::mat3(k.local[b]));
    n.object = object_of[b] = s.add_object(kind, b, glm::dvec3(head), std::max(0.02f, bone.length));
    node_of[b] = static_cast<std::uint32_t>(s.nodes.size());
    s.nodes.push_back(std::move(n));
  }
  scene::Skin skin;
  skin.name = "skeleton";
  for (std::size_t b = 0; b < o.bones.size(); ++b) {
    skin.joints.push_back(node_of[b]);
    skin.inverse_bind.push_back(glm::inverse(k.world[b]));
  }
  s.skins.push_back(std::move(skin));

  // The bones as lines over the model: parent to child, and a bone without children along its
  // own axis (X-Ray's +Z) for its length.
  scene::Section& sec = s.section_at(glm::dvec3(0.0));
  scene::Batch lines;
  lines.primitive = scene::Batch::Primitive::lines;
  lines.overlay = true;
  const glm::vec3 origin(sec.origin);
  std::vector<bool> has_child(o.bones.size(), false);
  for (std::size_t b = 0; b < o.bones.size(); ++b)
    if (k.parent[b] >= 0) has_child[static_cast<std::size_t>(k.parent[b])] = true;
  const auto segment = [&](const glm::vec3& a, const glm::vec3& z, std::uint32_t object) {
    lines.positions.push_back(a - origin), lines.positions.push_back(z - origin);
    lines.colors.push_back(scene::rgba(1.0f, 0.8f, 0.1f)), lines.colors.push_back(scene::rgba(1.0f, 0.35f, 0.1f));
    lines.objects.push_back(object), lines.objects.push_back(object);
  };
  for (std::size_t b = 0; b < o.bones.size(); ++b) {
    const glm::vec3 head(k.world[b][3]);
    if (k.parent[b] >= 0) segment(glm::vec3(k.world[static_cast<std::size_t>(k.parent[b])][3]), head, object_of[b]);
    if (!has_child[b] && o.bones[b].length > 0 && std::isfinite(o.bones[b].length))
      segment(head, glm::vec3(k.world[b] * glm::vec4(0, 0, -o.bones[b].length, 1)), object_of[b]);
  }
  if (!lines.positions.empty()) sec.batches.push_back(std::move(lines));

  // Motions as animations: every frame from start to end sampled (the keys' shapes are
  // LightWave's, which glTF cannot say), each bone's channels as a translation and a rotation.
  std::size_t budget = std::size_t{1} << 23;  // samples over all motions: a hostile frame range stops here
  for (const Motion& m : o.motions) {
    const float fps = std::isfinite(m.fps) && m.fps > 0 ? m.fps : 30.0f;
    if (m.frame_end < m.frame_start) continue;
    const std::size_t frames = std::size_t{m.frame_end - m.frame_start} + 1;
    if (frames > budget / std::max<std::size_t>(1, m.bones.size())) break;
    budget -= frames * std::max<std::size_t>(1, m.bones.size());
    scene::Animation a;
    a.name = display_cp1251(m.name);
    for (const MotionBone& mb : m.bones) {
      auto it = std::find_if(o.bones.begin(), o.bones.end(), [&](const Bone& b) { return b.name == mb.name; });
      if (it == o.bones.end())
        it = std::find_if(o.bones.begin(), o.bones.end(), [&](const Bone& b) { return iequals(b.name, mb.name); });
      if (it == o.bones.end()) continue;
      const auto b = static_cast<std::size_t>(it - o.bones.begin());
      scene::Animation::Channel t, r;
      t.node = r.node = node_of[b];
      t.path = scene::Animation::Path::translation, r.path = scene::Animation::Path::rotation;
      for (std::size_t f = 0; f < frames; ++f) {
        const float time = static_cast<float>(m.frame_start + f) / fps;
        const auto at = [&](int c) { return evaluate(mb.channels[static_cast<std::size_t>(c)], time); };
        // Channels: position x, y, z, then rotation h (about y), p (about x), b (about z).
        const glm::mat4 local = pose({at(0), at(1), at(2)}, {at(4), at(3), at(5)}, false);
        const glm::quat q = glm::quat_cast(glm::mat3(local));
        t.times.push_back(static_cast<float>(f) / fps), r.times.push_back(t.times.back());
        t.values.emplace_back(glm::vec3(local[3]), 0.0f);
        r.values.emplace_back(q.x, q.y, q.z, q.w);
      }
      a.channels.push_back(std::move(t)), a.channels.push_back(std::move(r));
    }
    if (!a.channels.empty()) s.animations.push_back(std::move(a));
  }
}

}  // namespace sceneria::xray
