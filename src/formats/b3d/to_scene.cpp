// A module as a scene: its block tree walked as the game draws it (the chosen group of each LOD
// and switch container, links to objects of this and the other modules, hidden blocks only when
// asked), its materials from the resources, Z up turned to the scene's Y up.
#include "formats/b3d/document.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "core/text.hpp"
#include "formats/b3d/catalogue.hpp"

namespace sceneria::b3d {

namespace {

using ojson = nlohmann::ordered_json;

// The coordinate change B3D -> scene as a matrix (a rotation: x stays, z becomes y, y becomes -z).
glm::dmat4 change() {
  if (!kZUp) return glm::dmat4(1.0);
  glm::dmat4 c(0.0);
  c[0][0] = 1.0;   // x -> x
  c[1][2] = -1.0;  // y -> -z
  c[2][1] = 1.0;   // z -> y
  c[3][3] = 1.0;
  return c;
}

double finite(double v) { return std::isfinite(v) ? v : 0.0; }

// The word `at` of a block's plain words as a float, or 0 past them.
double word_f(const Block& b, std::size_t at) { return at < b.words.size() ? finite(as_float(b.words[at])) : 0.0; }

glm::dvec3 vec_at(const Block& b, std::size_t at) { return {word_f(b, at), word_f(b, at + 1), word_f(b, at + 2)}; }

// Where each plain field of a layout starts in a block's words.
std::size_t field_word(const Block& b, std::string_view name) {
  const Layout* l = layout_of(b.type);
  std::size_t at = 0;
  if (!l) return SIZE_MAX;
  std::vector<std::size_t> starts;
  for (const Field& f : l->fields) {
    starts.push_back(at);
    if (f.name == name) return at;
    if (f.kind == Field::Kind::plain) at += f.words;
    else if (f.kind == Field::Kind::counted && static_cast<std::size_t>(f.count_of) < starts.size() && starts[static_cast<std::size_t>(f.count_of)] < b.words.size())
      at += std::size_t{b.words[starts[static_cast<std::size_t>(f.count_of)]]} * f.words;
    else if (f.kind == Field::Kind::extra_word && b.extra_word) at += 1;
  }
  return SIZE_MAX;
}

std::uint32_t rgba8(double r, double g, double b, double a = 1.0) {
  const auto c = [](double v) { return static_cast<std::uint32_t>(std::clamp(std::isfinite(v) ? v : 0.0, 0.0, 1.0) * 255.0 + 0.5); };
  return c(r) | (c(g) << 8) | (c(b) << 16) | (c(a) << 24);
}

std::uint32_t rgb_to_rgba(std::uint32_t rgb, std::uint8_t alpha = 255) {
  return ((rgb >> 16) & 0xFF) | (rgb & 0xFF00) | ((rgb & 0xFF) << 16) | (std::uint32_t{alpha} << 24);
}

class SceneBuilder {
 public:
  // `f` and `res`: the module; `linked`: the other modules its links may insert objects from.
  SceneBuilder(const File& f, const std::vector<Resources>& res, const std::vector<LinkedModule>& linked, const ViewOptions& v,
               std::vector<Warning>& warnings)
      : v_(v), warnings_(warnings) {
    modules_.push_back({&f, &res, ""});
    for (const LinkedModule& l : linked) modules_.push_back({&l.file, &l.resources, l.name});
  }

  scene::Scene build() {
    s_.grid = {.cell = 1000.0, .centre = 250, .cells = 500};
    s_.add_material({});
    kind_ = s_.add_kind("blocks");
    locators_.resize(modules_.size());
    top_by_name_.resize(modules_.size());
    for (std::size_t m = 0; m < modules_.size(); ++m) {
      const File& file = *modules_[m].file;
      locator_worlds(file, locators_[m]);
      for (std::size_t k = 0; k < file.blocks.size(); ++k)
        if (file.blocks[k].parent < 0) top_by_name_[m].emplace(key_of(file.blocks[k].name), static_cast<std::int32_t>(k));
    }
    walk(f().top, glm::dmat4(1.0), -1, -1, 0, 0);
    s_.finish();
    return std::move(s_);
  }

 private:
  static constexpr std::uint32_t kMaxDepth = 256, kMaxLinks = 8;

