// The T3D loader, step for step as the engine's TModel3d::LoadFromTextFile and TSubModel::Load
// (notes §6, §9): which tokens are lower-cased, which are read by position whatever their
// keyword says, the smoothing-mask normals, the triangles it drops, and the vertex merging
// whose window and tolerance decide the E3D's vertex counts. The float arithmetic goes through
// glm as the engine's does, so the normals and tangents come out to the bit.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include <fast_float/fast_float.h>
#include <fmt/format.h>
#include <glm/glm.hpp>
#include <glm/gtc/epsilon.hpp>
#include <glm/gtx/norm.hpp>

#include "formats/maszyna/tokenizer.hpp"
#include "formats/t3d/indexing.hpp"
#include "formats/t3d/t3d.hpp"

namespace sceneria::t3d {
namespace {

using maszyna::lower;

// The engine's cParser >> T: a number from the token's leading characters, 0 when none.
float to_float(std::string_view t) {
  float v = 0;
  const char* first = t.data();
  if (!t.empty() && t.front() == '+') ++first;  // stream extraction takes a plus sign, from_chars does not
  fast_float::from_chars(first, t.data() + t.size(), v);
  return std::isfinite(v) ? v : 0.0f;
}
std::int64_t to_int(std::string_view t) {
  std::size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) negative = t[i++] == '-';
  std::int64_t v = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9' && v < (std::int64_t{1} << 40); ++i) v = v * 10 + (t[i] - '0');
  return negative ? -v : v;
}

struct Token {
  std::string text;
  std::uint64_t offset = 0;
  std::uint32_t line = 0, column = 0;
};

// The tokenizer with the one token of look-ahead the loader needs (`HotspotPower:` is optional).
class Tokens {
 public:
  explicit Tokens(std::span<const std::uint8_t> bytes) : t_(bytes) {}
  bool next(Token& out) {
    std::string_view text;
    if (!advance(text)) return false;
    out = last_;
    out.text.assign(text);
    return true;
  }
  // The next token's text, valid until the next call (the numbers, read by the hundred thousand,
  // are parsed from it without a copy); its place is kept as last().
  bool advance(std::string_view& text) {
    if (peeked_) {  // peek() left its place in last_ too
      held_ = std::move(peeked_->text);
      peeked_.reset();
      text = held_;
      return true;
    }
    maszyna::TextToken tok;
    if (!t_.next(tok)) return false;
    last_.offset = tok.offset, last_.line = tok.line, last_.column = tok.column;
    text = tok.text;
    return true;
  }
  const Token* peek() {
    if (!peeked_) {
      Token t;
      if (!next(t)) return nullptr;
      peeked_ = std::move(t);
    }
    return &*peeked_;
  }
  // Where the last token read was (its text is not kept): errors and warnings point there.
  const Token& last() const { return last_; }
  std::uint64_t remaining() const { return t_.size() - t_.offset(); }

 private:
  maszyna::TextTokenizer t_;
  std::optional<Token> peeked_;
  std::string held_;
  Token last_;
};

Error text_error(const Token& at, std::string message) {
  Error e{Errc::bad_value, at.offset, std::move(message)};
  e.line = at.line, e.column = at.column;
  return e;
}

class Loader {
 public:
  explicit Loader(std::span<const std::uint8_t> bytes) : tokens_(bytes) {}

  Result<Model> run() {
    Token token;
    while (tokens_.next(token)) {
      if (lower(token.text) == "include") {  // the parser would read the file in place; we list it
        if (auto e = skip_include(); e) return e;
        continue;
      }
      Token parent;
      if (!tokens_.next(parent)) break;
      Submodel s;
      s.line = token.line, s.column = token.column, s.offset = token.offset;
      s.parent_name = parent.text;
      s.parent = find(parent.text);
      s.parent_found = s.parent >= 0;
      if (s.parent >= 0) s.scale_stack = m_.submodels[static_cast<std::size_t>(s.parent)].scale_stack;
      if (auto e = load(s); e) return e;
      if (s.parent < 0 && lower(parent.text) != "none")
        warn(token, fmt::format("submodel \"{}\": parent \"{}\" is not defined before it; attached to the root", s.name, parent.text));
      m_.index_total += static_cast<std::uint32_t>(s.indices.size());
      m_.vertex_total += static_cast<std::uint32_t>(s.vertices.size());
      add(std::move(s));
    }
    return std::move(m_);
  }

