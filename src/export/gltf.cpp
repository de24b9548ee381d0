// glTF 2.0 from the scene model: one pass over the scene's sections, the binary buffer and the
// JSON's big arrays written as they come (no document tree: a million instances stay a few bytes
// each). Coordinates need no conversion: the scene is Y up, right-handed, metres, counter-clockwise
// (docs/export.md). Each (section, mesh) pair is one node; with instancing its instances are
// EXT_mesh_gpu_instancing accessors, as the extension's specification advises for co-located
// cells, otherwise each is a child node.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "export/export.hpp"

namespace sceneria::exports {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;
constexpr int kFloat = 5126, kUnsignedByte = 5121, kUnsignedInt = 5125;
constexpr int kTriangles = 4, kLines = 1;

std::string quote(std::string_view s) {
  return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

float finite(float v, float fallback = 0.0f) { return std::isfinite(v) ? v : fallback; }

// Numbers as JSON: the shortest text that reads back as the same float or double.
std::string num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "0"; }
std::string numf(float v) { return std::isfinite(v) ? fmt::format("{}", v) : "0"; }

double srgb_to_linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

std::string base64(const std::vector<std::uint8_t>& bytes) {
  static const char* const k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += k[v >> 18], out += k[(v >> 12) & 63], out += k[(v >> 6) & 63], out += k[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const std::uint32_t v = std::uint32_t{bytes[i]} << 16;
    out += k[v >> 18], out += k[(v >> 12) & 63], out += "==";
  } else if (i + 2 == bytes.size()) {
    const std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8);
    out += k[v >> 18], out += k[(v >> 12) & 63], out += k[(v >> 6) & 63], out += '=';
  }
  return out;
}

// A JSON array written element by element.
struct Array {
  std::string text;
  std::uint32_t count = 0;
  std::uint32_t add(std::string_view element) {
    if (count) text += ',';
    text += element;
    return count++;
  }
};

class Builder {
 public:
  Builder(const scene::Scene& scene, const Options& options, const Target& target, bool binary)
      : s_(scene), o_(options), t_(target), binary_(binary) {
    mesh_of_.assign(scene.meshes.size(), kUnwritten);
    texture_of_.assign(scene.textures.size(), kUnwritten);
  }

  Result<std::vector<std::uint8_t>> build() {
    for (const scene::Material& m : s_.materials) material(m);
    // A model: its hierarchy places its meshes (the instances place them again for the renderer).
    if (!s_.nodes.empty()) {
      if (t_.progress) t_.progress(1.0);
      return finish({});
    }
    const std::vector<std::size_t> sections = sections_in(s_, o_.area);
    offset_ = offset_for(s_, sections, o_);
    std::string roots;
    for (std::size_t k = 0; k < sections.size(); ++k) {
      if (const auto node = section(s_.sections[sections[k]])) roots += (roots.empty() ? "" : ",") + std::to_string(*node);
      if (t_.progress) t_.progress(static_cast<double>(k + 1) / static_cast<double>(sections.size()));
    }
    return finish(roots);
  }

 private:
  static constexpr std::int64_t kUnwritten = -1, kUnusable = -2;

  // ---- the binary buffer ----
  std::uint32_t view(const void* data, std::size_t size, int target) {
    while (bin_.size() % 4) bin_.push_back(0);
    const std::size_t at = bin_.size();
    bin_.resize(at + size);
    if (size) std::memcpy(bin_.data() + at, data, size);
    return views_.add(target ? fmt::format(R"({{"buffer":0,"byteOffset":{},"byteLength":{},"target":{}}})", at, size, target)
                             : fmt::format(R"({{"buffer":0,"byteOffset":{},"byteLength":{}}})", at, size));
  }
  template <class T>
  std::uint32_t accessor(const std::vector<T>& values, int component, std::string_view type, int target,
                         std::string_view extra = {}) {
    const std::uint32_t v = view(values.data(), values.size() * sizeof(T), target);
    return accessors_.add(fmt::format(R"({{"bufferView":{},"componentType":{},"count":{},"type":"{}"{}{}}})", v, component,
                                      values.size() * sizeof(T) / component_size(component) / components(type), type,
                                      extra.empty() ? "" : ",", extra));
  }
  static std::size_t component_size(int c) { return c == kUnsignedByte ? 1 : 4; }
  static std::size_t components(std::string_view type) { return type == "SCALAR" ? 1 : type == "VEC2" ? 2 : type == "VEC3" ? 3 : 4; }
  static std::string bounds(const std::vector<glm::vec3>& p) {
    glm::vec3 lo(INFINITY), hi(-INFINITY);
    for (const glm::vec3& v : p) lo = glm::min(lo, v), hi = glm::max(hi, v);
    return fmt::format(R"("min":[{},{},{}],"max":[{},{},{}])", numf(lo.x), numf(lo.y), numf(lo.z), numf(hi.x), numf(hi.y), numf(hi.z));
  }
  std::uint32_t positions(const std::vector<glm::vec3>& p) { return accessor(p, kFloat, "VEC3", kArrayBuffer, bounds(p)); }

