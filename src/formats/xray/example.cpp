// The gallery's X-Ray object, written chunk by chunk as the SDK's editor saves one (notes
// xray-object.md §3-§5, in the editor's chunk order). Coordinates are X-Ray's: metres, Y up; each
// face's corners are ordered so that (p1 - p0) x (p2 - p0) points out of its box, which is
// Direct3D's clockwise front face in X-Ray's left-handed frame.
//
// Textures are made with integer arithmetic only, so every build makes the same bytes.
#include "formats/xray/example.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "formats/dds/dds.hpp"

namespace sceneria::xray {

namespace {

// ---- bytes ----

class Out {
 public:
  Out& u8(std::uint8_t v) { return bytes.push_back(v), *this; }
  Out& u16(std::uint16_t v) { return u8(static_cast<std::uint8_t>(v)).u8(static_cast<std::uint8_t>(v >> 8)); }
  Out& u32(std::uint32_t v) { return u16(static_cast<std::uint16_t>(v)).u16(static_cast<std::uint16_t>(v >> 16)); }
  Out& f32(float v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    return u32(bits);
  }
  Out& vec(const glm::vec3& v) { return f32(v.x).f32(v.y).f32(v.z); }
  Out& text(std::string_view s) {  // stringZ
    bytes.insert(bytes.end(), s.begin(), s.end());
    return u8(0);
  }
  Out& zeros(std::size_t n) { return bytes.insert(bytes.end(), n, 0), *this; }
  // A chunk: its id, its payload's size and the payload.
  Out& chunk(std::uint32_t id, const Out& payload) {
    u32(id).u32(static_cast<std::uint32_t>(payload.bytes.size()));
    bytes.insert(bytes.end(), payload.bytes.begin(), payload.bytes.end());
    return *this;
  }
  std::vector<std::uint8_t> bytes;
};

// ---- textures ----

struct Rgb {
  int r = 0, g = 0, b = 0;
};

std::uint32_t hash(std::uint32_t x, std::uint32_t y, std::uint32_t seed) {
  std::uint32_t h = x * 374761393u + y * 668265263u + seed * 2246822519u;
  h = (h ^ (h >> 13)) * 1274126177u;
  return h ^ (h >> 16);
}
int grain(int x, int y, std::uint32_t seed, int amp) {
  return static_cast<int>(hash(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), seed) % static_cast<std::uint32_t>(2 * amp + 1)) - amp;
}

constexpr int kSize = 64;

// A painted metal panel, as every face of a box wears it whole: an inset panel line, a rivet in
// each corner; `hazard` adds black and yellow stripes along its lower edge.
std::vector<std::uint8_t> panel(Rgb paint, Rgb line, Rgb rivet, bool hazard, std::uint32_t seed) {
  std::vector<std::uint8_t> rgba(std::size_t{kSize} * kSize * 4);
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) {
      const int g = grain(x, y, seed, 6) + (kSize / 2 - y) / 6;  // light from above
      Rgb p{paint.r + g, paint.g + g, paint.b + g};
      const int edge = std::min(std::min(x, y), std::min(kSize - 1 - x, kSize - 1 - y));
      if (edge == 4 || edge == 5) p = line;
      if (hazard && y >= 46 && y < 58 && x > 5 && x < kSize - 6) p = ((x + y) / 6) % 2 ? Rgb{30, 30, 30} : Rgb{250, 204, 24};
      for (const int cx : {10, kSize - 11})
        for (const int cy : {10, kSize - 11})
          if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= 4) p = rivet;
      std::uint8_t* o = rgba.data() + (static_cast<std::size_t>(y) * kSize + static_cast<std::size_t>(x)) * 4;
      o[0] = static_cast<std::uint8_t>(std::clamp(p.r, 0, 255));
      o[1] = static_cast<std::uint8_t>(std::clamp(p.g, 0, 255));
      o[2] = static_cast<std::uint8_t>(std::clamp(p.b, 0, 255));
      o[3] = 255;
    }
  return rgba;
}

// ---- the arm ----

enum SurfaceIndex : int { kBase, kArm };
enum BoneIndex : int { kRoot, kForearm };

struct Surface {
  const char* name;
  const char* texture;  // as the surface names it: gamedata/textures/<texture>.dds
};
constexpr Surface kSurfaces[] = {{"base", "example\\arm_base"}, {"arm", "example\\arm_upper"}};
constexpr const char* kBones[] = {"root", "forearm"};