 private:
  Error skip_include() {
    Token t;
    if (!tokens_.next(t)) return text_error(tokens_.last(), "include without a file name");
    m_.includes.push_back(t.text);
    warn(t, fmt::format("include \"{}\" is listed, not read", t.text));
    while (tokens_.next(t))
      if (lower(t.text) == "end") return {};
    return {};
  }

  void warn(const Token& at, std::string message) { m_.warnings.push_back({"", at.offset, at.line, at.column, std::move(message)}); }

  Error ended(std::string_view what) const { return text_error(tokens_.last(), fmt::format("the text ends where {} should be", what)); }
  Result<Token> need(std::string_view what) {
    Token t;
    if (!tokens_.next(t)) return ended(what);
    return t;
  }
  Result<std::string> lowered(std::string_view what) {
    auto t = need(what);
    if (!t) return t.error();
    return lower(t->text);
  }
  Error number(float& out, std::string_view what) {
    std::string_view text;
    if (!tokens_.advance(text)) return ended(what);
    out = to_float(text);
    return {};
  }
  Error integer(std::int64_t& out, std::string_view what) {
    std::string_view text;
    if (!tokens_.advance(text)) return ended(what);
    out = to_int(text);
    return {};
  }
  // Ambient:/Diffuse:/Specular: r g b, 0-255; the engine divides all four components (alpha too).
  Error color(std::array<float, 4>& c, std::string_view what) {
    if (auto t = need(what); !t) return t.error();
    for (int i = 0; i < 3; ++i)
      if (auto e = number(c[static_cast<std::size_t>(i)], what); e) return e;
    for (float& v : c) v /= 255.0f;
    return {};
  }

  // The engine's TModel3d::GetFromName over the tree so far: a case-insensitive name, searched
  // from the root, each submodel before its next chain and that before its children.
  std::int32_t find(std::string_view name) const {
    if (name.empty() || m_.root < 0) return m_.root;
    const std::string want = lower(name);
    std::vector<std::int32_t> stack{m_.root};
    while (!stack.empty()) {
      const std::int32_t i = stack.back();
      stack.pop_back();
      const Submodel& s = m_.submodels[static_cast<std::size_t>(i)];
      if (!s.name.empty() && lower(s.name) == want) return i;
      if (s.child >= 0) stack.push_back(s.child);
      if (s.next >= 0) stack.push_back(s.next);
    }
    return -1;
  }

  // TModel3d::AddTo: a new child goes in front of its parent's children, a new root in front of
  // the root chain (why E3D lists submodels in reverse file order).
  void add(Submodel s) {
    const auto i = static_cast<std::int32_t>(m_.submodels.size());
    if (s.parent >= 0) {
      Submodel& p = m_.submodels[static_cast<std::size_t>(s.parent)];
      s.next = p.child;
      p.child = i;
    } else {
      s.next = m_.root;
      m_.root = i;
    }
    m_.submodels.push_back(std::move(s));
  }