  // ---- looks ----
  std::int64_t texture(std::uint32_t id) {
    if (!o_.textures || id >= texture_of_.size()) return kUnusable;
    if (texture_of_[id] != kUnwritten) return texture_of_[id];
    const scene::Texture& t = s_.textures[id];
    const std::vector<std::uint8_t> file = png(texture_rgba(t), t.width, t.height);
    if (file.empty()) return texture_of_[id] = kUnusable;
    std::string image;
    if (t_.sidecars && !binary_) {
      const std::string name = fmt::format("{}_{}.png", file_stem(t_.name), images_.count);
      t_.sidecars->push_back({name, file});
      image = fmt::format(R"({{"name":{},"uri":"{}"}})", quote(t.name), name);
    } else {
      image = fmt::format(R"({{"name":{},"bufferView":{},"mimeType":"image/png"}})", quote(t.name), view(file.data(), file.size(), 0));
    }
    const std::uint32_t i = images_.add(image);
    if (samplers_.count == 0) samplers_.add(R"({"magFilter":9729,"minFilter":9987,"wrapS":10497,"wrapT":10497})");
    return texture_of_[id] = textures_.add(fmt::format(R"({{"sampler":0,"source":{}}})", i));
  }

  void material(const scene::Material& m) {
    const auto channel = [&](int shift) { return srgb_to_linear(((m.color >> shift) & 0xFF) / 255.0); };
    std::string pbr = fmt::format(R"("baseColorFactor":[{},{},{},{}],"metallicFactor":0,"roughnessFactor":1)", num(channel(0)),
                                  num(channel(8)), num(channel(16)), num(((m.color >> 24) & 0xFF) / 255.0));
    if (m.texture != scene::kNoTexture)
      if (const std::int64_t t = texture(m.texture); t >= 0) pbr += fmt::format(R"(,"baseColorTexture":{{"index":{}}})", t);
    std::string text = fmt::format(R"({{"name":{},"pbrMetallicRoughness":{{{}}})", quote(m.name), pbr);
    if (m.alpha == scene::Material::Alpha::mask)
      text += fmt::format(R"(,"alphaMode":"MASK","alphaCutoff":{})", numf(std::clamp(finite(m.alpha_cutoff, 0.5f), 0.0f, 1.0f)));
    if (m.alpha == scene::Material::Alpha::blend) text += R"(,"alphaMode":"BLEND")";
    if (m.two_sided) text += R"(,"doubleSided":true)";
    materials_.add(text + "}");
  }
  std::uint32_t ribbon_material() {
    if (ribbon_material_ < 0)
      ribbon_material_ = materials_.add(R"({"name":"line ribbons","pbrMetallicRoughness":{"metallicFactor":0,"roughnessFactor":1},"doubleSided":true})");
    return static_cast<std::uint32_t>(ribbon_material_);
  }