  // The module whose blocks are being walked: this one, or a linked one inside a link's copy.
  struct Module {
    const File* file;
    const std::vector<Resources>* resources;
    std::string name;
  };
  const File& f() const { return *modules_[current_].file; }
  const std::vector<Resources>& res() const { return *modules_[current_].resources; }

  // Every locator's world transform from the tree alone (links place copies at them).
  static void locator_worlds(const File& file, std::map<std::string, glm::dmat4>& out) {
    std::vector<glm::dmat4> world(file.blocks.size(), glm::dmat4(1.0));
    for (std::size_t k = 0; k < file.blocks.size(); ++k) {  // parents come before children
      const Block& b = file.blocks[k];
      const glm::dmat4 parent = b.parent >= 0 ? world[static_cast<std::size_t>(b.parent)] : glm::dmat4(1.0);
      world[k] = b.type == 24 ? parent * local(b) : parent;
      if (b.type == 24) out.emplace(key_of(b.name), world[k]);
    }
  }
  // A locator's matrix in scene coordinates: its rows and position as B3D's row-vector transform.
  static glm::dmat4 local(const Block& b) {
    glm::dmat4 m(1.0);
    for (int r = 0; r < 3; ++r) {
      const glm::dvec3 row = vec_at(b, static_cast<std::size_t>(3 * r));
      m[r] = glm::dvec4(row, 0.0);
    }
    m[3] = glm::dvec4(vec_at(b, 9), 1.0);
    const glm::dmat4 c = change();
    return c * m * glm::inverse(c);
  }

  void walk(const std::vector<Item>& items, const glm::dmat4& world, std::int32_t vertices, std::int32_t node, std::uint32_t depth,
            std::uint32_t links, std::int32_t grouped = -1) {
    if (depth > kMaxDepth) {
      if (!deep_warned_) warnings_.push_back({{}, 0, 0, 0, fmt::format("blocks nested deeper than {} are not drawn", kMaxDepth)}), deep_warned_ = true;
      return;
    }
    // In a grouped container only the chosen group is drawn.
    std::uint32_t groups = 1, group = 0;
    if (grouped >= 0)
      for (const Item& i : items) groups += i.separator();
    const std::uint32_t shown = std::min(v_.group, groups - 1);
    for (const Item& i : items) {
      if (i.separator()) {
        ++group;
        continue;
      }
      if (grouped >= 0 && group != shown) continue;
      block(static_cast<std::size_t>(i.block), world, vertices, node, depth, links);
    }
  }

  void block(std::size_t index, const glm::dmat4& parent_world, std::int32_t vertices, std::int32_t parent_node, std::uint32_t depth,
             std::uint32_t links) {
    const Block& b = f().blocks[index];
    if (hidden_type(b.type) && !v_.show_hidden) return;
    glm::dmat4 world = parent_world;
    if (b.type == 24) world = parent_world * local(b);
    if (b.type == 4) {  // a container on a named locator
      if (auto it = locators_[current_].find(key_of(name_at(b, 4))); it != locators_[current_].end()) world = it->second;
    }
    if (b.type == 6 || b.type == 7 || b.type == 36 || b.type == 37) vertices = static_cast<std::int32_t>(index);
    const std::int32_t node = add_node(b, index, parent_node, parent_world, world);
    switch (b.type) {
      case 8:
      case 35:
      case 28: polygons(b, index, world, vertices, node); break;
      case 23: collision(b, index, world, node); break;
      case 30: portal(b, index, world, node); break;
      case 33: light(b, index, world, node); break;
      case 20: polyline(b, world); break;
      case 18: link(b, index, world, node, depth, links); break;
      default: break;
    }
    const Layout* l = layout_of(b.type);
    walk(b.items, world, vertices, node, depth + 1, links, l && l->grouped ? static_cast<std::int32_t>(index) : -1);
  }