  Error load(Submodel& s) {
    auto keyword = need("Type:");
    if (!keyword) return keyword.error();
    if (lower(keyword->text) != "type:") return text_error(*keyword, fmt::format("expected Type: after the parent name, found \"{}\"", keyword->text));
    auto type = lowered("the submodel type");
    if (!type) return type.error();
    s.type_token = *type;
    if (*type == "mesh") s.type = e3d::triangles;
    else if (*type == "point") s.type = e3d::points;
    else if (*type == "freespotlight") s.type = e3d::free_spotlight;
    else if (*type == "text") s.type = e3d::text;
    else if (*type == "stars") s.type = e3d::stars;
    else warn(tokens_.last(), fmt::format("unknown submodel type \"{}\": a transform only", *type));
    if (auto t = need("Name:"); !t) return t.error();
    auto name = need("the submodel name");
    if (!name) return name.error();
    s.name = name->text;

    auto anim_key = lowered("Anim:");
    if (!anim_key) return anim_key.error();
    if (*anim_key == "anim:") {
      auto anim = lowered("the animation");
      if (!anim) return anim.error();
      s.anim_token = *anim;
      if (*anim != "false") {
        s.flags |= 0x4000;  // animated: the matrix is kept
        static const std::pair<std::string_view, int> kAnims[] = {
            {"seconds_jump", 4}, {"minutes_jump", 5}, {"hours_jump", 6}, {"hours24_jump", 7}, {"seconds", 8},  {"minutes", 9},
            {"hours", 10},       {"hours24", 11},     {"billboard", 12}, {"wind", 13},         {"sky", 14},     {"digital", 15},
            {"digiclk", 16}};
        s.anim = 17;  // rotate, rotatexyz, translate, true and anything else: "undefined" (§9.9)
        for (const auto& [n, v] : kAnims)
          if (*anim == n) s.anim = v;
      }
    }
    if (s.type < e3d::rotator)
      if (auto e = color(s.ambient, "Ambient:"); e) return e;
    if (auto e = color(s.diffuse, "Diffuse:"); e) return e;
    if (s.type < e3d::rotator) {
      if (auto e = color(s.specular, "Specular:"); e) return e;
      if (s.name == "cien") s.specular = {0, 0, 0, 1};  // the engine's fix for legacy shadow geometry
    }
    if (auto t = need("SelfIllum:"); !t) return t.error();
    auto light = lowered("the SelfIllum value");
    if (!light) return light.error();
    s.self_illum = *light == "true" ? 2.0f : *light == "false" ? -1.0f : static_cast<float>(maszyna::leading_number(*light));

    if (s.type == e3d::free_spotlight) {
      auto key = lowered("NearAttenStart:");
      if (!key) return key.error();
      if (*key != "nearattenstart:") warn(tokens_.last(), "expected NearAttenStart: in a FreeSpotLight");
      float use = 0, decay = 0;
      float* values[] = {&s.light.near_atten_start, &s.light.near_atten_end, &use, &decay, &s.light.far_decay_radius, &s.light.cos_falloff, &s.light.cos_hotspot};
      for (std::size_t i = 0; i < 7; ++i) {
        if (i > 0)
          if (auto t = need("a light keyword"); !t) return t.error();  // spellings not checked, as in the engine
        if (auto e = number(*values[i], "a light value"); e) return e;
      }
      s.light.use_near_atten = use != 0 ? 1 : 0;
      s.light.far_atten_decay = static_cast<std::int32_t>(decay);
      if (const Token* p = tokens_.peek(); p && lower(p->text) == "hotspotpower:") {
        Token discard;
        tokens_.next(discard);
        float power = 0;
        if (auto e = number(power, "the HotspotPower value"); e) return e;
        s.diffuse_multiplier = power / 100.f;
      }
      for (float* cone : {&s.light.cos_falloff, &s.light.cos_hotspot})
        if (*cone > 1.0f) *cone = static_cast<float>(std::cos(0.5f * *cone * (3.14159265358979323846 / 180.0)));  // given in degrees
      s.vertices.emplace_back();  // a light is one point
      s.flags |= 0x4030;          // drawn in both phases: the point, then its glare
    } else if (s.type < e3d::rotator) {
      float wire = 0;
      for (float* v : {&wire, &s.wire_size, &s.opacity}) {
        if (auto t = need("Wire:/WireSize:/Opacity:"); !t) return t.error();
        if (v == &wire) {
          if (auto t = need("the Wire value"); !t) return t.error();
        } else if (auto e = number(*v, "a Wire/Opacity value"); e) {
          return e;
        }
      }
      if (s.opacity > 1.f) s.opacity = std::min(1.f, s.opacity * 0.01f);  // a percentage
      if (s.opacity < -1.f) s.opacity = std::max(-1.f, s.opacity * 0.01f);
      auto map_key = lowered("Map:");
      if (!map_key) return map_key.error();
      if (*map_key != "map:") warn(tokens_.last(), fmt::format("expected Map:, found \"{}\"", *map_key));
      auto map = lowered("the Map value");
      if (!map) return map.error();
      std::replace(map->begin(), map->end(), '\\', '/');
      s.map = *map;
      const bool translucent = s.opacity < 0.999f;
      if (*map == "none") {
        s.material = 1, s.material_name = "colored";
        s.flags |= 0x10;
      } else if (map->find("replacableskin") != std::string::npos || *map == "-1") {
        s.material = -1;
        s.flags |= translucent ? 1 : 0x10;
      } else if (*map == "-2" || *map == "-3" || *map == "-4") {
        const int n = (*map)[1] - '0';
        s.material = -n;
        s.flags |= translucent ? (1u << (n - 1)) : 0x10;
      } else {
        s.material = 1, s.material_name = *map;
        s.flags |= translucent ? 0x20 : 0x10;
      }
    } else {
      s.flags |= 0x10;  // stars, text, transforms
    }

    // MaxDistance: v MinDistance: v Transform: (keywords by position)
    float max_distance = 0, min_distance = 0;
    for (float* v : {&max_distance, &min_distance}) {
      if (auto t = need("MaxDistance:/MinDistance:"); !t) return t.error();
      if (auto e = number(*v, "a view distance"); e) return e;
    }
    if (auto t = need("Transform:"); !t) return t.error();
    if (max_distance <= 0.0f) max_distance = 15000.0f;
    s.max_distance_sq = max_distance * max_distance;
    s.min_distance_sq = min_distance * min_distance;
    for (float& e : s.matrix)
      if (auto err = number(e, "a Transform value"); err) return err;
    bool identity = true;
    for (std::size_t i = 0; i < 16; ++i) identity = identity && s.matrix[i] == (i % 5 ? 0.0f : 1.0f);
    if (!identity) {
      s.flags |= 0x8000;
      const glm::vec3 scale{glm::length(glm::vec3(s.matrix[0], s.matrix[1], s.matrix[2])), glm::length(glm::vec3(s.matrix[4], s.matrix[5], s.matrix[6])),
                            glm::length(glm::vec3(s.matrix[8], s.matrix[9], s.matrix[10]))};
      if (std::abs(scale.x - 1.0f) > 0.01 || std::abs(scale.y - 1.0f) > 0.01 || std::abs(scale.z - 1.0f) > 0.01)
        warn(tokens_.last(), fmt::format("submodel \"{}\": its transform scales the geometry ({:.4g} {:.4g} {:.4g})", s.name, scale.x, scale.y, scale.z));
      s.scale_stack *= (scale.x + scale.y + scale.z) / 3.0f;
    }

    if (s.type < e3d::rotator) {
      if (auto e = geometry(s); e) return e;
    } else if (s.type == e3d::stars) {
      if (auto e = stars(s); e) return e;
    }
    if (s.vertices.empty()) s.flags &= ~0x3Fu;  // its phase comes from its children
    return {};
  }