  // ---- meshes ----
  // The scene mesh as a glTF mesh (once), or -1 if nothing of it can be drawn.
  std::int64_t mesh(std::uint32_t id) {
    if (id < s_.mesh_base || id - s_.mesh_base >= mesh_of_.size()) return kUnusable;
    std::int64_t& slot = mesh_of_[id - s_.mesh_base];
    if (slot != kUnwritten) return slot;
    const scene::Mesh& m = s_.meshes[id - s_.mesh_base];
    const std::size_t n = m.positions.size();
    // Parts whose indices all name a vertex, whole triangles only.
    std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>> parts;
    for (const scene::Part& p : m.parts) {
      if (p.first > m.indices.size() || p.count > m.indices.size() - p.first) continue;
      std::vector<std::uint32_t> idx(m.indices.begin() + p.first, m.indices.begin() + p.first + p.count / 3 * 3);
      if (idx.empty() || std::any_of(idx.begin(), idx.end(), [&](std::uint32_t i) { return i >= n; })) continue;
      parts.emplace_back(p.material < s_.materials.size() ? p.material : 0, std::move(idx));
    }
    if (parts.empty()) return slot = kUnusable;
    std::vector<glm::vec3> pos(n);
    for (std::size_t v = 0; v < n; ++v) pos[v] = {finite(m.positions[v].x), finite(m.positions[v].y), finite(m.positions[v].z)};
    std::string attributes = fmt::format(R"("POSITION":{})", positions(pos));
    if (m.normals.size() == n) {
      std::vector<glm::vec3> nor(n);
      for (std::size_t v = 0; v < n; ++v) nor[v] = unit(m.normals[v]);
      attributes += fmt::format(R"(,"NORMAL":{})", accessor(nor, kFloat, "VEC3", kArrayBuffer));
    }
    if (m.uvs.size() == n) {
      std::vector<glm::vec2> uv(n);
      for (std::size_t v = 0; v < n; ++v) uv[v] = {finite(m.uvs[v].x), finite(m.uvs[v].y)};
      attributes += fmt::format(R"(,"TEXCOORD_0":{})", accessor(uv, kFloat, "VEC2", kArrayBuffer));
    }
    Array primitives;
    for (const auto& [material_id, idx] : parts)
      primitives.add(fmt::format(R"({{"attributes":{{{}}},"indices":{},"material":{},"mode":{}}})", attributes,
                                 accessor(idx, kUnsignedInt, "SCALAR", kElementArrayBuffer), material_id, kTriangles));
    return slot = meshes_.add(fmt::format(R"({{"name":{},"primitives":[{}]}})", quote(m.name), primitives.text));
  }

  static glm::vec3 unit(const glm::vec3& v) {
    const float l = glm::length(v);
    return std::isfinite(l) && l > 1e-12f ? v / l : glm::vec3(0, 1, 0);
  }

  // A section's static geometry as one mesh with a primitive per batch; -1 if it has none.
  std::int64_t batches(const scene::Section& sec) {
    Array primitives;
    for (const scene::Batch& b : sec.batches) {
      const bool lines = b.primitive == scene::Batch::Primitive::lines;
      if (lines && o_.lines == Lines::none) continue;
      std::vector<glm::vec3> pos, nor;
      std::vector<std::uint32_t> col;
      const std::size_t n = b.positions.size() / (lines ? 2 : 3) * (lines ? 2 : 3);
      const bool colors = b.colors.size() == b.positions.size();
      if (lines && o_.lines == Lines::ribbons) {
        for (std::size_t v = 0; v + 1 < n; v += 2) ribbon(b.positions[v], b.positions[v + 1], colors ? b.colors[v] : 0xFFFFFFFFu, pos, nor, col);
      } else {
        for (std::size_t v = 0; v < n; ++v) {
          pos.push_back({finite(b.positions[v].x), finite(b.positions[v].y), finite(b.positions[v].z)});
          if (!lines) nor.push_back(v < b.normals.size() ? unit(b.normals[v]) : glm::vec3(0, 1, 0));
          col.push_back(colors ? b.colors[v] : 0xFFFFFFFFu);
        }
      }
      if (pos.empty()) continue;
      std::string attributes = fmt::format(R"("POSITION":{})", positions(pos));
      if (!nor.empty()) attributes += fmt::format(R"(,"NORMAL":{})", accessor(nor, kFloat, "VEC3", kArrayBuffer));
      attributes += fmt::format(R"(,"COLOR_0":{})", accessor(col, kUnsignedByte, "VEC4", kArrayBuffer, R"("normalized":true)"));
      const bool as_lines = lines && o_.lines == Lines::lines;
      const std::uint32_t material_id = lines && !as_lines ? ribbon_material() : b.material < s_.materials.size() ? b.material : 0;
      primitives.add(fmt::format(R"({{"attributes":{{{}}},"material":{},"mode":{}}})", attributes, material_id, as_lines ? kLines : kTriangles));
    }
    if (primitives.count == 0) return kUnusable;
    return meshes_.add(fmt::format(R"({{"name":"section {},{} geometry","primitives":[{}]}})", sec.row, sec.col, primitives.text));
  }

