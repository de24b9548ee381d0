#include "scene/scene.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <glm/gtx/matrix_decompose.hpp>

namespace sceneria::scene {

namespace {
// A hostile file's coordinates (1e30, NaN) must give some cell, never an out-of-range conversion.
int cell_index(double v) {
  if (std::isnan(v)) return std::numeric_limits<int>::min();
  return static_cast<int>(std::clamp(std::floor(v), -2.0e9, 2.0e9));
}
}  // namespace

int Grid::row_of(double z) const { return cell_index(z / cell + centre); }
int Grid::col_of(double x) const { return cell_index(x / cell + centre); }
glm::dvec3 Grid::origin(int row, int col) const { return {(col - centre) * cell, 0.0, (row - centre) * cell}; }
glm::dvec3 Grid::middle(int row, int col) const { return origin(row, col) + glm::dvec3(cell / 2, 0.0, cell / 2); }

std::uint32_t Scene::add_kind(const std::string& kind) {
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] == kind) return static_cast<std::uint32_t>(i);
  kinds.push_back(kind);
  return static_cast<std::uint32_t>(kinds.size() - 1);
}

std::uint32_t Scene::add_object(std::uint32_t kind, std::uint64_t index, const glm::dvec3& anchor, float radius) {
  objects.push_back({kind, index, anchor, radius});
  return static_cast<std::uint32_t>(objects.size() - 1);
}

std::uint32_t Scene::add_material(const Material& material) {
  if (materials.empty()) materials.push_back({});
  for (std::size_t i = 0; i < materials.size(); ++i)
    if (materials[i] == material) return static_cast<std::uint32_t>(i);
  materials.push_back(material);
  return static_cast<std::uint32_t>(materials.size() - 1);
}

std::uint32_t Scene::add_texture(const std::string& name) {
  for (std::size_t i = 0; i < textures.size(); ++i)
    if (textures[i].name == name) return static_cast<std::uint32_t>(i);
  Texture t;  // named, no pixels yet (a designated initializer warns of the members it leaves out)
  t.name = name;
  textures.push_back(std::move(t));
  return static_cast<std::uint32_t>(textures.size() - 1);
}

Section& Scene::section_at(const glm::dvec3& world) {
  const int cells = std::clamp(grid.cells, 1, 4096);
  const int row = std::clamp(grid.row_of(world.z), 0, cells - 1);
  const int col = std::clamp(grid.col_of(world.x), 0, cells - 1);
  const auto add = [&] {
    Section s;
    s.row = row;
    s.col = col;
    s.origin = grid.origin(row, col);
    sections.push_back(std::move(s));
    return static_cast<std::int32_t>(sections.size() - 1);
  };
  // A model or a small scene has a few sections: looked for one by one, which spares it the
  // grid's table (a million bytes to fill for every model a scenery loads). Past a few, the table.
  constexpr std::size_t kFew = 8;
  if (section_lookup_.empty()) {
    for (Section& s : sections)
      if (s.row == row && s.col == col) return s;
    if (sections.size() + 1 < kFew) return sections[static_cast<std::size_t>(add())];
    section_lookup_.assign(static_cast<std::size_t>(cells) * cells, -1);
    for (std::size_t i = 0; i < sections.size(); ++i)
      if (sections[i].row >= 0 && sections[i].row < cells && sections[i].col >= 0 && sections[i].col < cells)
        section_lookup_[static_cast<std::size_t>(sections[i].row) * cells + static_cast<std::size_t>(sections[i].col)] = static_cast<std::int32_t>(i);
  }
  std::int32_t& slot = section_lookup_[static_cast<std::size_t>(row) * cells + static_cast<std::size_t>(col)];
  if (slot < 0) slot = add();
  return sections[static_cast<std::size_t>(slot)];
}

void Scene::update_bounds(Section& s) const {
  glm::vec3 lo(1e30f), hi(-1e30f);
  for (const Batch& b : s.batches)
    for (const glm::vec3& p : b.positions) {
      lo = glm::min(lo, p);
      hi = glm::max(hi, p);
    }
  for (const Instance& i : s.instances) {
    // A delta may refer to meshes of the scene it will join: assume a proxy's size then.
    const bool local = i.mesh >= mesh_base && i.mesh - mesh_base < meshes.size();
    const Mesh* m = local ? &meshes[i.mesh - mesh_base] : nullptr;
    const glm::vec3 size = m ? glm::max(glm::abs(m->bounds_min), glm::abs(m->bounds_max)) : glm::vec3(4.0f);
    const glm::vec3 extent = size * glm::abs(i.scale) + glm::vec3(1.0f);
    const float r = std::max({extent.x, extent.y, extent.z});
    lo = glm::min(lo, i.offset - glm::vec3(r));
    hi = glm::max(hi, i.offset + glm::vec3(r));
  }
  if (lo.x > hi.x) lo = hi = glm::vec3(0.0f);
  s.bounds_min = lo;
  s.bounds_max = hi;
}

