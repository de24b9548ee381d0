// Wavefront OBJ + MTL from the scene model: instances baked (every placement's vertices written
// in world space, less the re-centring offset), sections' geometry with vertex colours (the
// common `v x y z r g b` extension that Blender and MeshLab read), lines as `l` elements. Written
// in one pass as the sections come (SceneWalk), handed to the sink about a megabyte at a time;
// nothing per vertex or per placement is kept.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "export/export.hpp"
#include "export/walk.hpp"

namespace sceneria::exports {

namespace {

double finite(double v, double fallback = 0.0) { return std::isfinite(v) ? v : fallback; }

class ObjWriter {
 public:
  ObjWriter(SceneWalk& walk, const Options& options, const Target& target, ByteSink& sink)
      : w_(walk), o_(options), t_(target), sink_(sink) {}

  Error write() {
    offset_ = w_.offset();
    put("# sceneria export{}{}\n", t_.source.empty() ? "" : " of ", one_line(t_.source));
    put("# offset {} {} {} (subtracted from world coordinates; Y up, metres)\n", offset_.x, offset_.y, offset_.z);
    if (t_.sidecars) put("mtllib {}.mtl\n", file_stem(t_.name));
    const double total = std::max<double>(1.0, static_cast<double>(w_.total()));
    for (;;) {
      auto sec = w_.next();
      if (!sec) return sec.error();
      if (!*sec) break;
      section(**sec);
      if (out_.size() >= kFlushAt)
        if (Error e = flush()) return e;
      if (t_.progress) t_.progress(std::min(1.0, static_cast<double>(w_.walked()) / total));
    }
    if (t_.sidecars) t_.sidecars->push_back({file_stem(t_.name) + ".mtl", mtl()});
    return flush();
  }

 private:
  static constexpr std::size_t kFlushAt = 1 << 20;
  Error flush() {
    Error e = sink_.put(std::span(reinterpret_cast<const std::uint8_t*>(out_.data()), out_.size()));
    out_.clear();
    return e;
  }
  template <class... A>
  void put(fmt::format_string<A...> f, A&&... a) {
    fmt::format_to(std::back_inserter(out_), f, std::forward<A>(a)...);
  }
  // " x" with `digits` decimals, rounded half away from zero: the hot path (vertex lines are most
  // of an OBJ), several times faster than a general float formatter. Non-finite or absurd values
  // (beyond 1e12) are written as 0.
  void fixed(double x, int digits) {
    static constexpr double kScale[] = {1, 10, 100, 1000, 1e4, 1e5, 1e6};
    if (!(std::fabs(x) < 1e12)) x = 0;
    const double scaled = std::round(std::fabs(x) * kScale[digits]);
    auto v = static_cast<std::uint64_t>(scaled);
    char text[32];
    char* end = text + sizeof text;
    char* p = end;
    for (int d = 0; d < digits; ++d) *--p = static_cast<char>('0' + v % 10), v /= 10;
    *--p = '.';
    do *--p = static_cast<char>('0' + v % 10), v /= 10; while (v);
    if (x < 0 && scaled != 0) *--p = '-';
    *--p = ' ';
    out_.append(p, end);
  }
  void vertex(const char* key, double x, double y, double z, int digits = 4) {
    out_.append(key, key + std::char_traits<char>::length(key));
    fixed(x, digits), fixed(y, digits), fixed(z, digits);
  }
  static std::string one_line(std::string s) {
    for (char& c : s)
      if (c == '\n' || c == '\r') c = ' ';
    return s;
  }
  std::string material_name(std::uint32_t id) const {
    const std::string safe = file_safe(w_.world().materials[id].name);
    return fmt::format("m{}{}{}", id, safe.empty() ? "" : "_", safe);
  }
  void use(std::uint32_t material) {
    const scene::Scene& s = w_.world();
    if (material >= s.materials.size()) material = 0;
    if (s.materials.empty()) return;
    if (used_.size() < s.materials.size()) used_.resize(s.materials.size(), false);
    used_[material] = true;
    if (t_.sidecars) put("usemtl {}\n", material_name(material));
  }

