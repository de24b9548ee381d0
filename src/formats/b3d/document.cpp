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
#include "formats/b3d/json.hpp"
#include "formats/row_lists.hpp"

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
Name name_at(const Block& b, std::size_t at) {
  Name n{};
  if (at + 8 <= b.words.size()) std::memcpy(n.data(), b.words.data() + at, 32);
  return n;
}
std::string key_of(const Name& n) {
  const auto* end = std::find(n.begin(), n.end(), std::uint8_t{0});
  return std::string(reinterpret_cast<const char*>(n.data()), static_cast<std::size_t>(end - n.begin()));
}

// Where each plain field of a layout starts in a block's words.
std::size_t field_word(const Block& b, std::string_view name) {
  const Layout* l = layout_of(b.type);
  std::size_t at = 0;
  if (!l) return SIZE_MAX;
  std::vector<std::size_t> starts;
  for (const Field& f : l->fields) {
    starts.push_back(at);
    if (f.name == name) return at;
    if (f.kind == Field::Kind::plain) at += pattern_words(f.pattern);
    else if (f.kind == Field::Kind::counted && static_cast<std::size_t>(f.count_of) < starts.size() && starts[static_cast<std::size_t>(f.count_of)] < b.words.size())
      at += std::size_t{b.words[starts[static_cast<std::size_t>(f.count_of)]]} * pattern_words(f.pattern);
    else if (f.kind == Field::Kind::extra_word && b.extra_word) at += 1;
  }
  return SIZE_MAX;
}