  Error geometry(Submodel& s) {
    auto token = lowered("NumVerts:");
    if (!token) return token.error();
    bool user_data = false;
    if (*token == "userdata:") {
      auto v = lowered("the UserData value");
      if (!v) return v.error();
      user_data = *v == "true";
      token = lowered("NumVerts:");
      if (!token) return token.error();
    }
    std::int64_t index_count = 0;
    if (*token == "numindices:") {
      if (auto e = integer(index_count, "the index count"); e) return e;
      if (index_count < 0) return text_error(tokens_.last(), fmt::format("submodel \"{}\": {} indices", s.name, index_count));
      for (std::int64_t i = 0; i < index_count; ++i) {
        std::int64_t v = 0;
        if (auto e = integer(v, "an index"); e) return e;
        s.indices.push_back(static_cast<std::uint32_t>(v));
      }
      s.indices_in_file = static_cast<std::uint32_t>(index_count);
      token = lowered("NumVerts:");
      if (!token) return token.error();
    }
    if (*token != "numverts:" && *token != "numverts") {
      warn(tokens_.last(), fmt::format("submodel \"{}\": expected NumVerts:, found \"{}\"; no geometry", s.name, *token));
      s.indices.clear();
      return {};
    }
    const Token at = tokens_.last();
    std::int64_t count = 0;
    if (auto e = integer(count, "the vertex count"); e) return e;
    if (count < 0) return text_error(tokens_.last(), fmt::format("submodel \"{}\": {} vertices", s.name, count));
    s.vertices_in_file = static_cast<std::uint32_t>(count);
    if (index_count <= 0 && count % 3 != 0)
      return text_error(at, fmt::format("submodel \"{}\": {} vertices is not a whole number of triangles", s.name, count));
    if (count == 0) {
      s.type = e3d::rotator;  // no vertices: a transform only (indices of nothing are dropped)
      s.indices.clear();
      return {};
    }
    if (index_count > 0) {
      s.geometry = "indexed";
      for (std::int64_t i = 0; i < count; ++i) {
        Vertex v;
        for (float* f : {&v.position[0], &v.position[1], &v.position[2], &v.normal[0], &v.normal[1], &v.normal[2], &v.uv[0], &v.uv[1], &v.tangent[0],
                         &v.tangent[1], &v.tangent[2], &v.tangent[3]})
          if (auto e = number(*f, "a vertex value"); e) return e;
        s.vertices.push_back(v);
      }
      for (std::uint32_t i : s.indices)
        if (i >= s.vertices.size()) return text_error(at, fmt::format("submodel \"{}\": index {} but only {} vertices", s.name, i, s.vertices.size()));
    } else {
      s.geometry = "legacy";
      if (auto e = legacy(s, count); e) return e;
    }
    if (user_data)
      for (std::size_t i = 0; i < s.vertices.size(); ++i) {
        std::array<float, 4> u{};
        for (float& f : u)
          if (auto e = number(f, "a UserData value"); e) return e;
        s.user_data.push_back(u);
      }
    return {};
  }