  void section(const scene::Section& sec) {
    const glm::dvec3 origin = sec.origin - offset_;
    bool named = false;
    for (const scene::Batch& b : sec.batches) {
      const bool lines = b.primitive == scene::Batch::Primitive::lines;
      if ((lines && o_.lines == Lines::none) || b.overlay) continue;
      const std::size_t n = b.positions.size() / (lines ? 2 : 3) * (lines ? 2 : 3);
      if (n == 0) continue;
      if (!named) put("o section_{}_{}_geometry\n", sec.row, sec.col), named = true;
      const bool colors = b.colors.size() == b.positions.size();
      for (std::size_t v = 0; v < n; ++v) {
        const glm::dvec3 p = origin + glm::dvec3(b.positions[v]);
        if (colors) {
          const std::uint32_t c = b.colors[v];
          vertex("v", finite(p.x), finite(p.y), finite(p.z));
          put(" {:.4g} {:.4g} {:.4g}\n", (c & 0xFF) / 255.0, ((c >> 8) & 0xFF) / 255.0, ((c >> 16) & 0xFF) / 255.0);
        } else {
          vertex("v", finite(p.x), finite(p.y), finite(p.z));
          out_.push_back('\n');
        }
      }
      use(b.material);
      if (lines) {
        // Ribbons are a glTF nicety; OBJ has lines of its own that its tools read.
        for (std::size_t v = 0; v < n; v += 2) put("l {} {}\n", vertices_ + v + 1, vertices_ + v + 2);
      } else {
        const bool normals = b.normals.size() == b.positions.size();
        if (normals)
          for (std::size_t v = 0; v < n; ++v) normal(glm::dvec3(b.normals[v]));
        for (std::size_t v = 0; v < n; v += 3) face(vertices_ + v + 1, normals ? normals_ + v + 1 : 0, 0);
        if (normals) normals_ += n;
      }
      vertices_ += n;
    }
    for (const scene::Instance& in : sec.instances) instance(origin, in);
  }

  void normal(const glm::dvec3& n) {
    const double l = glm::length(n);
    const glm::dvec3 u = std::isfinite(l) && l > 1e-12 ? n / l : glm::dvec3(0, 1, 0);
    vertex("vn", u.x, u.y, u.z);
    out_.push_back('\n');
  }
  // One triangle; vertex a's normal and uv are at the same offsets as its position's (0: none).
  void face(std::uint64_t a, std::uint64_t na, std::uint64_t ta) {
    put("f");
    for (std::uint64_t k = 0; k < 3; ++k) {
      if (na && ta) put(" {}/{}/{}", a + k, ta + k, na + k);
      else if (na) put(" {}//{}", a + k, na + k);
      else if (ta) put(" {}/{}", a + k, ta + k);
      else put(" {}", a + k);
    }
    put("\n");
  }

  void instance(const glm::dvec3& origin, const scene::Instance& in) {
    const scene::Scene& s = w_.world();
    if (in.mesh < s.mesh_base || in.mesh - s.mesh_base >= s.meshes.size()) return;
    const scene::Mesh& m = s.meshes[in.mesh - s.mesh_base];
    const std::size_t n = m.positions.size();
    if (n == 0 || m.parts.empty()) return;
    glm::dquat q(in.rotation);
    const double l = glm::length(glm::dvec4(q.x, q.y, q.z, q.w));
    q = std::isfinite(l) && l > 1e-9 ? q / l : glm::dquat(1, 0, 0, 0);
    const glm::dvec3 scale(finite(in.scale.x, 1), finite(in.scale.y, 1), finite(in.scale.z, 1));
    const glm::dmat4 world = glm::translate(glm::dmat4(1.0), origin + glm::dvec3(finite(in.offset.x), finite(in.offset.y), finite(in.offset.z))) *
                             glm::mat4_cast(q) * glm::scale(glm::dmat4(1.0), scale);
    const glm::dmat3 normal_matrix = glm::transpose(glm::inverse(glm::dmat3(world)));
    std::string label = m.name;
    if (const SceneWalk::ObjectRef ref = w_.object(in.object); ref.object)
      label = fmt::format("{}_{}_{}", ref.kind->empty() ? "object" : *ref.kind, ref.object->index, m.name);
    for (char& c : label)
      if (std::isspace(static_cast<unsigned char>(c))) c = '_';
    put("o {}\n", label);
    for (const glm::vec3& p : m.positions) {
      const glm::dvec3 w = world * glm::dvec4(finite(p.x), finite(p.y), finite(p.z), 1.0);
      vertex("v", w.x, w.y, w.z);
      out_.push_back('\n');
    }
    const bool normals = m.normals.size() == n, uvs = m.uvs.size() == n;
    if (normals)
      for (const glm::vec3& v : m.normals) normal(normal_matrix * glm::dvec3(v));
    if (uvs)
      for (const glm::vec2& t : m.uvs) {
        // The scene's v runs down the image from its first row, as glTF's does; an OBJ's runs up
        // from its last (Blender, three.js and MeshLab read vt so).
        out_.append(std::string_view("vt"));
        fixed(finite(t.x), 6), fixed(1.0 - finite(t.y), 6);
        out_.push_back('\n');
      }
    for (const scene::Part& p : m.parts) {
      if (p.first > m.indices.size() || p.count > m.indices.size() - p.first) continue;
      bool fits = true;
      for (std::uint32_t k = p.first; k < p.first + p.count / 3 * 3 && fits; ++k) fits = m.indices[k] < n;
      if (!fits || p.count < 3) continue;
      use(p.material);
      for (std::uint32_t k = p.first; k + 3 <= p.first + p.count / 3 * 3; k += 3) {
        put("f");
        for (std::uint32_t c = 0; c < 3; ++c) {
          const std::uint64_t i = m.indices[k + c] + 1;
          if (normals && uvs) put(" {}/{}/{}", vertices_ + i, uvs_ + i, normals_ + i);
          else if (normals) put(" {}//{}", vertices_ + i, normals_ + i);
          else if (uvs) put(" {}/{}", vertices_ + i, uvs_ + i);
          else put(" {}", vertices_ + i);
        }
        put("\n");
      }
    }
    vertices_ += n;
    if (normals) normals_ += n;
    if (uvs) uvs_ += n;
  }