void Scene::finish() {
  bool first = true;
  for (Section& s : sections) {
    update_bounds(s);
    s.static_instances = static_cast<std::uint32_t>(s.instances.size());
    const glm::dvec3 wlo = s.origin + glm::dvec3(s.bounds_min), whi = s.origin + glm::dvec3(s.bounds_max);
    bounds_min = first ? wlo : glm::min(bounds_min, wlo);
    bounds_max = first ? whi : glm::max(bounds_max, whi);
    first = false;
  }
}

std::uint32_t adopt_looks(Scene& scene, Scene& delta) {
  const auto material_base = static_cast<std::uint32_t>(scene.materials.size());
  // A texture from a source the scene has is that texture (a delta may carry it without pixels:
  // the loader sends each source's pixels once).
  std::vector<std::uint32_t> texture_id(delta.textures.size());
  for (std::size_t k = 0; k < delta.textures.size(); ++k) {
    Texture& t = delta.textures[k];
    std::uint32_t id = static_cast<std::uint32_t>(scene.textures.size());
    if (!t.source.empty())
      for (std::size_t i = 0; i < scene.textures.size(); ++i)
        if (scene.textures[i].source == t.source) id = static_cast<std::uint32_t>(i);
    if (id == scene.textures.size()) scene.textures.push_back(std::move(t));
    else if (scene.textures[id].levels.empty() && !t.levels.empty()) scene.textures[id] = std::move(t);
    texture_id[k] = id;
  }
  for (Material m : delta.materials) {
    if (m.texture != kNoTexture) m.texture = m.texture < texture_id.size() ? texture_id[m.texture] : kNoTexture;
    scene.materials.push_back(m);
  }
  return material_base;
}

Result<std::uint32_t> adopt_meshes(Scene& scene, Scene& delta) {
  if (delta.mesh_base != scene.meshes.size()) return Error{Errc::bad_value, 0, "scene delta does not continue this scene's mesh ids"};
  const std::uint32_t material_base = adopt_looks(scene, delta);
  for (Mesh& m : delta.meshes) {
    for (Part& p : m.parts) p.material += material_base;
    scene.meshes.push_back(std::move(m));
  }
  delta.meshes.clear();
  for (Section& s : delta.sections)
    for (Batch& b : s.batches) b.material += material_base;
  return material_base;
}

Result<std::vector<std::size_t>> merge_delta(Scene& scene, Scene&& delta) {
  if (delta.mesh_base != scene.meshes.size() || delta.object_base != scene.objects.size())
    return Error{Errc::bad_value, 0, "scene delta does not continue this scene's mesh and object ids"};
  if (auto adopted = adopt_meshes(scene, delta); !adopted) return adopted.error();
  for (const Object& o : delta.objects) scene.objects.push_back(o);
  std::vector<std::size_t> changed;
  for (Section& incoming : delta.sections) {
    std::size_t index = scene.sections.size();
    for (std::size_t i = 0; i < scene.sections.size(); ++i)
      if (scene.sections[i].row == incoming.row && scene.sections[i].col == incoming.col) index = i;
    if (index == scene.sections.size()) {
      Section fresh;
      fresh.row = incoming.row;
      fresh.col = incoming.col;
      fresh.origin = incoming.origin;
      scene.sections.push_back(std::move(fresh));
    }
    Section& target = scene.sections[index];
    if (delta.keeps_instances) {  // with the section's own, before what streamed in
      target.instances.insert(target.instances.begin() + target.static_instances, incoming.instances.begin(),
                              incoming.instances.end());
      target.static_instances += static_cast<std::uint32_t>(incoming.instances.size());
    } else {  // a section streams in whole, never twice
      target.instances.resize(target.static_instances);
      target.instances.insert(target.instances.end(), incoming.instances.begin(), incoming.instances.end());
    }
    for (Batch& b : incoming.batches) target.batches.push_back(std::move(b));
    scene.update_bounds(target);
    scene.bounds_min = glm::min(scene.bounds_min, target.origin + glm::dvec3(target.bounds_min));
    scene.bounds_max = glm::max(scene.bounds_max, target.origin + glm::dvec3(target.bounds_max));
    changed.push_back(index);
  }
  return changed;
}