  // Legacy geometry: triangles, each after its smoothing mask, then the loader's normals,
  // indexing and tangents (TSubModel::Load, gfx::calculate_indices, gfx::calculate_tangents).
  Error legacy(Submodel& s, std::int64_t count) {
    std::vector<Vertex> v;
    std::vector<std::uint32_t> masks;
    std::vector<std::int64_t> from;  // wsp: the vertex whose normal this one copies, -1 none yet
    std::int64_t vertex_count = count, mask = 0;
    std::vector<std::uint32_t> masks_used;
    {  // sized once: a vertex takes at least five numbers of two bytes, so the text caps the count
      const auto fit = static_cast<std::size_t>(std::clamp<std::int64_t>(count, 0, static_cast<std::int64_t>(tokens_.remaining() / 10)));
      v.reserve(fit), from.reserve(fit), masks.reserve(fit / 3 + 1);
    }
    for (std::int64_t idx = 0; idx < vertex_count; ++idx) {
      const auto u = static_cast<std::size_t>(idx);
      if (v.size() <= u) v.resize(u + 1), from.resize(u + 1);
      from[u] = -1;
      if (idx % 3 == 0) {
        if (auto e = integer(mask, "a smoothing mask"); e) return e;
        if (masks.size() <= u / 3) masks.resize(u / 3 + 1);
        masks[u / 3] = mask == -1 ? 0u : static_cast<std::uint32_t>(mask);
        if (mask != -1) masks_used.push_back(static_cast<std::uint32_t>(mask));
      }
      Vertex& x = v[u];
      x = Vertex{};
      for (float* f : {&x.position[0], &x.position[1], &x.position[2]})
        if (auto e = number(*f, "a vertex position"); e) return e;
      if (mask == -1) {  // explicit normal, kept as written (the engine's normalize discards its result)
        for (float* f : {&x.normal[0], &x.normal[1], &x.normal[2]})
          if (auto e = number(*f, "a vertex normal"); e) return e;
        from[u] = idx;
        ++s.explicit_normal_vertices;
      }
      for (float* f : {&x.uv[0], &x.uv[1]})
        if (auto e = number(*f, "a texture coordinate"); e) return e;
      if (idx % 3 == 2) {
        // `at` stays on this triangle's last vertex even after a drop moves idx back: the size
        // test after a degenerate drop looks at the dropped triangle, as the engine's does.
        const std::size_t at = u;
        const auto p = [&](std::size_t k) { return glm::vec3(v[k].position[0], v[k].position[1], v[k].position[2]); };
        if (glm::length2(glm::cross(p(at - 1) - p(at), p(at - 2) - p(at))) == 0.0) {
          vertex_count -= 3, idx -= 3;
          ++s.degenerate_dropped;
        }
        if (idx > 0 && (glm::length(p(at) - p(at - 1)) > 1000.0 || glm::length(p(at - 1) - p(at - 2)) > 1000.0 || glm::length(p(at - 2) - p(at)) > 1000.0)) {
          vertex_count -= 3, idx -= 3;
          ++s.oversized_dropped;
        }
      }
    }
    std::sort(masks_used.begin(), masks_used.end());
    masks_used.erase(std::unique(masks_used.begin(), masks_used.end()), masks_used.end());
    s.smoothing_masks = std::move(masks_used);
    v.resize(static_cast<std::size_t>(vertex_count));
    smooth_normals(v, masks, from);
    std::vector<std::uint32_t> indices = merge_vertices(v, 1e-5f * s.scale_stack);
    tangents(v, indices);
    s.vertices = std::move(v);
    s.indices = std::move(indices);
    return {};
  }