  std::vector<std::uint8_t> mtl() {
    std::string text = "# sceneria export: materials\n";
    std::map<std::uint32_t, std::string> images;  // texture id -> its PNG beside the output
    const scene::Scene& s = w_.world();
    for (std::uint32_t id = 0; id < used_.size(); ++id) {
      if (!used_[id]) continue;
      const scene::Material& m = s.materials[id];
      const auto channel = [&](int shift) { return ((m.color >> shift) & 0xFF) / 255.0; };
      text += fmt::format("\nnewmtl {}\nKa 0 0 0\nKd {:.4g} {:.4g} {:.4g}\nKs 0 0 0\nd {:.4g}\nillum 1\n", material_name(id), channel(0), channel(8),
                          channel(16), channel(24));
      if (o_.textures && m.texture < s.textures.size()) {
        if (!images.count(m.texture)) {
          const scene::Texture& t = s.textures[m.texture];
          auto file = png(texture_rgba(t), t.width, t.height);
          std::string name;
          if (!file.empty()) {
            name = fmt::format("{}_{}.png", file_stem(t_.name), images.size());
            t_.sidecars->push_back({name, std::move(file)});
          }
          images[m.texture] = name;
        }
        if (!images[m.texture].empty()) text += fmt::format("map_Kd {}\n", images[m.texture]);
      }
    }
    if (t_.written)
      t_.written->images = static_cast<std::uint32_t>(std::count_if(images.begin(), images.end(), [](const auto& i) { return !i.second.empty(); }));
    return {text.begin(), text.end()};
  }

  SceneWalk& w_;
  const Options& o_;
  const Target& t_;
  ByteSink& sink_;
  glm::dvec3 offset_{0.0};
  fmt::memory_buffer out_;
  std::vector<bool> used_;
  std::uint64_t vertices_ = 0, normals_ = 0, uvs_ = 0;
};

}  // namespace

Error obj(const Source& source, const Options& options, const Target& target, ByteSink& sink) {
  auto pieces = source.pieces();
  SceneWalk walk(*pieces, options, source.assets);
  if (Error e = walk.start()) return e;
  if (Error e = ObjWriter(walk, options, target, sink).write()) return e;
  if (target.progress) target.progress(1.0);
  return {};
}

Result<std::vector<std::uint8_t>> obj(const scene::Scene& scene, const Options& options, const Target& target) {
  std::vector<std::uint8_t> out;
  VectorByteSink sink(out);
  const Source source{[&scene] { return std::make_unique<scene::OnePiece>(scene); }, nullptr};
  if (Error e = obj(source, options, target, sink)) return e;
  return out;
}

}  // namespace sceneria::exports