std::ptrdiff_t drop_streamed(Scene& scene, int row, int col) {
  for (std::size_t i = 0; i < scene.sections.size(); ++i) {
    Section& s = scene.sections[i];
    if (s.row != row || s.col != col) continue;
    s.instances.resize(s.static_instances);
    s.instances.shrink_to_fit();
    scene.update_bounds(s);
    return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

glm::dvec3 bezier_point(const glm::dvec3 p[4], double t) {
  const double u = 1 - t;
  return u * u * u * p[0] + 3 * u * u * t * p[1] + 3 * u * t * t * p[2] + t * t * t * p[3];
}

glm::dvec3 bezier_derivative(const glm::dvec3 p[4], double t) {
  const double u = 1 - t;
  return 3 * u * u * (p[1] - p[0]) + 6 * u * t * (p[2] - p[1]) + 3 * t * t * (p[3] - p[2]);
}

glm::dvec3 bezier_direction(const glm::dvec3 p[4], double t) {
  glm::dvec3 d = bezier_derivative(p, t);
  if (glm::length(d) < 1e-9) d = p[3] - p[0];
  return glm::length(d) < 1e-9 ? glm::dvec3(0, 0, 1) : glm::normalize(d);
}

std::uint32_t rgba(float r, float g, float b, float a) {
  // A hostile file's NaN must give some byte, not an undefined float → int conversion (clamp
  // passes NaN through), so NaN reads as 0.
  auto c = [](float v) { return static_cast<std::uint32_t>((v > 0.0f ? std::min(v, 1.0f) : 0.0f) * 255.0f + 0.5f); };
  return c(r) | c(g) << 8 | c(b) << 16 | c(a) << 24;
}

bool decompose_trs(const glm::dmat4& m, Trs& out) {
  glm::dvec3 skew;
  glm::dvec4 perspective;
  Trs t;
  if (!glm::decompose(m, t.scale, t.rotation, t.translation, skew, perspective)) {
    out = {};
    return false;
  }
  out = t;
  return true;
}

Instance& add_instance(Scene& scene, const glm::dmat4& world, std::uint32_t mesh) {
  Trs t;
  decompose_trs(world, t);
  Section& sec = scene.section_at(t.translation);
  Instance& in = sec.instances.emplace_back();
  in.offset = glm::vec3(t.translation - sec.origin);
  in.rotation = glm::quat(t.rotation);
  in.scale = glm::vec3(t.scale);
  in.mesh = mesh;
  return in;
}

Mesh box_mesh(std::string name, const glm::vec3& lo, const glm::vec3& hi, std::uint32_t material) {
  Mesh mesh;
  mesh.name = std::move(name);
  const glm::vec3 c = (lo + hi) * 0.5f, h = (hi - lo) * 0.5f;
  const glm::vec3 normals[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  for (const glm::vec3& n : normals) {
    const glm::vec3 u = std::abs(n.y) > 0.5f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    const glm::vec3 v = glm::cross(n, u);
    const auto base = static_cast<std::uint32_t>(mesh.positions.size());
    for (int k = 0; k < 4; ++k) {
      const float su = (k == 1 || k == 2) ? 1.0f : -1.0f, sv = (k >= 2) ? 1.0f : -1.0f;
      mesh.positions.push_back(c + (n + u * su + v * sv) * h);
      mesh.normals.push_back(n);
      mesh.uvs.emplace_back(su * 0.5f + 0.5f, sv * 0.5f + 0.5f);
    }
    for (std::uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) mesh.indices.push_back(base + i);
  }
  mesh.parts.push_back({material, 0, static_cast<std::uint32_t>(mesh.indices.size())});
  mesh.bounds_min = lo;
  mesh.bounds_max = hi;
  return mesh;
}

namespace {

glm::u8vec4 rgb565(std::uint16_t c) {
  const auto expand = [](unsigned v, unsigned bits) { return static_cast<std::uint8_t>((v << (8 - bits)) | (v >> (2 * bits - 8))); };
  return {expand((c >> 11) & 31u, 5), expand((c >> 5) & 63u, 6), expand(c & 31u, 5), 255};
}

// The colour half of a block (8 bytes): 4x4 RGBA into `out` (row stride `stride` pixels).
void colour_block(const std::uint8_t* b, bool bc1, glm::u8vec4 px[16]) {
  const std::uint16_t c0 = static_cast<std::uint16_t>(b[0] | b[1] << 8), c1 = static_cast<std::uint16_t>(b[2] | b[3] << 8);
  glm::u8vec4 pal[4] = {rgb565(c0), rgb565(c1), {}, {}};
  const glm::ivec4 a(pal[0]), c(pal[1]);
  if (c0 > c1 || !bc1) {
    pal[2] = glm::u8vec4((2 * a + c) / 3);
    pal[3] = glm::u8vec4((a + 2 * c) / 3);
  } else {  // BC1's three-colour mode: the fourth is transparent black
    pal[2] = glm::u8vec4((a + c) / 2);
    pal[3] = {0, 0, 0, 0};
  }
  pal[2].a = 255;
  const std::uint32_t bits = b[4] | b[5] << 8 | b[6] << 16 | static_cast<std::uint32_t>(b[7]) << 24;
  for (int i = 0; i < 16; ++i) px[i] = pal[(bits >> (2 * i)) & 3u];
}

}  // namespace

std::vector<std::uint8_t> decode_blocks(Texture::Format format, std::uint32_t width, std::uint32_t height,
                                        std::span<const std::uint8_t> blocks) {
  const std::size_t block_bytes = format == Texture::Format::bc1 ? 8 : 16;
  if (format != Texture::Format::bc1 && format != Texture::Format::bc2 && format != Texture::Format::bc3) return {};
  const std::size_t bw = (width + 3) / 4, bh = (height + 3) / 4;
  if (width == 0 || height == 0 || width > 16384 || height > 16384 || blocks.size() < bw * bh * block_bytes) return {};
  std::vector<std::uint8_t> out(std::size_t{width} * height * 4);
  glm::u8vec4 px[16];
  for (std::size_t by = 0; by < bh; ++by)
    for (std::size_t bx = 0; bx < bw; ++bx) {
      const std::uint8_t* b = blocks.data() + (by * bw + bx) * block_bytes;
      colour_block(format == Texture::Format::bc1 ? b : b + 8, format == Texture::Format::bc1, px);
      if (format == Texture::Format::bc2) {
        for (int i = 0; i < 16; ++i) px[i].a = static_cast<std::uint8_t>(((b[i / 2] >> (4 * (i & 1))) & 15) * 17);
      } else if (format == Texture::Format::bc3) {
        const int a0 = b[0], a1 = b[1];
        int pal[8] = {a0, a1};
        for (int k = 2; k < 8; ++k)
          pal[k] = a0 > a1 ? ((8 - k) * a0 + (k - 1) * a1) / 7 : k < 6 ? ((6 - k) * a0 + (k - 1) * a1) / 5 : (k == 6 ? 0 : 255);
        std::uint64_t bits = 0;
        for (int k = 0; k < 6; ++k) bits |= static_cast<std::uint64_t>(b[2 + k]) << (8 * k);
        for (int i = 0; i < 16; ++i) px[i].a = static_cast<std::uint8_t>(pal[(bits >> (3 * i)) & 7u]);
      }
      for (int i = 0; i < 16; ++i) {
        const std::size_t x = bx * 4 + i % 4, y = by * 4 + i / 4;
        if (x >= width || y >= height) continue;
        std::memcpy(&out[(y * width + x) * 4], &px[i], 4);
      }
    }
  return out;
}

void decode_block_textures(Scene& scene) {
  for (Texture& t : scene.textures) {
    if (t.format == Texture::Format::none || t.format == Texture::Format::rgba8 || t.levels.empty()) continue;
    auto pixels = decode_blocks(t.format, t.width, t.height, t.levels[0]);
    t.levels.clear();
    if (pixels.empty()) {
      t.format = Texture::Format::none;  // blocks that do not cover the size: drawn in its colour
      continue;
    }
    t.format = Texture::Format::rgba8;
    t.levels.push_back(std::move(pixels));
  }
}

std::uint32_t color_for_name(std::string_view name) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (char ch : name) h = (h ^ static_cast<std::uint8_t>(ch)) * 16777619u;
  // A hue from the hash, moderate saturation and value so boxes read as placeholders.
  const float hue = static_cast<float>(h % 360u) / 60.0f;
  const float x = 1.0f - std::fabs(std::fmod(hue, 2.0f) - 1.0f);
  glm::vec3 c = hue < 1 ? glm::vec3(1, x, 0) : hue < 2 ? glm::vec3(x, 1, 0) : hue < 3 ? glm::vec3(0, 1, x)
              : hue < 4 ? glm::vec3(0, x, 1) : hue < 5 ? glm::vec3(x, 0, 1) : glm::vec3(1, 0, x);
  c = glm::vec3(0.35f) + c * 0.5f;
  return rgba(c.r, c.g, c.b);
}

}  // namespace sceneria::scene