  // Lengyel's tangents, as gfx::calculate_tangents computes them.
  static void tangents(std::vector<Vertex>& v, const std::vector<std::uint32_t>& indices) {
    const std::size_t n = v.size();
    if (n == 0 || v[0].tangent[3] != 0.0f) return;
    std::vector<glm::vec3> tan(n * 2);
    for (std::size_t a = 0; a + 3 <= indices.size(); a += 3) {
      const std::size_t i1 = indices[a], i2 = indices[a + 1], i3 = indices[a + 2];
      const glm::vec3 v1(v[i1].position[0], v[i1].position[1], v[i1].position[2]);
      const glm::vec3 v2(v[i2].position[0], v[i2].position[1], v[i2].position[2]);
      const glm::vec3 v3(v[i3].position[0], v[i3].position[1], v[i3].position[2]);
      const glm::vec2 w1(v[i1].uv[0], v[i1].uv[1]), w2(v[i2].uv[0], v[i2].uv[1]), w3(v[i3].uv[0], v[i3].uv[1]);
      const float x1 = v2.x - v1.x, x2 = v3.x - v1.x, y1 = v2.y - v1.y, y2 = v3.y - v1.y, z1 = v2.z - v1.z, z2 = v3.z - v1.z;
      const float s1 = w2.x - w1.x, s2 = w3.x - w1.x, t1 = w2.y - w1.y, t2 = w3.y - w1.y;
      float ri = s1 * t2 - s2 * t1;
      if (ri == 0.0f) ri = 1.0f;
      const float r = 1.0f / ri;
      const glm::vec3 sdir((t2 * x1 - t1 * x2) * r, (t2 * y1 - t1 * y2) * r, (t2 * z1 - t1 * z2) * r);
      const glm::vec3 tdir((s1 * x2 - s2 * x1) * r, (s1 * y2 - s2 * y1) * r, (s1 * z2 - s2 * z1) * r);
      tan[i1] += sdir, tan[i2] += sdir, tan[i3] += sdir;
      tan[n + i1] += tdir, tan[n + i2] += tdir, tan[n + i3] += tdir;
    }
    for (std::size_t a = 0; a < n; ++a) {
      const glm::vec3 nrm(v[a].normal[0], v[a].normal[1], v[a].normal[2]);
      const glm::vec3& t = tan[a];
      const glm::vec3& t2 = tan[n + a];
      const glm::vec3 tangent = glm::normalize(t - nrm * glm::dot(nrm, t));
      v[a].tangent = {tangent.x, tangent.y, tangent.z, glm::dot(glm::cross(nrm, t), t2) < 0.0f ? -1.0f : 1.0f};
    }
  }

  // Stars: triangles' worth of points, each x y z, a colour (0xBBGGRR) kept in the normal, and one
  // ignored value; the mask before each three is ignored.
  Error stars(Submodel& s) {
    if (auto t = need("NumVerts:"); !t) return t.error();
    std::int64_t count = 0;
    if (auto e = integer(count, "the star count"); e) return e;
    if (count < 0) return text_error(tokens_.last(), fmt::format("submodel \"{}\": {} stars", s.name, count));
    s.vertices_in_file = static_cast<std::uint32_t>(count);
    for (std::int64_t i = 0; i < count; ++i) {
      if (i % 3 == 0)
        if (auto t = need("a mask"); !t) return t.error();
      Vertex x;
      for (float* f : {&x.position[0], &x.position[1], &x.position[2]})
        if (auto e = number(*f, "a star position"); e) return e;
      std::int64_t colour = 0;
      if (auto e = integer(colour, "a star colour"); e) return e;
      if (auto t = need("a star value"); !t) return t.error();
      const auto c = static_cast<std::uint32_t>(colour);
      x.normal = {static_cast<float>(c & 0xff) / 255.0f, static_cast<float>((c >> 8) & 0xff) / 255.0f, static_cast<float>((c >> 16) & 0xff) / 255.0f};
      s.vertices.push_back(x);
    }
    return {};
  }

  Tokens tokens_;
  Model m_;
};

}  // namespace

Result<Model> read_model(std::span<const std::uint8_t> bytes) { return Loader(bytes).run(); }

}  // namespace sceneria::t3d