  // A line segment as a flat strip 5 cm wide, turned to face up (or sideways, for a vertical one).
  static void ribbon(glm::vec3 a, glm::vec3 b, std::uint32_t color, std::vector<glm::vec3>& pos, std::vector<glm::vec3>& nor,
                     std::vector<std::uint32_t>& col) {
    a = {finite(a.x), finite(a.y), finite(a.z)}, b = {finite(b.x), finite(b.y), finite(b.z)};
    const glm::vec3 d = b - a;
    if (glm::length(d) < 1e-6f) return;
    glm::vec3 side = glm::cross(d, glm::vec3(0, 1, 0));
    if (glm::length(side) < 1e-6f * glm::length(d)) side = glm::vec3(1, 0, 0);
    side = glm::normalize(side) * 0.025f;
    const glm::vec3 up = unit(glm::cross(side, d));
    for (const glm::vec3& p : {a - side, a + side, b + side, a - side, b + side, b - side}) pos.push_back(p), nor.push_back(up), col.push_back(color);
  }

  std::string extras_of(std::uint32_t object_id) const {
    if (object_id == scene::kNoObject || object_id < s_.object_base || object_id - s_.object_base >= s_.objects.size()) return {};
    const scene::Object& obj = s_.objects[object_id - s_.object_base];
    const std::string kind = obj.kind < s_.kinds.size() ? s_.kinds[obj.kind] : std::string();
    Json e{{"kind", kind}, {"index", obj.index}};
    if (o_.extras && t_.fields) {
      Json f = t_.fields(obj, kind);
      if (!f.is_null()) e["fields"] = std::move(f);
    }
    return e.dump(-1, ' ', false, Json::error_handler_t::replace);
  }

  std::string translation(const glm::dvec3& world) const {
    const glm::dvec3 t = world - offset_;
    return fmt::format("[{},{},{}]", num(t.x), num(t.y), num(t.z));
  }