bool hidden_type(std::uint32_t t) { return (t >= 12 && t <= 17) || t == 20 || t == 23 || t == 30 || t == 40; }

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
    for (const Polygon& p : b.polygons) {
      const CornerLayout cl = corner_layout(p.format, sprite);
      const std::uint32_t texnum = b.type == 35 ? static_cast<std::uint32_t>(b.words.size() > 5 ? b.words[5] : 0) : p.texnum;
      const std::size_t n = p.count();
      std::vector<glm::dvec3> pos(n);
      std::vector<glm::vec2> uv(n, glm::vec2(0.0f));
      std::vector<glm::dvec3> nor(n, glm::dvec3(0.0));
      bool ok = n >= 3, normals = false;
      for (std::size_t k = 0; k < n && ok; ++k) {
        const std::uint32_t* w = p.corners.data() + k * p.corner_words;
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
      for (const auto& t : triangulate(n, cl.strip))
        for (std::uint32_t k : t) list.push_back(base + k);
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

// ---- fields for the inspector ----
ojson value_json(char kind, const std::uint32_t* w) {
  if (kind == 'f') {
    const float f = as_float(*w);
    return std::isfinite(f) ? ojson(static_cast<double>(f)) : ojson(fmt::format("{:#010x}", *w));
  }
  if (kind == 'i') return static_cast<std::int32_t>(*w);
  return *w;
}
ojson pattern_json(std::string_view pattern, const std::uint32_t*& w) {
  if (pattern == "n") {
    Name n;
    std::memcpy(n.data(), w, 32);
    w += 8;
    return name_text(n);
  }
  if (pattern.size() == 1) return value_json(pattern[0], w++);
  ojson a = ojson::array();
  for (char c : pattern) a.push_back(value_json(c, w++));
  return a;
}

}  // namespace

glm::dvec3 to_scene(const glm::dvec3& v) { return kZUp ? glm::dvec3(v.x, v.z, -v.y) : v; }

ojson block_fields(const Block& b) {
  ojson j = ojson::object();
  const Layout* l = layout_of(b.type);
  if (!l) return j;
  const std::uint32_t* w = b.words.data();
  const std::uint32_t* end = w + b.words.size();
  std::vector<const std::uint32_t*> starts;
  for (const Field& f : l->fields) {
    starts.push_back(w);
    using K = Field::Kind;
    if (f.kind == K::plain && w + pattern_words(f.pattern) <= end) {
      j[std::string(f.name)] = pattern_json(f.pattern, w);
    } else if (f.kind == K::counted) {
      const std::uint32_t n = *starts[static_cast<std::size_t>(f.count_of)];
      ojson a = ojson::array();
      for (std::uint32_t k = 0; k < n && w + pattern_words(f.pattern) <= end; ++k) {
        if (k == 64) {  // a long list: its first items and how many
          a.push_back(fmt::format("… {} in all", n));
          w += std::size_t{n - k} * pattern_words(f.pattern);
          break;
        }
        a.push_back(pattern_json(f.pattern, w));
      }
      j[std::string(f.name)] = std::move(a);
    } else if (f.kind == K::extra_word && b.extra_word && w < end) {
      j[std::string(f.name)] = *w++;
    } else if (f.kind == K::vertices || f.kind == K::formatted_vertices) {
      if (f.kind == K::formatted_vertices) {
        const VertexLayout vl = vertex_layout(b.vertices.format);
        j["vertex_format"] = b.vertices.format;
        j["vertex_layout"] = fmt::format("position, uv{}{}", vl.extra_uvs ? fmt::format(", {} more uv set{}", vl.extra_uvs, vl.extra_uvs == 1 ? "" : "s") : "",
                                         vl.normal == 3 ? ", normal" : ", a scalar");
      }
      j["vertices"] = b.vertices.count();
    } else if (f.kind == K::polygons || f.kind == K::sprites || f.kind == K::collision) {
      j["polygons"] = f.kind == K::collision ? b.collision.size() : b.polygons.size();
      if (f.kind != K::collision) {
        std::size_t corners = 0;
        std::map<std::uint32_t, std::size_t> formats;
        for (const Polygon& p : b.polygons) corners += p.count(), ++formats[p.format];
        j["corners"] = corners;
        ojson fm = ojson::object();
        for (const auto& [format, n] : formats) fm[std::to_string(format)] = n;
        j["polygon_formats"] = std::move(fm);
      }
    } else if (f.kind == K::children) {
      std::size_t children = 0, groups = 1;
      for (const Item& i : b.items) children += !i.separator(), groups += i.separator();
      j["child_count"] = b.child_count;
      if (children != b.child_count) j["children_held"] = children;
      if (l->grouped) j["groups"] = groups;
    }
  }
  return j;
}

B3dDocument::B3dDocument(File file, std::uint64_t size, std::string name, std::vector<Resources> resources, ViewOptions view,
                         std::vector<std::string> missing, std::vector<LinkedModule> linked)
    : f_(std::move(file)), size_(size), name_(std::move(name)), resources_(std::move(resources)), view_(view), missing_(std::move(missing)),
      linked_(std::move(linked)) {}

std::optional<B3dDocument::Look> look_up(const File& file, const std::vector<Resources>& resources, std::uint32_t texnum) {
  if (texnum >= file.materials.size()) return std::nullopt;
  const std::string name = key_of(file.materials[texnum]);
  for (std::size_t r = 0; r < resources.size(); ++r)
    if (const ResSection* m = resources[r].res.section("MATERIALS"))
      for (const ResEntry& e : m->entries)
        if (ResMaterial rm = parse_material(e.text); iequals(rm.name, name)) return B3dDocument::Look{r, std::move(rm)};
  return std::nullopt;
}

std::optional<B3dDocument::Look> B3dDocument::look(std::uint32_t texnum) const { return look_up(f_, resources_, texnum); }

bool has_block(const File& file, const std::string& name) {
  return std::any_of(file.blocks.begin(), file.blocks.end(), [&](const Block& b) { return key_of(b.name) == name; });
}

std::vector<std::string> unresolved_links(const File& file) {
  std::vector<std::string> out;
  for (const Block& b : file.blocks)
    if (b.type == 18)
      if (const std::string object = key_of(name_at(b, 12)); !object.empty() && !has_block(file, object) &&
                                                             std::find(out.begin(), out.end(), object) == out.end())
        out.push_back(object);
  return out;
}

std::string B3dDocument::headline() const {
  std::set<std::uint32_t> types;
  std::size_t triangles = 0;
  for (const Block& b : f_.blocks) {
    types.insert(b.type);
    for (const Polygon& p : b.polygons) triangles += p.count() >= 3 ? p.count() - 2 : 0;
  }
  return fmt::format("B3D, {} block{} ({} type{}), {} material{}, {} triangle{}{}", f_.blocks.size(), f_.blocks.size() == 1 ? "" : "s", types.size(),
                     types.size() == 1 ? "" : "s", f_.materials.size(), f_.materials.size() == 1 ? "" : "s", triangles, triangles == 1 ? "" : "s",
                     f_.incomplete ? " (read up to a break)" : "");
}

namespace {

// How many groups the LOD and switch containers have (the most of any), and how many blocks are
// hidden unless shown: what the module's choices offer.
std::pair<std::uint64_t, std::uint64_t> choice_counts(const File& f) {
  std::uint64_t group_count = 0, hidden = 0;
  for (const Block& b : f.blocks) {
    if (const Layout* l = layout_of(b.type); l && l->grouped) {
      std::uint64_t groups = 1;
      for (const Item& i : b.items) groups += i.separator();
      group_count = std::max(group_count, groups);
    }
    hidden += hidden_type(b.type);
  }
  return {group_count, hidden};
}

}  // namespace

const std::vector<Choice>& module_choices() {
  static const std::vector<Choice> choices = {
      {.param = "group",
       .label = "Groups",
       .help = "LOD levels and switch states: every LOD and switch container draws this group of its children (its last, if it has fewer)",
       .value = "0"},
      {.param = "hidden",
       .label = "Show collision, trigger and portal blocks",
       .help = "Draws the blocks the game does not show: collision, triggers, portals and generators",
       .toggle = true,
       .value = "false"},
  };
  return choices;
}

std::vector<Choice> B3dDocument::choices() const {
  const auto [group_count, hidden] = choice_counts(f_);
  std::vector<Choice> out;
  if (group_count >= 2) {
    Choice c = module_choices()[0];
    for (std::uint64_t g = 0; g < group_count; ++g) c.values.push_back({std::to_string(g), g == 0 ? "group 0 (the default)" : fmt::format("group {}", g)});
    c.value = std::to_string(std::min<std::uint64_t>(view_.group, group_count - 1));
    out.push_back(std::move(c));
  }
  if (hidden > 0) {
    Choice c = module_choices()[1];
    c.label = fmt::format("Show {} collision, trigger and portal block{}", hidden, hidden == 1 ? "" : "s");
    c.value = view_.show_hidden ? "true" : "false";
    out.push_back(std::move(c));
  }
  return out;
}

ojson B3dDocument::summary(std::size_t) const {
  ojson j;
  j["format"] = "b3d";
  j["version"] = 0;
  j["size"] = size_;
  std::map<std::uint32_t, std::uint64_t> blocks, vertices, polygons, corners;
  std::uint64_t triangles = 0;
  for (const Block& b : f_.blocks) {
    ++blocks[b.type];
    if (b.type == 6 || b.type == 7 || b.type == 36 || b.type == 37) vertices[b.type] += b.vertices.count();
    if (b.type == 8 || b.type == 28 || b.type == 35) {
      polygons[b.type] += b.polygons.size();
      for (const Polygon& p : b.polygons) corners[b.type] += p.count(), triangles += triangulate(p.count(), corner_layout(p.format, b.type == 28).strip).size();
    }
  }
  const auto by_type = [](const std::map<std::uint32_t, std::uint64_t>& m) {
    ojson o = ojson::object();
    for (const auto& [t, n] : m) o[std::to_string(t)] = n;
    return o;
  };
  std::uint64_t total_vertices = 0, total_polygons = 0, total_corners = 0;
  for (const auto& [t, n] : vertices) total_vertices += n;
  for (const auto& [t, n] : polygons) total_polygons += n;
  for (const auto& [t, n] : corners) total_corners += n;
  // What `sceneria info X.b3d --json` promises (issue 14).
  j["blocks"] = by_type(blocks);
  j["materials"] = f_.materials.size();
  j["vertices"] = by_type(vertices);
  j["polygons"] = by_type(polygons);
  j["corners"] = by_type(corners);
  j["triangles"] = triangles;
  j["material_names"] = ojson::array();
  for (const Name& m : f_.materials) j["material_names"].push_back(name_text(m));
  j["counts"] = {{"blocks", f_.blocks.size()}, {"materials", f_.materials.size()}, {"vertices", total_vertices},
                 {"polygons", total_polygons}, {"corners", total_corners}, {"triangles", triangles}};
  j["resources"] = ojson::array();
  for (const Resources& r : resources_) {
    ojson o{{"name", r.name}};
    for (const ResSection& s : r.res.sections) o[s.name] = s.count;
    j["resources"].push_back(std::move(o));
  }
  // The other modules its links insert objects from.
  if (!linked_.empty()) {
    j["linked_modules"] = ojson::array();
    for (const LinkedModule& l : linked_) j["linked_modules"].push_back(l.name);
  }
  // Without its .res a module's materials are names only: say what would give them their textures.
  if (resources_.empty() && !f_.materials.empty()) {
    const std::string file = name_.substr(name_.find_last_of("/\\") == std::string::npos ? 0 : name_.find_last_of("/\\") + 1);
    const std::string stem = file.substr(0, file.rfind('.'));
    j["advice"] = ojson::array({fmt::format("no {}.res was opened with {}: its {} materials are drawn in placeholder colours; open its folder "
                                            "(the .b3d with its .res) for the textures", stem, file, f_.materials.size())});
  }
  const auto [group_count, hidden] = choice_counts(f_);
  j["group_count"] = group_count;
  j["group_shown"] = view_.group;
  j["hidden_blocks"] = hidden;
  j["hidden_shown"] = view_.show_hidden;
  if (f_.incomplete) j["incomplete"] = f_.incomplete->message;
  auto structure = ojson::array();
  structure.push_back({{"name", "header"}, {"offset", 0}, {"size", 24}});
  const std::uint64_t materials_at = 24 + f_.lead.size();
  structure.push_back({{"name", "materials"}, {"offset", materials_at}, {"size", 4 + 32 * f_.materials.size()}, {"detail", fmt::format("{} names", f_.materials.size())}});
  // The top-level blocks, each from its 333 to the next item.
  std::vector<std::uint64_t> tops;
  for (const Item& i : f_.top)
    if (!i.separator()) tops.push_back(static_cast<std::size_t>(i.block));
  const std::uint64_t data_end = std::uint64_t{f_.header[3]} * 4 + std::uint64_t{f_.header[4]} * 4;
  for (std::size_t k = 0; k < tops.size(); ++k) {
    const Block& b = f_.blocks[static_cast<std::size_t>(tops[k])];
    const std::uint64_t end = k + 1 < tops.size() ? f_.blocks[static_cast<std::size_t>(tops[k + 1])].offset : std::max(b.offset, data_end - 4);
    structure.push_back({{"name", name_text(b.name).empty() ? std::string("(unnamed)") : name_text(b.name)}, {"offset", b.offset}, {"size", end - b.offset},
                         {"detail", fmt::format("block {} ({})", b.type, type_label(b.type))}});
  }
  j["structure"] = std::move(structure);
  j["structureName"] = "top-level blocks";
  return j;
}

std::vector<ListInfo> B3dDocument::lists() const {
  std::vector<ListInfo> out{{"blocks", "Blocks", f_.blocks.size()}, {"materials", "Materials", f_.materials.size()}};
  std::uint64_t textures = 0;
  for (const Resources& r : resources_)
    if (const ResSection* t = r.res.section("TEXTUREFILES")) textures += t->entries.size();
  if (textures) out.push_back({"textures", "Textures", textures});
  return out;
}

std::uint64_t B3dDocument::list_size(std::string_view list) const {
  for (const ListInfo& l : lists())
    if (l.id == list) return l.count;
  return 0;
}

ojson B3dDocument::row(std::string_view list, std::uint64_t i) const {
  if (list == "blocks") {
    const Block& b = f_.blocks[static_cast<std::size_t>(i)];
    std::string detail = fmt::format("{} {}", b.type, type_label(b.type));
    if (b.vertices.count()) detail += fmt::format(", {} vertices", b.vertices.count());
    if (!b.polygons.empty()) detail += fmt::format(", {} polygons", b.polygons.size());
    if (!b.collision.empty()) detail += fmt::format(", {} polygons", b.collision.size());
    const std::string name = name_text(b.name);
    return ojson{{"i", i}, {"name", name.empty() ? std::string("(unnamed)") : name}, {"detail", detail}, {"depth", std::min<std::uint32_t>(b.depth, 64)}};
  }
  if (list == "materials") {
    const auto l = look(static_cast<std::uint32_t>(i));
    return ojson{{"i", i}, {"name", name_text(f_.materials[static_cast<std::size_t>(i)])},
                 {"detail", l ? l->material.params : std::string(resources_.empty() ? "(no .res)" : "(not in the .res)")}};
  }
  std::uint64_t k = i;
  for (const Resources& r : resources_)
    if (const ResSection* t = r.res.section("TEXTUREFILES")) {
      if (k < t->entries.size()) {
        const ResEntry& e = t->entries[static_cast<std::size_t>(k)];
        auto im = decode_txr(e.data);
        return ojson{{"i", i}, {"name", display_cp1251(e.path())},
                     {"detail", im ? fmt::format("{}x{} {}, {}", im->width, im->height, im->format, r.name) : im.error().message}};
      }
      k -= t->entries.size();
    }
  return nullptr;
}

ojson B3dDocument::rows(std::string_view list, std::uint64_t first, std::uint64_t count) const {
  return rows_of(list_size(list), first, count, [&](std::uint64_t i) { return row(list, i); });
}

ojson B3dDocument::search(std::string_view list, std::string_view query, std::uint64_t limit) const {
  return search_rows(list_size(list), query, limit, [&](std::uint64_t i) { return row(list, i); });
}

ojson B3dDocument::record(std::string_view list, std::uint64_t index) const {
  if (index >= list_size(list)) return nullptr;
  if (list == "blocks") {
    const Block& b = f_.blocks[static_cast<std::size_t>(index)];
    ojson j{{"name", name_text(b.name)}, {"type", b.type}, {"kind", std::string(type_label(b.type))}, {"offset", fmt::format("{:#x}", b.offset)},
            {"depth", b.depth}};
    if (b.parent >= 0) j["parent"] = name_text(f_.blocks[static_cast<std::size_t>(b.parent)].name);
    const ojson fields = block_fields(b);
    for (const auto& [k, v] : fields.items()) j[k] = v;
    if (b.type == 8 || b.type == 35 || b.type == 28) {
      std::set<std::uint32_t> texnums;
      if (b.type == 35 && b.words.size() > 5) texnums.insert(b.words[5]);
      else for (const Polygon& p : b.polygons) texnums.insert(p.texnum);
      ojson m = ojson::array();
      for (std::uint32_t t : texnums) m.push_back(t < f_.materials.size() ? name_text(f_.materials[t]) : fmt::format("texnum {} (out of range)", t));
      j["materials_used"] = std::move(m);
    }
    return j;
  }
  if (list == "materials") {
    ojson j{{"name", name_text(f_.materials[static_cast<std::size_t>(index)])}, {"texnum", index}};
    if (const auto l = look(static_cast<std::uint32_t>(index))) {
      const ResMaterial& m = l->material;
      j["resources"] = resources_[l->resources].name;
      j["params"] = m.params;
      if (m.texture) {
        j["texture"] = m.texture;
        const ResSection* t = resources_[l->resources].res.section("TEXTUREFILES");
        if (t && m.texture <= t->entries.size()) j["texture_file"] = display_cp1251(t->entries[m.texture - 1].path());
        j["texture_use"] = m.use == ResMaterial::Use::ttx ? "ttx (colour-keyed transparency)" : m.use == ResMaterial::Use::itx ? "itx" : "tex";
      }
      if (m.colour) j["colour"] = m.colour;
      if (m.transparency != 0.0f) j["transparency"] = m.transparency;
    } else {
      j["resources"] = nullptr;
    }
    return j;
  }
  return row(list, index);
}

Result<scene::Scene> B3dDocument::scene() const {
  scene_warnings_.clear();
  scene_built_ = true;
  return SceneBuilder(f_, resources_, linked_, view_, scene_warnings_).build();
}

std::vector<Warning> B3dDocument::warnings() const {
  std::vector<Warning> out;
  if (f_.incomplete) out.push_back({name_, f_.incomplete->offset, 0, 0, f_.incomplete->message});
  for (Warning w : f_.warnings) {
    w.file = name_;
    out.push_back(std::move(w));
  }
  if (!scene_built_) (void)scene();  // what drawing it finds (links, textures)
  for (Warning w : scene_warnings_) {
    w.file = name_;
    out.push_back(std::move(w));
  }
  return out;
}

Error B3dDocument::dump_to(ByteSink& sink, int indent) const { return write_b3d_json(f_, sink, indent); }

}  // namespace sceneria::b3d