struct Box {
  glm::vec3 lo, hi;
  int surface, bone;
};
// Metres, Y up. The forearm turns about the hinge's middle, (0, 1, 0).
const std::array<Box, 7>& boxes() {
  static const std::array<Box, 7> list{{
      {{-0.45f, 0.0f, -0.45f}, {0.45f, 0.25f, 0.45f}, kBase, kRoot},      // pedestal
      {{-0.13f, 0.25f, -0.13f}, {0.13f, 0.92f, 0.13f}, kBase, kRoot},     // column
      {{-0.17f, 0.92f, -0.17f}, {0.17f, 1.08f, 0.17f}, kBase, kRoot},     // hinge
      {{-0.1f, 1.08f, -0.1f}, {0.1f, 1.85f, 0.1f}, kArm, kForearm},       // upper arm
      {{-0.2f, 1.85f, -0.09f}, {0.2f, 1.97f, 0.09f}, kArm, kForearm},     // wrist
      {{-0.2f, 1.97f, -0.06f}, {-0.13f, 2.2f, 0.06f}, kArm, kForearm},    // left finger
      {{0.13f, 1.97f, -0.06f}, {0.2f, 2.2f, 0.06f}, kArm, kForearm},      // right finger
  }};
  return list;
}

// A box's six faces as its corner numbers (bit 0: x, bit 1: y, bit 2: z at the box's high side),
// each a, b, c, d with (b - a) x (d - a) outward, its texture's top edge along d-c.
constexpr std::array<std::array<int, 4>, 6> kFaces{{{5, 1, 3, 7}, {0, 4, 6, 2}, {4, 5, 7, 6}, {1, 0, 2, 3}, {6, 7, 3, 2}, {0, 1, 5, 4}}};
constexpr std::array<glm::vec2, 4> kFaceUv{{{0, 1}, {1, 1}, {1, 0}, {0, 0}}};

struct Face {
  std::array<std::uint32_t, 3> point, vmref;
};