  // The section's node with its geometry and its instances under it; nullopt if it is empty.
  std::optional<std::uint32_t> section(const scene::Section& sec) {
    std::string children;
    const auto child = [&](std::uint32_t node) { children += (children.empty() ? "" : ",") + std::to_string(node); };
    if (const std::int64_t g = batches(sec); g >= 0) child(nodes_.add(fmt::format(R"({{"name":"geometry","mesh":{}}})", g)));
    // Instances by mesh, in the order meshes first appear.
    std::vector<std::uint32_t> order(sec.instances.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return sec.instances[a].mesh < sec.instances[b].mesh; });
    for (std::size_t i = 0; i < order.size();) {
      std::size_t j = i;
      while (j < order.size() && sec.instances[order[j]].mesh == sec.instances[order[i]].mesh) ++j;
      const std::uint32_t mesh_id = sec.instances[order[i]].mesh;
      if (const std::int64_t m = mesh(mesh_id); m >= 0) child(instances(sec, order, i, j, static_cast<std::uint32_t>(m)));
      i = j;
    }
    if (children.empty()) return std::nullopt;
    return nodes_.add(fmt::format(R"({{"name":"section {},{}","translation":{},"children":[{}],"extras":{{"row":{},"col":{}}}}})", sec.row,
                                  sec.col, translation(sec.origin), children, sec.row, sec.col));
  }

  std::uint32_t instances(const scene::Section& sec, const std::vector<std::uint32_t>& order, std::size_t from, std::size_t to, std::uint32_t m) {
    const std::string& name = s_.meshes[sec.instances[order[from]].mesh - s_.mesh_base].name;
    const auto rotation_of = [](const scene::Instance& in) {
      glm::vec4 q(in.rotation.x, in.rotation.y, in.rotation.z, in.rotation.w);
      const float l = glm::length(q);
      return std::isfinite(l) && l > 1e-6f ? q / l : glm::vec4(0, 0, 0, 1);
    };
    const auto scale_of = [](const scene::Instance& in) { return glm::vec3(finite(in.scale.x, 1), finite(in.scale.y, 1), finite(in.scale.z, 1)); };
    const auto offset_of = [](const scene::Instance& in) { return glm::vec3(finite(in.offset.x), finite(in.offset.y), finite(in.offset.z)); };
    if (!o_.instancing || to - from == 1) {
      std::string kids;
      for (std::size_t k = from; k < to; ++k) {
        const scene::Instance& in = sec.instances[order[k]];
        const glm::vec4 q = rotation_of(in);
        const glm::vec3 t = offset_of(in), sc = scale_of(in);
        std::string node = fmt::format(R"({{"name":{},"mesh":{},"translation":[{},{},{}])", quote(name), m, numf(t.x), numf(t.y), numf(t.z));
        if (q != glm::vec4(0, 0, 0, 1)) node += fmt::format(R"(,"rotation":[{},{},{},{}])", numf(q.x), numf(q.y), numf(q.z), numf(q.w));
        if (sc != glm::vec3(1)) node += fmt::format(R"(,"scale":[{},{},{}])", numf(sc.x), numf(sc.y), numf(sc.z));
        if (const std::string e = extras_of(in.object); !e.empty()) node += R"(,"extras":)" + e;
        kids += (kids.empty() ? "" : ",") + std::to_string(nodes_.add(node + "}"));
      }
      return to - from == 1 ? nodes_.count - 1 : nodes_.add(fmt::format(R"({{"name":{},"children":[{}]}})", quote(name), kids));
    }
    std::vector<glm::vec3> t, sc;
    std::vector<glm::vec4> r;
    bool turned = false, scaled = false;
    Json objects = Json::array(), fields = Json::array();
    for (std::size_t k = from; k < to; ++k) {
      const scene::Instance& in = sec.instances[order[k]];
      t.push_back(offset_of(in)), r.push_back(rotation_of(in)), sc.push_back(scale_of(in));
      turned |= r.back() != glm::vec4(0, 0, 0, 1);
      scaled |= sc.back() != glm::vec3(1);
      if (in.object != scene::kNoObject && in.object >= s_.object_base && in.object - s_.object_base < s_.objects.size()) {
        const scene::Object& obj = s_.objects[in.object - s_.object_base];
        const std::string kind = obj.kind < s_.kinds.size() ? s_.kinds[obj.kind] : std::string();
        objects.push_back({{"kind", kind}, {"index", obj.index}});
        if (o_.extras && t_.fields) fields.push_back(t_.fields(obj, kind));
      } else {
        objects.push_back(nullptr);
        if (o_.extras && t_.fields) fields.push_back(nullptr);
      }
    }
    used_instancing_ = true;
    std::string attributes = fmt::format(R"("TRANSLATION":{})", accessor(t, kFloat, "VEC3", 0));
    if (turned) attributes += fmt::format(R"(,"ROTATION":{})", accessor(r, kFloat, "VEC4", 0));
    if (scaled) attributes += fmt::format(R"(,"SCALE":{})", accessor(sc, kFloat, "VEC3", 0));
    Json extras{{"instances", objects}};
    if (o_.extras && t_.fields) extras["fields"] = std::move(fields);
    return nodes_.add(fmt::format(R"({{"name":{},"mesh":{},"extensions":{{"EXT_mesh_gpu_instancing":{{"attributes":{{{}}}}}}},"extras":{}}})",
                                  quote(name), m, attributes, extras.dump(-1, ' ', false, Json::error_handler_t::replace)));
  }

  Result<std::vector<std::uint8_t>> finish(std::string roots) {
    if (!s_.nodes.empty()) roots = write_hierarchy(roots);
    Json asset{{"version", "2.0"}, {"generator", "sceneria"}};
    Json scene_extras{{"sceneria", {{"source", t_.source}, {"offset", {offset_.x, offset_.y, offset_.z}}}}};
    std::string j = fmt::format(R"({{"asset":{})", asset.dump());
    if (used_instancing_) j += R"(,"extensionsUsed":["EXT_mesh_gpu_instancing"])";
    j += fmt::format(R"(,"scene":0,"scenes":[{{"name":"scene"{},"extras":{}}}])", roots.empty() ? "" : ",\"nodes\":[" + roots + "]",
                     scene_extras.dump(-1, ' ', false, Json::error_handler_t::replace));
    const auto add = [&](std::string_view key, const Array& a) {
      if (a.count) j += fmt::format(R"(,"{}":[{}])", key, a.text);
    };
    add("nodes", nodes_);
    add("meshes", meshes_);
    add("materials", materials_);
    add("textures", textures_);
    add("images", images_);
    add("samplers", samplers_);
    add("accessors", accessors_);
    add("bufferViews", views_);
    while (bin_.size() % 4) bin_.push_back(0);
    if (!bin_.empty()) {
      if (binary_) {
        j += fmt::format(R"(,"buffers":[{{"byteLength":{}}}])", bin_.size());
      } else if (t_.sidecars) {
        const std::string name = file_stem(t_.name) + ".bin";
        j += fmt::format(R"(,"buffers":[{{"byteLength":{},"uri":"{}"}}])", bin_.size(), name);
        t_.sidecars->push_back({name, std::move(bin_)});
      } else {
        j += fmt::format(R"(,"buffers":[{{"byteLength":{},"uri":"data:application/octet-stream;base64,{}"}}])", bin_.size(), base64(bin_));
      }
    }
    j += "}";
    if (!binary_) return std::vector<std::uint8_t>(j.begin(), j.end());
    // GLB: header, JSON chunk padded with spaces, BIN chunk padded with zeros (both 4-aligned).
    while (j.size() % 4) j += ' ';
    const std::uint64_t total = 12 + 8 + j.size() + (bin_.empty() ? 0 : 8 + bin_.size());
    if (total > 0xFFFFFFFFull)
      return Error{Errc::bad_value, 0, fmt::format("the export is {:.1f} GB, over a GLB's 4 GB: export an area (area=x,z,radius)", static_cast<double>(total) / 1e9)};
    std::vector<std::uint8_t> out;
    out.reserve(total);
    const auto u32 = [&](std::uint64_t v) {
      for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
    };
    u32(0x46546C67), u32(2), u32(total);
    u32(j.size()), u32(0x4E4F534A);
    out.insert(out.end(), j.begin(), j.end());
    if (!bin_.empty()) {
      u32(bin_.size()), u32(0x004E4942);
      out.insert(out.end(), bin_.begin(), bin_.end());
    }
    return out;
  }

  // The hierarchy's nodes (their meshes placed by parents' transforms) appended to the roots.
  std::string write_hierarchy(std::string roots) {
    const std::size_t n = s_.nodes.size();
    std::vector<std::string> kids(n);
    std::vector<std::uint32_t> id(n);
    // Children first, so that each node's children list is known when it is written.
    for (std::size_t k = n; k-- > 0;) {
      const scene::Node& node = s_.nodes[k];
      std::string text = fmt::format(R"({{"name":{})", quote(node.name));
      if (node.mesh >= 0)
        if (const std::int64_t m = mesh(static_cast<std::uint32_t>(node.mesh)); m >= 0) text += fmt::format(R"(,"mesh":{})", m);
      const glm::vec3 t = node.translation, sc = node.scale;
      glm::vec4 q(node.rotation.x, node.rotation.y, node.rotation.z, node.rotation.w);
      const float l = glm::length(q);
      q = std::isfinite(l) && l > 1e-6f ? q / l : glm::vec4(0, 0, 0, 1);
      text += fmt::format(R"(,"translation":[{},{},{}],"rotation":[{},{},{},{}],"scale":[{},{},{}])", numf(t.x), numf(t.y), numf(t.z), numf(q.x),
                          numf(q.y), numf(q.z), numf(q.w), numf(finite(sc.x, 1)), numf(finite(sc.y, 1)), numf(finite(sc.z, 1)));
      if (!kids[k].empty()) text += ",\"children\":[" + kids[k] + "]";
      if (const std::string e = extras_of(node.object); !e.empty()) text += R"(,"extras":)" + e;
      id[k] = nodes_.add(text + "}");
      const std::int32_t p = node.parent;
      if (p >= 0 && static_cast<std::size_t>(p) < k) kids[static_cast<std::size_t>(p)] += (kids[static_cast<std::size_t>(p)].empty() ? "" : ",") + std::to_string(id[k]);
      else roots += (roots.empty() ? "" : ",") + std::to_string(id[k]);
    }
    return roots;
  }

  const scene::Scene& s_;
  const Options& o_;
  const Target& t_;
  const bool binary_;
  glm::dvec3 offset_{0.0};
  std::vector<std::uint8_t> bin_;
  Array views_, accessors_, meshes_, materials_, textures_, images_, samplers_, nodes_;
  std::vector<std::int64_t> mesh_of_, texture_of_;
  std::int64_t ribbon_material_ = -1;
  bool used_instancing_ = false;
};

}  // namespace

Result<std::vector<std::uint8_t>> gltf(const scene::Scene& scene, const Options& options, const Target& target, bool binary) {
  return Builder(scene, options, target, binary).build();
}

}  // namespace sceneria::exports