  // ---- nodes (the block tree, for exports) ----
  std::int32_t add_node(const Block& b, std::size_t index, std::int32_t parent, const glm::dmat4& parent_world, const glm::dmat4& world) {
    scene::Node n;
    const std::string name = name_text(b.name);
    n.name = name.empty() ? fmt::format("{} ({})", type_label(b.type), b.type) : name;
    n.parent = parent;
    const glm::dmat4 local = glm::inverse(parent_world) * world;
    if (scene::Trs t; local != glm::dmat4(1.0) && scene::decompose_trs(local, t))
      n.translation = glm::vec3(t.translation), n.rotation = glm::quat(t.rotation), n.scale = glm::vec3(t.scale);
    // Drawn blocks get their object where their mesh is placed (its middle is where to fly to).
    const bool drawn = b.type == 8 || b.type == 28 || b.type == 35 || b.type == 23 || b.type == 30 || b.type == 33;
    n.object = drawn ? scene::kNoObject : object_of(index, world, glm::dvec3(0.0), 1.0f);
    s_.nodes.push_back(std::move(n));
    return static_cast<std::int32_t>(s_.nodes.size() - 1);
  }
  // A block of a linked module is picked as the link that inserted it (this module's block).
  std::uint32_t object_of(std::size_t index, const glm::dmat4& world, const glm::dvec3& centre, float radius) {
    if (current_ != 0) index = outer_link_;
    auto [it, fresh] = objects_.try_emplace(index, 0);
    if (fresh) it->second = s_.add_object(kind_, index, glm::dvec3(world * glm::dvec4(centre, 1.0)), radius);
    return it->second;
  }

  // ---- looks ----
  std::uint32_t material(std::uint32_t texnum, bool two_sided = false) {
    const auto key = std::tuple{current_, texnum, two_sided};
    if (auto it = materials_.find(key); it != materials_.end()) return it->second;
    scene::Material m;
    m.two_sided = two_sided;
    const std::string name = texnum < f().materials.size() ? name_text(f().materials[texnum]) : fmt::format("texnum {}", texnum);
    m.name = name;
    m.color = scene::color_for_name(name) | 0xFF000000u;
    if (texnum >= f().materials.size()) {
      warn_once(fmt::format("texnum {} {}", current_, texnum), fmt::format("{}a polygon names material {} of {}", where(), texnum, f().materials.size()));
    } else if (const auto look = look_up(f(), res(), texnum)) {
      const ResMaterial& rm = look->material;
      const Resources& r = res()[look->resources];
      const std::optional<std::uint32_t> colour =
          rm.colour > 0 && rm.colour <= r.palette.size() ? std::optional<std::uint32_t>(r.palette[rm.colour - 1]) : std::nullopt;
      if (colour) m.color = rgb_to_rgba(*colour);
      if (rm.texture > 0) {
        m.color = 0xFFFFFFFFu;
        const std::optional<std::uint32_t> colour_key = rm.use == ResMaterial::Use::ttx ? std::optional<std::uint32_t>(colour.value_or(0)) : std::nullopt;
        if (const auto t = texture(look->resources, rm.texture, colour_key, name); t) {
          m.texture = t->first;
          if (t->second == Alpha::cut || rm.use == ResMaterial::Use::ttx) m.alpha = scene::Material::Alpha::mask;
          if (t->second == Alpha::graded) m.alpha = scene::Material::Alpha::blend;
        }
      }
      if (rm.transparency > 0 && rm.transparency < 1) {
        m.alpha = scene::Material::Alpha::blend;
        m.color = (m.color & 0x00FFFFFFu) | (static_cast<std::uint32_t>((1.0f - rm.transparency) * 255.0f + 0.5f) << 24);
      }
    } else if (!res().empty()) {
      warn_once(fmt::format("material {} {}", current_, name), fmt::format("material \"{}\" is not in {}", name, res().front().name));
    }
    return materials_[key] = s_.add_material(m);
  }
  enum class Alpha : std::uint8_t { opaque, cut, graded };
  std::optional<std::pair<std::uint32_t, Alpha>> texture(std::size_t which, std::uint32_t number, std::optional<std::uint32_t> key, const std::string& material) {
    const auto cache_key = std::tuple{current_, which, number, key.value_or(0xFFFFFFFFu)};
    if (auto it = textures_.find(cache_key); it != textures_.end()) return it->second;
    std::optional<std::pair<std::uint32_t, Alpha>> out;
    const Resources& from = res()[which];
    const ResSection* files = from.res.section("TEXTUREFILES");
    if (!files || number > files->entries.size()) {
      warn_once(fmt::format("texture {} {} {}", current_, which, number), fmt::format("material \"{}\" names texture {} of {} in {}", material, number,
                                                                       files ? files->entries.size() : 0, from.name));
    } else {
      const ResEntry& e = files->entries[number - 1];
      auto im = decode_txr(e.data, key);
      if (!im) {
        warn_once("txr " + from.name + e.text, fmt::format("{} in {}: {}", e.path(), from.name, im.error().message));
      } else {
        scene::Texture t;
        t.name = display_cp1251(e.path());
        t.format = scene::Texture::Format::rgba8;
        t.width = im->width, t.height = im->height;
        Alpha alpha = Alpha::opaque;
        for (std::size_t p = 3; p < im->rgba.size(); p += 4) {
          if (im->rgba[p] == 0 && alpha == Alpha::opaque) alpha = Alpha::cut;
          if (im->rgba[p] > 0 && im->rgba[p] < 255) alpha = Alpha::graded;
        }
        t.levels.push_back(std::move(im->rgba));
        s_.textures.push_back(std::move(t));
        out = std::pair{static_cast<std::uint32_t>(s_.textures.size() - 1), alpha};
      }
    }
    textures_[cache_key] = out;
    return out;
  }
  std::uint32_t flat_material(const char* name, std::uint32_t colour, bool blend) {
    scene::Material m;
    m.name = name, m.color = colour, m.two_sided = true;
    if (blend) m.alpha = scene::Material::Alpha::blend;
    return s_.add_material(m);
  }
  void warn_once(const std::string& key, std::string message) {
    if (warned_.insert(key).second) warnings_.push_back({{}, 0, 0, 0, std::move(message)});
  }