// The one mesh: points, faces, the vmaps ("Texture" a polymap: a UV per face corner; a weight
// map per bone: 1 for each point of its boxes) and the vmrefs joining a corner's UV and weight.
Out mesh() {
  std::vector<glm::vec3> points;
  std::vector<Face> faces;
  std::vector<std::array<std::uint32_t, 4>> vmrefs;  // (uv map, its entry, weight map, its entry)
  std::vector<float> uv_data;
  std::vector<std::uint32_t> uv_points, uv_faces;
  std::array<std::vector<std::uint32_t>, 2> weighted;  // points of each bone's map
  std::array<std::vector<std::uint32_t>, 2> surface_faces;
  for (const Box& box : boxes()) {
    const auto first = static_cast<std::uint32_t>(points.size());
    for (int k = 0; k < 8; ++k) {
      points.emplace_back(k & 1 ? box.hi.x : box.lo.x, k & 2 ? box.hi.y : box.lo.y, k & 4 ? box.hi.z : box.lo.z);
      weighted[static_cast<std::size_t>(box.bone)].push_back(first + static_cast<std::uint32_t>(k));
    }
    const auto weight_map = static_cast<std::uint32_t>(1 + box.bone);
    for (const auto& quad : kFaces)
      for (const std::array<int, 3> corners : {std::array<int, 3>{0, 1, 2}, std::array<int, 3>{0, 2, 3}}) {
        const auto face = static_cast<std::uint32_t>(faces.size());
        Face f{};
        for (std::size_t k = 0; k < 3; ++k) {
          const int corner = corners[k];
          const std::uint32_t p = first + static_cast<std::uint32_t>(quad[static_cast<std::size_t>(corner)]);
          const auto& in_map = weighted[static_cast<std::size_t>(box.bone)];
          const auto weight_entry = static_cast<std::uint32_t>(std::find(in_map.begin(), in_map.end(), p) - in_map.begin());
          const auto uv_entry = static_cast<std::uint32_t>(uv_points.size());
          uv_data.push_back(kFaceUv[static_cast<std::size_t>(corner)].x), uv_data.push_back(kFaceUv[static_cast<std::size_t>(corner)].y);
          uv_points.push_back(p), uv_faces.push_back(face);
          f.point[k] = p;
          f.vmref[k] = static_cast<std::uint32_t>(vmrefs.size());
          vmrefs.push_back({0, uv_entry, weight_map, weight_entry});
        }
        faces.push_back(f);
        surface_faces[static_cast<std::size_t>(box.surface)].push_back(face);
      }
  }

  Out m;
  m.chunk(0x1000, Out().u16(17));
  m.chunk(0x1001, Out().text("arm"));
  m.chunk(0x1002, Out().u8(0x1));  // visible
  m.chunk(0x1010, Out().u32(0).u32(0));
  glm::vec3 lo(points.front()), hi(points.front());
  for (const glm::vec3& p : points) lo = glm::min(lo, p), hi = glm::max(hi, p);
  m.chunk(0x1004, Out().vec(lo).vec(hi));
  Out verts;
  verts.u32(static_cast<std::uint32_t>(points.size()));
  for (const glm::vec3& p : points) verts.vec(p);
  m.chunk(0x1005, verts);
  Out face_list;
  face_list.u32(static_cast<std::uint32_t>(faces.size()));
  for (const Face& f : faces)
    for (std::size_t k = 0; k < 3; ++k) face_list.u32(f.point[k]).u32(f.vmref[k]);
  m.chunk(0x1006, face_list);
  // Every edge hard: a box's faces shade flat (the value reads so as SoC and as CoP alike).
  Out groups;
  for (std::size_t k = 0; k < faces.size(); ++k) groups.u32(0xFFFFFFFFu);
  m.chunk(0x1013, groups);
  Out refs;
  refs.u32(static_cast<std::uint32_t>(vmrefs.size()));
  for (const auto& r : vmrefs) refs.u8(2).u32(r[0]).u32(r[1]).u32(r[2]).u32(r[3]);
  m.chunk(0x1008, refs);
  Out sface;
  sface.u16(static_cast<std::uint16_t>(std::size(kSurfaces)));
  for (std::size_t s = 0; s < std::size(kSurfaces); ++s) {
    sface.text(kSurfaces[s].name).u32(static_cast<std::uint32_t>(surface_faces[s].size()));
    for (std::uint32_t f : surface_faces[s]) sface.u32(f);
  }
  m.chunk(0x1009, sface);
  Out vmaps;
  vmaps.u32(3);
  vmaps.text("Texture").u8(2).u8(1).u8(0).u32(static_cast<std::uint32_t>(uv_points.size()));
  for (float v : uv_data) vmaps.f32(v);
  for (std::uint32_t p : uv_points) vmaps.u32(p);
  for (std::uint32_t f : uv_faces) vmaps.u32(f);
  for (std::size_t b = 0; b < weighted.size(); ++b) {
    vmaps.text(kBones[b]).u8(1).u8(0).u8(1).u32(static_cast<std::uint32_t>(weighted[b].size()));
    for (std::size_t k = 0; k < weighted[b].size(); ++k) vmaps.f32(1.0f);
    for (std::uint32_t p : weighted[b]) vmaps.u32(p);
  }
  m.chunk(0x1012, vmaps);
  return m;
}

constexpr float kQuarterTurn = 1.5707964f;

// A bone (BONES2, notes §5). Its length runs along its own +z: the root is turned a quarter about
// x so that +z points up the column, and the forearm, 1 m up that axis, carries on along it.
Out bone(int index) {
  const bool root = index == kRoot;
  Out b;
  b.chunk(0x0001, Out().u16(2));
  b.chunk(0x0002, Out().text(kBones[index]).text(root ? "" : kBones[kRoot]).text(kBones[index]));
  b.chunk(0x0003, Out().vec(root ? glm::vec3(0) : glm::vec3(0, 0, 1)).vec(root ? glm::vec3(-kQuarterTurn, 0, 0) : glm::vec3(0)).f32(root ? 1.0f : 1.2f));
  b.chunk(0x0004, Out().text("default_object"));
  b.chunk(0x0005, Out().zeros(112));  // no collision shape
  Out joint;
  joint.u32(root ? 0u : 2u);  // rigid; a joint
  for (int axis = 0; axis < 3; ++axis) joint.f32(root ? 0.0f : -1.0f).f32(root ? 0.0f : 1.0f).f32(1.0f).f32(1.0f);
  joint.f32(1.0f).f32(1.0f);
  b.chunk(0x0006, joint);
  b.chunk(0x0008, Out().u32(0));
  b.chunk(0x0007, Out().f32(root ? 40.0f : 8.0f).vec(glm::vec3(0)));
  return b;
}

// An envelope (the new form): constant before and after, TCB keys (value, seconds) whose
// tension, continuity and bias are 0 (32768 quantised: a smooth curve through the keys).
void envelope(Out& o, std::initializer_list<std::pair<float, float>> keys) {
  o.u8(1).u8(1).u16(static_cast<std::uint16_t>(keys.size()));
  for (const auto& [value, time] : keys) {
    o.f32(value).f32(time).u8(0);
    for (int k = 0; k < 7; ++k) o.u16(32768);
  }
}

// "wave": frames 0-60 at 30 fps. The forearm swings to 0.7 rad either side about its own y (x's
// way) and back; the root turns the whole arm 0.6 rad about its column and back.
Out motions() {
  Out o;
  o.u32(1);
  o.text("wave").u32(0).u32(60).f32(30.0f).u16(7);
  o.u8(0).u16(0xFFFF).f32(1.0f).f32(2.0f).f32(2.0f).f32(1.0f);  // flags, all bones, speed, accrue, falloff, power
  o.u16(2);
  // Channels: position x, y, z; rotation h (about y), p (about x), b (about z), each as the
  // bone's rest pose holds it where it does not move.
  o.text(kBones[kRoot]).u8(0);
  envelope(o, {{0.0f, 0.0f}}), envelope(o, {{0.0f, 0.0f}}), envelope(o, {{0.0f, 0.0f}});
  envelope(o, {{0.0f, 0.0f}});
  envelope(o, {{-kQuarterTurn, 0.0f}});
  envelope(o, {{0.0f, 0.0f}, {0.6f, 1.0f}, {0.0f, 2.0f}});
  o.text(kBones[kForearm]).u8(0);
  envelope(o, {{0.0f, 0.0f}}), envelope(o, {{0.0f, 0.0f}}), envelope(o, {{1.0f, 0.0f}});
  envelope(o, {{0.0f, 0.0f}, {0.7f, 0.5f}, {0.0f, 1.0f}, {-0.7f, 1.5f}, {0.0f, 2.0f}});
  envelope(o, {{0.0f, 0.0f}});
  envelope(o, {{0.0f, 0.0f}});
  o.u32(0);  // no marks (version 7)
  return o;
}

std::vector<std::uint8_t> object() {
  Out o;
  o.chunk(0x0900, Out().u16(16));
  o.chunk(0x0903, Out().u32(0x1));  // dynamic
  Out surfaces;
  surfaces.u32(static_cast<std::uint32_t>(std::size(kSurfaces)));
  for (const Surface& s : kSurfaces)
    surfaces.text(s.name).text("models\\model").text("default").text("default_object").text(s.texture).text("Texture").u32(0).u32(0x112).u32(1);
  o.chunk(0x0907, surfaces);
  o.chunk(0x0910, Out().chunk(0, mesh()));
  o.chunk(0x0920, Out().vec(glm::vec3(0)).vec(glm::vec3(0)));
  o.chunk(0x0921, Out().chunk(0, bone(kRoot)).chunk(1, bone(kForearm)));
  o.chunk(0x0916, motions());
  o.chunk(0x0923, Out().u32(1).text("default").u32(2).text(kBones[kRoot]).text(kBones[kForearm]));
  constexpr std::uint32_t kTime = 1735689600;  // 2025-01-01: a fixed date, so the bytes never change
  o.chunk(0x0922, Out().text("sceneria").u32(kTime).text("sceneria").u32(kTime));
  return Out().chunk(0x7777, o).bytes;
}

}  // namespace

std::vector<ExampleFile> example_files() {
  std::vector<ExampleFile> out;
  out.push_back({"gamedata/objects/example/arm.object", object()});
  out.push_back({"gamedata/textures/example/arm_base.dds",
                 dds::write_dxt1(kSize, kSize, panel({232, 148, 28}, {128, 74, 12}, {252, 214, 130}, true, 1))});
  out.push_back({"gamedata/textures/example/arm_upper.dds",
                 dds::write_dxt1(kSize, kSize, panel({62, 110, 192}, {150, 182, 232}, {214, 224, 240}, false, 2))});
  return out;
}

}  // namespace sceneria::xray