  // ---- geometry ----
  // A mesh placed at `world` as the renderer's instance, and as the block's node's mesh.
  void place(scene::Mesh&& mesh, std::size_t index, const glm::dmat4& world, std::int32_t node) {
    if (mesh.indices.empty()) return;
    glm::vec3 lo(INFINITY), hi(-INFINITY);
    for (const glm::vec3& p : mesh.positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
    mesh.bounds_min = lo, mesh.bounds_max = hi;
    const auto mesh_id = static_cast<std::uint32_t>(s_.meshes.size());
    s_.meshes.push_back(std::move(mesh));
    const glm::dvec3 centre((lo + hi) * 0.5f);
    const std::uint32_t object = object_of(index, world, centre, std::max(0.05f, glm::length(hi - lo) / 2));
    scene::add_instance(s_, world, mesh_id).object = object;
    if (node >= 0) {
      scene::Node& n = s_.nodes[static_cast<std::size_t>(node)];
      if (n.mesh < 0) n.mesh = static_cast<std::int32_t>(mesh_id);
      n.object = object;
    }
  }

  void polygons(const Block& b, std::size_t index, const glm::dmat4& world, std::int32_t vertices, std::int32_t node) {
    const bool sprite = b.type == 28;
    const Block* vb = vertices >= 0 ? &f().blocks[static_cast<std::size_t>(vertices)] : nullptr;
    if (!vb && !sprite) {
      warn_once(fmt::format("novertices {}", index), fmt::format("polygon block \"{}\" at {:#x} has no vertex block above it", name_text(b.name), b.offset));
      return;
    }
    const VertexLayout vl = vb && (vb->type == 36 || vb->type == 37) ? vertex_layout(vb->vertices.format) : VertexLayout{0, 0};
    const std::size_t vcount = vb ? vb->vertices.count() : 0;
    const glm::dmat4 c = change();
    const glm::dvec3 centre = sprite ? vec_at(b, 4) : glm::dvec3(0.0);
    scene::Mesh mesh;
    mesh.name = name_text(b.name).empty() ? fmt::format("{} ({})", type_label(b.type), b.type) : name_text(b.name);
    std::map<std::uint32_t, std::vector<std::uint32_t>> by_material;
    std::size_t bad = 0;
    // A polygon's corners, kept across polygons: one allocation per polygon was most of the
    // scene build's allocator time (and allocating costs WebAssembly more than native code).
    std::vector<glm::dvec3> pos, nor;
    std::vector<glm::vec2> uv;
    for (const Polygon& p : b.polygons) {
      const CornerLayout cl = corner_layout(p.format, sprite);
      const std::uint32_t texnum = b.type == 35 ? static_cast<std::uint32_t>(b.words.size() > 5 ? b.words[5] : 0) : p.texnum;
      const std::size_t n = b.corner_count_of(p);
      const std::span<const std::uint32_t> corners = b.corners_of(p);
      pos.assign(n, glm::dvec3(0.0));
      uv.assign(n, glm::vec2(0.0f));
      nor.assign(n, glm::dvec3(0.0));
      bool ok = n >= 3, normals = false;
      for (std::size_t k = 0; k < n && ok; ++k) {
        const std::uint32_t* w = corners.data() + k * p.corner_words;
        std::uint32_t at = 1;
        if (sprite) {
          pos[k] = centre + glm::dvec3(0.0, -finite(as_float(w[0])), finite(as_float(w[1])));
          at = 2;
        } else {
          const std::uint32_t v = w[0];
          if (v >= vcount) {
            ok = false;
            break;
          }
          const std::uint32_t* x = vb->vertices.words.data() + std::size_t{v} * vb->vertices.stride;
          pos[k] = {finite(as_float(x[0])), finite(as_float(x[1])), finite(as_float(x[2]))};
          uv[k] = {static_cast<float>(finite(as_float(x[3]))), static_cast<float>(finite(as_float(x[4])))};
          if (vl.normal == 3 && vb->vertices.stride >= 5 + 2 * vl.extra_uvs + 3) {
            const std::uint32_t* nw = x + 5 + 2 * vl.extra_uvs;
            nor[k] = {finite(as_float(nw[0])), finite(as_float(nw[1])), finite(as_float(nw[2]))};
            normals = glm::length(nor[k]) > 1e-9;
          }
        }
        if (cl.uv_sets > 0) uv[k] = {static_cast<float>(finite(as_float(w[at]))), static_cast<float>(finite(as_float(w[at + 1])))};
        if (cl.normal == 3) {
          const std::uint32_t* nw = w + at + 2 * cl.uv_sets;
          nor[k] = {finite(as_float(nw[0])), finite(as_float(nw[1])), finite(as_float(nw[2]))};
          normals = glm::length(nor[k]) > 1e-9;
        }
      }
      if (!ok) {
        ++bad;
        continue;
      }
      const auto base = static_cast<std::uint32_t>(mesh.positions.size());
      // A polygon's own normal where the file gives none (flat shading).
      glm::dvec3 face(0.0);
      for (std::size_t k = 0; k < n; ++k) face += glm::cross(pos[k], pos[(k + 1) % n]);
      for (std::size_t k = 0; k < n; ++k) {
        mesh.positions.push_back(glm::vec3(glm::dvec3(c * glm::dvec4(pos[k], 1.0))));
        glm::dvec3 nn = normals ? nor[k] : face;
        nn = glm::dvec3(c * glm::dvec4(nn, 0.0));
        const double len = glm::length(nn);
        mesh.normals.push_back(len > 1e-12 ? glm::vec3(nn / len) : glm::vec3(0, 1, 0));
        mesh.uvs.push_back(uv[k]);
      }
      auto& list = by_material[material(texnum, sprite)];
      for (std::size_t t = 0; t + 2 < n; ++t)
        for (std::uint32_t k : triangle(n, cl.strip, t)) list.push_back(base + k);
    }
    if (bad)
      warn_once(fmt::format("bad {}", index), fmt::format("block {} \"{}\" at {:#x}: {} polygon{} name vertices past the {} of \"{}\"", b.type,
                                                         name_text(b.name), b.offset, bad, bad == 1 ? "" : "s", vcount, vb ? name_text(vb->name) : ""));
    for (auto& [m, list] : by_material) {
      mesh.parts.push_back({m, static_cast<std::uint32_t>(mesh.indices.size()), static_cast<std::uint32_t>(list.size())});
      mesh.indices.insert(mesh.indices.end(), list.begin(), list.end());
    }
    place(std::move(mesh), index, world, node);
  }

  void collision(const Block& b, std::size_t index, const glm::dmat4& world, std::int32_t node) {
    scene::Mesh mesh;
    mesh.name = "collision";
    const std::uint32_t m = flat_material("collision", rgba8(1.0, 0.3, 0.1, 0.5), true);
    const glm::dmat4 c = change();
    for (const CollisionPolygon& p : b.collision) {
      const std::size_t n = p.points.size() / 3;
      if (n < 3) continue;
      const auto base = static_cast<std::uint32_t>(mesh.positions.size());
      for (std::size_t k = 0; k < n; ++k) {
        const glm::dvec3 v(finite(as_float(p.points[3 * k])), finite(as_float(p.points[3 * k + 1])), finite(as_float(p.points[3 * k + 2])));
        mesh.positions.push_back(glm::vec3(glm::dvec3(c * glm::dvec4(v, 1.0))));
        mesh.normals.emplace_back(0, 1, 0);
        mesh.uvs.emplace_back(0, 0);
      }
      for (std::uint32_t k = 1; k + 1 < n; ++k) mesh.indices.insert(mesh.indices.end(), {base, base + k, base + k + 1});
    }
    mesh.parts.push_back({m, 0, static_cast<std::uint32_t>(mesh.indices.size())});
    place(std::move(mesh), index, world, node);
  }

  void portal(const Block& b, std::size_t index, const glm::dmat4& world, std::int32_t node) {
    const glm::dmat4 c = change();
    const glm::dvec3 a(c * glm::dvec4(vec_at(b, 12), 1.0)), z(c * glm::dvec4(vec_at(b, 15), 1.0));
    scene::Mesh box = scene::box_mesh("portal", glm::vec3(glm::min(a, z)), glm::vec3(glm::max(a, z)), flat_material("portal", rgba8(0.2, 0.6, 1.0, 0.35), true));
    box.proxy = false;
    place(std::move(box), index, world, node);
  }

  void light(const Block& b, std::size_t index, const glm::dmat4& world, std::int32_t node) {
    const glm::dmat4 c = change();
    const glm::vec3 p(glm::dvec3(c * glm::dvec4(vec_at(b, 7), 1.0)));
    glm::dvec3 rgb = vec_at(b, 19);
    if (rgb.x > 1.0 || rgb.y > 1.0 || rgb.z > 1.0) rgb /= 255.0;
    scene::Mesh mesh;
    mesh.name = "light";
    const float r = 0.1f;
    const glm::vec3 corner[6] = {{r, 0, 0}, {-r, 0, 0}, {0, r, 0}, {0, -r, 0}, {0, 0, r}, {0, 0, -r}};
    static const std::uint32_t kFaces[24] = {0, 2, 4, 4, 2, 1, 1, 2, 5, 5, 2, 0, 4, 3, 0, 1, 3, 4, 5, 3, 1, 0, 3, 5};
    for (const glm::vec3& k : corner) mesh.positions.push_back(p + k), mesh.normals.push_back(glm::normalize(k)), mesh.uvs.emplace_back(0, 0);
    mesh.indices.assign(std::begin(kFaces), std::end(kFaces));
    mesh.parts.push_back({flat_material("light", rgba8(rgb.x, rgb.y, rgb.z), false), 0, 24});
    place(std::move(mesh), index, world, node);
  }

  void polyline(const Block& b, const glm::dmat4& world) {
    const std::size_t points_at = field_word(b, "points"), count = b.words.size() > 4 ? b.words[4] : 0;
    if (points_at == SIZE_MAX || b.words.size() < 5) return;
    const std::uint32_t n = b.words[4];
    (void)count;
    const glm::dmat4 w = world * change();
    const glm::dvec3 origin(world[3]);
    scene::Section& sec = s_.section_at(origin);
    scene::Batch line;
    line.primitive = scene::Batch::Primitive::lines;
    for (std::uint32_t k = 0; k + 1 < n; ++k)
      for (std::uint32_t e : {k, k + 1}) {
        const glm::dvec3 p(w * glm::dvec4(vec_at(b, points_at + 3 * e), 1.0));
        line.positions.push_back(glm::vec3(p - sec.origin));
        line.colors.push_back(rgba8(1.0, 0.4, 0.1));
      }
    if (!line.positions.empty()) sec.batches.push_back(std::move(line));
  }

  // A copy of a named object at a named locator (notes §6), as the engine inserts wheels. The
  // object is looked for in the module the link is in, then in the linked modules.
  void link(const Block& b, std::size_t index, const glm::dmat4& world, std::int32_t node, std::uint32_t depth, std::uint32_t links) {
    const std::string space = key_of(name_at(b, 4)), object = key_of(name_at(b, 12));
    if (object.empty()) return;
    std::size_t module = current_;
    std::int32_t found = find_block(module, object);
    for (std::size_t m = 0; m < modules_.size() && found < 0; ++m)
      if (m != current_) module = m, found = find_block(m, object);
    if (found < 0) {
      warn_once("link " + object, fmt::format("{}link \"{}\" inserts \"{}\", which is in none of the modules opened", where(), name_text(b.name),
                                              display_cp1251(object)));
      return;
    }
    const auto key = std::pair{module, found};
    if (links >= kMaxLinks || std::find(expanding_.begin(), expanding_.end(), key) != expanding_.end()) return;  // a link into itself
    glm::dmat4 at = world;
    if (!space.empty()) {
      if (auto it = locators_[current_].find(space); it != locators_[current_].end()) at = it->second;
      else warn_once("space " + space, fmt::format("{}link \"{}\" names locator \"{}\", which is not in its module", where(), name_text(b.name), display_cp1251(space)));
    }
    // The copy hangs under a node of its own that puts it at the locator, in the link's frame.
    scene::Node placed;
    placed.name = fmt::format("{}{} at {}", module != 0 ? modules_[module].name + ": " : "", display_cp1251(object),
                              space.empty() ? std::string("the link") : display_cp1251(space));
    placed.parent = node;
    if (scene::Trs t; scene::decompose_trs(glm::inverse(world) * at, t))
      placed.translation = glm::vec3(t.translation), placed.rotation = glm::quat(t.rotation), placed.scale = glm::vec3(t.scale);
    s_.nodes.push_back(std::move(placed));
    const auto placed_node = static_cast<std::int32_t>(s_.nodes.size() - 1);
    const std::size_t outer = current_, outer_link = outer_link_;
    if (current_ == 0) outer_link_ = index;
    current_ = module;
    expanding_.push_back(key);
    block(static_cast<std::size_t>(found), at, -1, placed_node, depth + 1, links + 1);
    expanding_.pop_back();
    current_ = outer, outer_link_ = outer_link;
  }
  // A top-level block of that name, else any block.
  std::int32_t find_block(std::size_t module, const std::string& name) const {
    if (auto it = top_by_name_[module].find(name); it != top_by_name_[module].end()) return it->second;
    const File& file = *modules_[module].file;
    for (std::size_t k = 0; k < file.blocks.size(); ++k)
      if (key_of(file.blocks[k].name) == name) return static_cast<std::int32_t>(k);
    return -1;
  }
  // "TRUCKS.b3d: " inside a linked module's blocks, for messages.
  std::string where() const { return current_ == 0 ? std::string() : modules_[current_].name + ": "; }

  const ViewOptions& v_;
  std::vector<Warning>& warnings_;
  std::vector<Module> modules_;
  std::size_t current_ = 0, outer_link_ = 0;
  scene::Scene s_;
  std::uint32_t kind_ = 0;
  std::vector<std::map<std::string, glm::dmat4>> locators_;
  std::vector<std::map<std::string, std::int32_t>> top_by_name_;
  std::map<std::size_t, std::uint32_t> objects_;
  std::map<std::tuple<std::size_t, std::uint32_t, bool>, std::uint32_t> materials_;
  std::map<std::tuple<std::size_t, std::size_t, std::uint32_t, std::uint32_t>, std::optional<std::pair<std::uint32_t, Alpha>>> textures_;
  std::vector<std::pair<std::size_t, std::int32_t>> expanding_;
  std::set<std::string> warned_;
  bool deep_warned_ = false;
};

}  // namespace

glm::dvec3 to_scene(const glm::dvec3& v) { return kZUp ? glm::dvec3(v.x, v.z, -v.y) : v; }

Result<scene::Scene> B3dDocument::scene() const {
  scene_warnings_.clear();
  scene_built_ = true;
  return SceneBuilder(f_, resources_, linked_, view_, scene_warnings_).build();
}

}  // namespace sceneria::b3d
