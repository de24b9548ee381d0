// glTF 2.0 from the scene model, streamed: the sections come one at a time from the scene's
// pieces (SceneWalk) and their nodes are written out as they come, so a million placements are
// never held, as text or as records. What grows with the number of models, not of placements
// (meshes, materials, images, accessors, buffer views) is kept and written after the nodes.
// Coordinates need no conversion: the scene is Y up, right-handed, metres, counter-clockwise
// (docs/export.md). Each (section, mesh) pair is one node; with instancing its instances are
// EXT_mesh_gpu_instancing accessors, as the extension's specification advises for co-located
// cells, otherwise each is a child node.
//
// The buffer is the instance data (in the order the sections are written) and then what is
// kept (meshes, images, static geometry). A .gltf with its .bin beside it writes the instance
// data there as it goes; a .glb (whose binary chunk follows the JSON) and a .gltf with its buffer
// inside walk the sections a second time to make the instance data again, replaying the first
// walk's choices, rather than hold it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "export/export.hpp"
#include "export/walk.hpp"

namespace sceneria::exports {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;
constexpr int kFloat = 5126, kUnsignedByte = 5121, kUnsignedShort = 5123, kUnsignedInt = 5125;
constexpr int kTriangles = 4, kLines = 1;

std::string quote(std::string_view s) {
  return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}
std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

float finite(float v, float fallback = 0.0f) { return std::isfinite(v) ? v : fallback; }

// Numbers as JSON: the shortest text that reads back as the same float or double.
std::string num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "0"; }
std::string numf(float v) { return std::isfinite(v) ? fmt::format("{}", v) : "0"; }

double srgb_to_linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

glm::vec3 unit(const glm::vec3& v) {
  const float l = glm::length(v);
  return std::isfinite(l) && l > 1e-12f ? v / l : glm::vec3(0, 1, 0);
}

// Base64 of what is put, written on to another sink as it comes (a buffer inside a .gltf).
class Base64Sink final : public ByteSink {
 public:
  explicit Base64Sink(ByteSink& out) : out_(out) {}
  Error put(std::span<const std::uint8_t> bytes) override {
    std::string text;
    text.reserve((bytes.size() + 2) / 3 * 4 + 4);
    for (std::uint8_t b : bytes) {
      carry_[held_++] = b;
      if (held_ == 3) emit(text, 3);
    }
    written_ += bytes.size();
    return out_.put(text);
  }
  using ByteSink::put;
  Error close() override {
    std::string text;
    if (held_) emit(text, held_);
    return out_.put(text);
  }

 private:
  void emit(std::string& text, int n) {
    static const char* const k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::uint32_t v = (std::uint32_t{carry_[0]} << 16) | (std::uint32_t{n > 1 ? carry_[1] : std::uint8_t{0}} << 8) |
                            (n > 2 ? carry_[2] : std::uint8_t{0});
    text += k[v >> 18], text += k[(v >> 12) & 63];
    text += n > 1 ? k[(v >> 6) & 63] : '=';
    text += n > 2 ? k[v & 63] : '=';
    held_ = 0;
  }
  ByteSink& out_;
  std::uint8_t carry_[3] = {};
  int held_ = 0;
};

// Text handed to a sink in pieces of about 1 MB, counted.
class Text {
 public:
  explicit Text(ByteSink& sink) : sink_(sink) { buffer_.reserve(kFlushAt + 4096); }
  Text& operator+=(std::string_view s) {
    buffer_ += s;
    // A failed put is kept in error_: the final flush() returns it.
    if (buffer_.size() >= kFlushAt) (void)flush();
    return *this;
  }
  Error flush() {
    if (!buffer_.empty() && !error_) error_ = sink_.put(buffer_);
    written_ += buffer_.size();
    buffer_.clear();
    return error_;
  }
  std::uint64_t written() const { return written_ + buffer_.size(); }

 private:
  static constexpr std::size_t kFlushAt = 1 << 20;
  ByteSink& sink_;
  std::string buffer_;
  std::uint64_t written_ = 0;
  Error error_;
};

// A JSON array kept whole (its elements grow with the models, not with their placements).
struct Array {
  std::string text;
  std::uint32_t count = 0;
  std::uint32_t add(std::string_view element) {
    if (count) text += ',';
    text += element;
    return count++;
  }
};

// Where the buffer goes. glb: a binary chunk after the JSON; separate: a .bin beside it;
// embedded: a data: URI inside.
enum class Layout : std::uint8_t { glb, separate, embedded };

// A section's instances by mesh, in the order meshes first appear; [from, to) of `order` each.
struct Groups {
  std::vector<std::uint32_t> order;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  explicit Groups(const scene::Section& sec) : order(sec.instances.size()) {
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return sec.instances[a].mesh < sec.instances[b].mesh; });
    for (std::size_t i = 0; i < order.size();) {
      std::size_t j = i;
      while (j < order.size() && sec.instances[order[j]].mesh == sec.instances[order[i]].mesh) ++j;
      ranges.emplace_back(i, j);
      i = j;
    }
  }
};

glm::vec4 rotation_of(const scene::Instance& in) {
  glm::vec4 q(in.rotation.x, in.rotation.y, in.rotation.z, in.rotation.w);
  const float l = glm::length(q);
  return std::isfinite(l) && l > 1e-6f ? q / l : glm::vec4(0, 0, 0, 1);
}
glm::vec3 scale_of(const scene::Instance& in) { return {finite(in.scale.x, 1), finite(in.scale.y, 1), finite(in.scale.z, 1)}; }
glm::vec3 offset_of(const scene::Instance& in) { return {finite(in.offset.x), finite(in.offset.y), finite(in.offset.z)}; }

// One instanced node's accessor data: translations, and rotations and scales where any differ.
struct InstanceData {
  std::vector<glm::vec3> t, s;
  std::vector<glm::vec4> r;
  bool turned = false, scaled = false;
  InstanceData(const scene::Section& sec, const Groups& g, std::size_t group) {
    const auto [from, to] = g.ranges[group];
    for (std::size_t k = from; k < to; ++k) {
      const scene::Instance& in = sec.instances[g.order[k]];
      t.push_back(offset_of(in)), r.push_back(rotation_of(in)), s.push_back(scale_of(in));
      turned |= r.back() != glm::vec4(0, 0, 0, 1);
      scaled |= s.back() != glm::vec3(1);
    }
  }
  // In the order the accessors were made.
  Error put(ByteSink& out) const {
    const auto bytes = [](const auto& v) { return std::span(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(v[0])); };
    Error e = out.put(bytes(t));
    if (!e && turned) e = out.put(bytes(r));
    if (!e && scaled) e = out.put(bytes(s));
    return e;
  }
  std::uint64_t size() const { return t.size() * (12 + (turned ? 16 : 0) + (scaled ? 12 : 0)); }
};

class GltfWriter {
 public:
  // `streamed`: where the instance data goes as it is made (nullptr: only counted, made again by
  // replay()).
  GltfWriter(SceneWalk& walk, const Options& options, const Target& target, Layout layout, ByteSink& json, ByteSink* streamed)
      : w_(walk), o_(options), t_(target), layout_(layout), json_(json), streamed_(streamed) {}

  // The JSON up to the buffer's end, "buffers":[{"byteLength":N — the caller adds the uri (or
  // not) and then tail().
  Error head(double progress_share) {
    json_ += R"({"asset":{"version":"2.0","generator":"sceneria"})";
    std::string roots;
    if (!w_.world().nodes.empty()) {
      // A model: its hierarchy places its meshes (the instances place them again for the renderer).
      roots = hierarchy();
    } else {
      const double total = std::max<double>(1.0, static_cast<double>(w_.total()));
      for (;;) {
        auto sec = w_.next();
        if (!sec) return sec.error();
        if (!*sec) break;
        if (const auto n = section(**sec)) roots += (roots.empty() ? "" : ",") + std::to_string(*n);
        if (Error e = streamed_error_) return e;
        if (t_.progress) t_.progress(progress_share * std::min(1.0, static_cast<double>(w_.walked()) / total));
      }
    }
    if (nodes_ > 0) json_ += "]";
    const glm::dvec3 offset = w_.offset();
    const Json scene_extras{{"sceneria", {{"source", t_.source}, {"offset", {offset.x, offset.y, offset.z}}}}};
    json_ += fmt::format(R"(,"scene":0,"scenes":[{{"name":"scene"{},"extras":{}}}])", roots.empty() ? "" : ",\"nodes\":[" + roots + "]",
                         dump(scene_extras));
    const auto add = [&](std::string_view key, const Array& a) {
      if (a.count) json_ += fmt::format(R"(,"{}":[{}])", key, a.text);
    };
    if (Error e = skins_and_animations()) return e;
    add("meshes", meshes_);
    add("skins", skins_);
    add("animations", animations_);
    add("materials", materials_);
    add("textures", textures_);
    add("images", images_);
    if (t_.written) t_.written->images = images_.count;
    add("samplers", samplers_);
    add("accessors", accessors_);
    while (held_.size() % 4) held_.push_back(0);
    Array views;
    for (const View& v : views_) {
      const std::uint64_t at = v.held ? streamed_size_ + v.offset : v.offset;
      views.add(v.target ? fmt::format(R"({{"buffer":0,"byteOffset":{},"byteLength":{},"target":{}}})", at, v.length, v.target)
                         : fmt::format(R"({{"buffer":0,"byteOffset":{},"byteLength":{}}})", at, v.length));
    }
    add("bufferViews", views);
    if (buffer_size() > 0) json_ += fmt::format(R"(,"buffers":[{{"byteLength":{})", buffer_size());
    return json_.flush();
  }
  // The end of the JSON after the buffer's uri.
  Error tail() {
    if (buffer_size() > 0) json_ += "}]";
    if (used_instancing_) json_ += R"(,"extensionsUsed":["EXT_mesh_gpu_instancing"])";
    if (t_.written) {
      t_.written->instanced = used_instancing_;
      // Blender 3.4 (Debian 12's) has no EXT_mesh_gpu_instancing: it imports one copy of each mesh.
      if (used_instancing_)
        t_.written->advice = "tools without EXT_mesh_gpu_instancing, such as Blender 3.4, import one copy per mesh: instancing=false";
    }
    json_ += "}";
    return json_.flush();
  }

  std::uint64_t buffer_size() const { return streamed_size_ + held_.size(); }
  std::uint64_t streamed_size() const { return streamed_size_; }
  const std::vector<std::uint8_t>& held() const { return held_; }
  std::uint64_t json_size() const { return json_.written(); }

  // The instance data again, from a second walk over the same pieces (without the area: the first
  // walk's choices are replayed), in the order head() placed it.
  Error replay(SceneWalk& again, ByteSink& out) {
    std::size_t next = 0;
    std::uint64_t made = 0;
    while (next < plan_.size()) {
      auto sec = again.next();
      if (!sec) return sec.error();
      if (!*sec) break;
      if (again.index() != plan_[next].section) continue;
      const Groups groups(**sec);
      for (; next < plan_.size() && plan_[next].section == again.index(); ++next) {
        if (plan_[next].group >= groups.ranges.size()) break;
        const InstanceData data(**sec, groups, plan_[next].group);
        if (data.size() != plan_[next].bytes) break;
        if (Error e = data.put(out)) return e;
        made += data.size();
      }
    }
    if (made != streamed_size_) return Error{Errc::bad_value, 0, "the scene changed between the export's two passes over it"};
    return {};
  }

 private:
  static constexpr std::int64_t kUnwritten = -1, kUnusable = -2;
  struct View {
    bool held;  // in the kept part of the buffer (else in the instance data)
    std::uint64_t offset, length;
    int target;
  };
  // An instanced node's data, by where its section came in the walk and its group there.
  struct Planned {
    std::size_t section, group;
    std::uint64_t bytes;
  };

  // ---- the buffer ----
  std::uint32_t held_view(const void* data, std::size_t size, int target) {
    while (held_.size() % 4) held_.push_back(0);
    const std::size_t at = held_.size();
    held_.resize(at + size);
    if (size) std::memcpy(held_.data() + at, data, size);
    views_.push_back({true, at, size, target});
    return static_cast<std::uint32_t>(views_.size() - 1);
  }
  template <class T>
  std::uint32_t accessor(const std::vector<T>& values, int component, std::string_view type, int target, std::string_view extra = {}) {
    return accessor_of(held_view(values.data(), values.size() * sizeof(T), target), values.size() * sizeof(T), component, type, extra);
  }
  std::uint32_t accessor_of(std::uint32_t view, std::size_t bytes, int component, std::string_view type, std::string_view extra = {}) {
    return accessors_.add(fmt::format(R"({{"bufferView":{},"componentType":{},"count":{},"type":"{}"{}{}}})", view, component,
                                      bytes / component_size(component) / components(type), type, extra.empty() ? "" : ",", extra));
  }
  // Instance data: placed after what came before it, written on or only counted.
  template <class T>
  std::uint32_t streamed_accessor(const std::vector<T>& values, std::string_view type) {
    const std::size_t size = values.size() * sizeof(T);
    views_.push_back({false, streamed_size_, size, 0});
    streamed_size_ += size;  // floats: always 4-aligned
    if (streamed_ && !streamed_error_)
      streamed_error_ = streamed_->put(std::span(reinterpret_cast<const std::uint8_t*>(values.data()), size));
    return accessor_of(static_cast<std::uint32_t>(views_.size() - 1), size, kFloat, type);
  }
  static std::size_t component_size(int c) { return c == kUnsignedByte ? 1 : c == kUnsignedShort ? 2 : 4; }
  static std::size_t components(std::string_view type) {
    return type == "SCALAR" ? 1 : type == "VEC2" ? 2 : type == "VEC3" ? 3 : type == "MAT4" ? 16 : 4;
  }
  static std::string bounds(const std::vector<glm::vec3>& p) {
    glm::vec3 lo(INFINITY), hi(-INFINITY);
    for (const glm::vec3& v : p) lo = glm::min(lo, v), hi = glm::max(hi, v);
    return fmt::format(R"("min":[{},{},{}],"max":[{},{},{}])", numf(lo.x), numf(lo.y), numf(lo.z), numf(hi.x), numf(hi.y), numf(hi.z));
  }
  std::uint32_t positions(const std::vector<glm::vec3>& p) { return accessor(p, kFloat, "VEC3", kArrayBuffer, bounds(p)); }

  // ---- looks: written the first time something uses them ----
  std::int64_t texture(std::uint32_t id) {
    const scene::Scene& s = w_.world();
    if (!o_.textures || id >= s.textures.size()) return kUnusable;
    if (texture_of_.size() < s.textures.size()) texture_of_.resize(s.textures.size(), kUnwritten);
    if (texture_of_[id] != kUnwritten) return texture_of_[id];
    const scene::Texture& t = s.textures[id];
    const std::vector<std::uint8_t> file = png(texture_rgba(t), t.width, t.height);
    if (file.empty()) return texture_of_[id] = kUnusable;
    std::string image;
    if (t_.sidecars && layout_ == Layout::separate) {
      const std::string name = fmt::format("{}_{}.png", file_stem(t_.name), images_.count);
      t_.sidecars->push_back({name, file});
      image = fmt::format(R"({{"name":{},"uri":"{}"}})", quote(t.name), name);
    } else {
      image = fmt::format(R"({{"name":{},"bufferView":{},"mimeType":"image/png"}})", quote(t.name), held_view(file.data(), file.size(), 0));
    }
    const std::uint32_t i = images_.add(image);
    if (samplers_.count == 0) samplers_.add(R"({"magFilter":9729,"minFilter":9987,"wrapS":10497,"wrapT":10497})");
    return texture_of_[id] = textures_.add(fmt::format(R"({{"sampler":0,"source":{}}})", i));
  }

  // The glTF material for a scene material (its id clamped to the default).
  std::uint32_t material(std::uint32_t id) {
    const scene::Scene& s = w_.world();
    if (s.materials.empty()) return ribbon_material();  // a scene without even its default
    if (id >= s.materials.size()) id = 0;
    if (material_of_.size() < s.materials.size()) material_of_.resize(s.materials.size(), kUnwritten);
    if (material_of_[id] != kUnwritten) return static_cast<std::uint32_t>(material_of_[id]);
    const scene::Material& m = s.materials[id];
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
    return static_cast<std::uint32_t>(material_of_[id] = materials_.add(text + "}"));
  }
  std::uint32_t ribbon_material() {
    if (ribbon_material_ < 0)
      ribbon_material_ = materials_.add(R"({"name":"line ribbons","pbrMetallicRoughness":{"metallicFactor":0,"roughnessFactor":1},"doubleSided":true})");
    return static_cast<std::uint32_t>(ribbon_material_);
  }

  // ---- meshes ----
  // The scene mesh as a glTF mesh (once), or -1 if nothing of it can be drawn.
  std::int64_t mesh(std::uint32_t id) {
    const scene::Scene& s = w_.world();
    if (id < s.mesh_base || id - s.mesh_base >= s.meshes.size()) return kUnusable;
    if (mesh_of_.size() < s.meshes.size()) mesh_of_.resize(s.meshes.size(), kUnwritten);
    std::int64_t& slot = mesh_of_[id - s.mesh_base];
    if (slot != kUnwritten) return slot;
    const scene::Mesh& m = s.meshes[id - s.mesh_base];
    const std::size_t n = m.positions.size();
    // Parts whose indices all name a vertex, whole triangles only.
    std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>> parts;
    for (const scene::Part& p : m.parts) {
      if (p.first > m.indices.size() || p.count > m.indices.size() - p.first) continue;
      std::vector<std::uint32_t> idx(m.indices.begin() + p.first, m.indices.begin() + p.first + p.count / 3 * 3);
      if (idx.empty() || std::any_of(idx.begin(), idx.end(), [&](std::uint32_t i) { return i >= n; })) continue;
      parts.emplace_back(p.material, std::move(idx));
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
    if (m.joints.size() == n && m.weights.size() == n && skinned_mesh(id)) {
      std::vector<glm::vec4> weights(n);
      for (std::size_t v = 0; v < n; ++v) weights[v] = normalized_weights(m.weights[v]);
      const std::uint32_t joints = accessor(m.joints, kUnsignedShort, "VEC4", kArrayBuffer);
      attributes += fmt::format(R"(,"JOINTS_0":{},"WEIGHTS_0":{})", joints, accessor(weights, kFloat, "VEC4", kArrayBuffer));
    }
    Array primitives;
    for (const auto& [material_id, idx] : parts) {
      // In this order: arguments of one call are evaluated in an order compilers choose, and the
      // buffer's layout must not depend on the compiler.
      const std::uint32_t indices = accessor(idx, kUnsignedInt, "SCALAR", kElementArrayBuffer);
      const std::uint32_t look = material(material_id);
      primitives.add(fmt::format(R"({{"attributes":{{{}}},"indices":{},"material":{},"mode":{}}})", attributes, indices, look, kTriangles));
    }
    return slot = meshes_.add(fmt::format(R"({{"name":{},"primitives":[{}]}})", quote(m.name), primitives.text));
  }

  // A section's static geometry as one mesh with a primitive per batch; -1 if it has none.
  std::int64_t batches(const scene::Section& sec) {
    Array primitives;
    for (const scene::Batch& b : sec.batches) {
      const bool lines = b.primitive == scene::Batch::Primitive::lines;
      if ((lines && o_.lines == Lines::none) || b.overlay) continue;
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
      const std::uint32_t material_id = lines && !as_lines ? ribbon_material() : material(b.material);
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

  // ---- nodes: written out as they are made ----
  std::uint32_t node(std::string_view text) {
    json_ += nodes_ == 0 ? R"(,"nodes":[)" : ",";
    json_ += text;
    return nodes_++;
  }
  Json object_json(std::uint32_t id) {
    const SceneWalk::ObjectRef ref = w_.object(id);
    if (!ref.object) return nullptr;
    return Json{{"kind", *ref.kind}, {"index", ref.object->index}};
  }
  Json fields_json(std::uint32_t id) {
    const SceneWalk::ObjectRef ref = w_.object(id);
    if (!ref.object || !o_.extras) return nullptr;
    return t_.fields ? t_.fields(*ref.object, *ref.kind) : w_.fields(*ref.object, *ref.kind);
  }
  std::string extras_of(std::uint32_t id) {
    Json e = object_json(id);
    if (e.is_null()) return {};
    if (Json f = fields_json(id); !f.is_null()) e["fields"] = std::move(f);
    return dump(e);
  }
  std::string translation(const glm::dvec3& world) const {
    const glm::dvec3 t = world - w_.offset();
    return fmt::format("[{},{},{}]", num(t.x), num(t.y), num(t.z));
  }

  // The section's node with its geometry and its instances under it; nullopt if it is empty.
  std::optional<std::uint32_t> section(const scene::Section& sec) {
    std::string children;
    const auto child = [&](std::uint32_t n) { children += (children.empty() ? "" : ",") + std::to_string(n); };
    if (const std::int64_t g = batches(sec); g >= 0) child(node(fmt::format(R"({{"name":"geometry","mesh":{}}})", g)));
    const Groups groups(sec);
    for (std::size_t k = 0; k < groups.ranges.size(); ++k) {
      const std::uint32_t mesh_id = sec.instances[groups.order[groups.ranges[k].first]].mesh;
      if (const std::int64_t m = mesh(mesh_id); m >= 0) child(instances(sec, groups, k, static_cast<std::uint32_t>(m)));
    }
    if (children.empty()) return std::nullopt;
    return node(fmt::format(R"({{"name":"section {},{}","translation":{},"children":[{}],"extras":{{"row":{},"col":{}}}}})", sec.row, sec.col,
                            translation(sec.origin), children, sec.row, sec.col));
  }

  std::uint32_t instances(const scene::Section& sec, const Groups& groups, std::size_t group, std::uint32_t m) {
    const auto [from, to] = groups.ranges[group];
    const std::string name = quote(w_.world().meshes[sec.instances[groups.order[from]].mesh - w_.world().mesh_base].name);
    if (!o_.instancing || to - from == 1) {
      std::string kids;
      std::uint32_t last = 0;
      for (std::size_t k = from; k < to; ++k) {
        const scene::Instance& in = sec.instances[groups.order[k]];
        const glm::vec4 q = rotation_of(in);
        const glm::vec3 t = offset_of(in), sc = scale_of(in);
        std::string text = fmt::format(R"({{"name":{},"mesh":{},"translation":[{},{},{}])", name, m, numf(t.x), numf(t.y), numf(t.z));
        if (q != glm::vec4(0, 0, 0, 1)) text += fmt::format(R"(,"rotation":[{},{},{},{}])", numf(q.x), numf(q.y), numf(q.z), numf(q.w));
        if (sc != glm::vec3(1)) text += fmt::format(R"(,"scale":[{},{},{}])", numf(sc.x), numf(sc.y), numf(sc.z));
        if (const std::string e = extras_of(in.object); !e.empty()) text += R"(,"extras":)" + e;
        last = node(text + "}");
        kids += (kids.empty() ? "" : ",") + std::to_string(last);
      }
      return to - from == 1 ? last : node(fmt::format(R"({{"name":{},"children":[{}]}})", name, kids));
    }
    const InstanceData data(sec, groups, group);
    plan_.push_back({w_.index(), group, data.size()});
    used_instancing_ = true;
    std::string attributes = fmt::format(R"("TRANSLATION":{})", streamed_accessor(data.t, "VEC3"));
    if (data.turned) attributes += fmt::format(R"(,"ROTATION":{})", streamed_accessor(data.r, "VEC4"));
    if (data.scaled) attributes += fmt::format(R"(,"SCALE":{})", streamed_accessor(data.s, "VEC3"));
    Json objects = Json::array(), fields = Json::array();
    const bool with_fields = o_.extras;
    for (std::size_t k = from; k < to; ++k) {
      const std::uint32_t id = sec.instances[groups.order[k]].object;
      objects.push_back(object_json(id));
      if (with_fields) fields.push_back(fields_json(id));
    }
    Json extras{{"instances", std::move(objects)}};
    if (with_fields) extras["fields"] = std::move(fields);
    return node(fmt::format(R"({{"name":{},"mesh":{},"extensions":{{"EXT_mesh_gpu_instancing":{{"attributes":{{{}}}}}}},"extras":{}}})", name,
                            m, attributes, dump(extras)));
  }

  // The model's nodes (their meshes placed by parents' transforms); the roots' indices.
  std::string hierarchy() {
    const std::vector<scene::Node>& all = w_.world().nodes;
    const std::size_t n = all.size();
    std::vector<std::string> kids(n);
    std::string roots;
    node_of_.assign(n, 0);
    // Children first, so that each node's children list is known when it is written.
    for (std::size_t k = n; k-- > 0;) {
      const scene::Node& nd = all[k];
      std::string text = fmt::format(R"({{"name":{})", quote(nd.name));
      std::int64_t m = kUnusable;
      if (nd.mesh >= 0) m = mesh(static_cast<std::uint32_t>(nd.mesh));
      if (m >= 0) text += fmt::format(R"(,"mesh":{})", m);
      // A skinned mesh is placed by its joints alone: glTF ignores (and the validator flags) a
      // transform on its node.
      if (m >= 0 && skin_of(nd) >= 0) {
        text += fmt::format(R"(,"skin":{})", skin_of(nd));
        if (!kids[k].empty()) text += ",\"children\":[" + kids[k] + "]";
        if (const std::string e = extras_of(nd.object); !e.empty()) text += R"(,"extras":)" + e;
        const std::uint32_t id = node(text + "}");
        node_of_[k] = id;
        roots += (roots.empty() ? "" : ",") + std::to_string(id);
        continue;
      }
      const glm::vec3 t = nd.translation, sc = nd.scale;
      glm::vec4 q(nd.rotation.x, nd.rotation.y, nd.rotation.z, nd.rotation.w);
      const float l = glm::length(q);
      q = std::isfinite(l) && l > 1e-6f ? q / l : glm::vec4(0, 0, 0, 1);
      text += fmt::format(R"(,"translation":[{},{},{}],"rotation":[{},{},{},{}],"scale":[{},{},{}])", numf(t.x), numf(t.y), numf(t.z), numf(q.x),
                          numf(q.y), numf(q.z), numf(q.w), numf(finite(sc.x, 1)), numf(finite(sc.y, 1)), numf(finite(sc.z, 1)));
      if (!kids[k].empty()) text += ",\"children\":[" + kids[k] + "]";
      if (const std::string e = extras_of(nd.object); !e.empty()) text += R"(,"extras":)" + e;
      const std::uint32_t id = node(text + "}");
      node_of_[k] = id;
      const std::int32_t p = nd.parent;
      std::string& list = p >= 0 && static_cast<std::size_t>(p) < k ? kids[static_cast<std::size_t>(p)] : roots;
      list += (list.empty() ? "" : ",") + std::to_string(id);
    }
    if (t_.progress) t_.progress(1.0);
    return roots;
  }

  // ---- skins and animations (models with nodes) ----
  // Whether a skin can be written: joints that are nodes, each with its inverse bind matrix.
  bool usable(const scene::Skin& sk) const {
    const std::size_t nodes = w_.world().nodes.size();
    return !sk.joints.empty() && sk.inverse_bind.size() == sk.joints.size() &&
           std::all_of(sk.joints.begin(), sk.joints.end(), [&](std::uint32_t j) { return j < nodes; });
  }
  // The glTF skin a node deforms its mesh by (usable skins are numbered in order), or -1.
  std::int32_t skin_of(const scene::Node& nd) const {
    const auto& skins = w_.world().skins;
    if (nd.skin < 0 || static_cast<std::size_t>(nd.skin) >= skins.size() || !usable(skins[static_cast<std::size_t>(nd.skin)])) return -1;
    return static_cast<std::int32_t>(std::count_if(skins.begin(), skins.begin() + nd.skin, [&](const scene::Skin& sk) { return usable(sk); }));
  }
  // Whether some node deforms mesh `id` by a skin (its joints and weights are then written).
  bool skinned_mesh(std::uint32_t id) const {
    for (const scene::Node& nd : w_.world().nodes)
      if (nd.mesh >= 0 && static_cast<std::uint32_t>(nd.mesh) == id && skin_of(nd) >= 0) return true;
    return false;
  }
  // Weights summing to 1 (the validator's rule): the joint 0 alone takes a vertex without any.
  static glm::vec4 normalized_weights(const glm::vec4& w) {
    glm::vec4 c(finite(w.x), finite(w.y), finite(w.z), finite(w.w));
    c = glm::max(c, glm::vec4(0));
    const float sum = c.x + c.y + c.z + c.w;
    return sum > 1e-6f ? c / sum : glm::vec4(1, 0, 0, 0);
  }
  Error skins_and_animations() {
    const scene::Scene& s = w_.world();
    if (s.nodes.empty()) return {};
    for (const scene::Skin& sk : s.skins) {
      if (!usable(sk)) continue;
      std::string joints;
      for (std::uint32_t j : sk.joints) joints += (joints.empty() ? "" : ",") + std::to_string(node_of_[j]);
      std::vector<glm::mat4> inverse(sk.inverse_bind.size());
      for (std::size_t k = 0; k < inverse.size(); ++k)
        for (int c = 0; c < 4; ++c)
          for (int r = 0; r < 4; ++r) inverse[k][c][r] = finite(sk.inverse_bind[k][c][r], c == r ? 1.0f : 0.0f);
      const std::uint32_t acc = accessor(inverse, kFloat, "MAT4", 0);
      skins_.add(fmt::format(R"({{"name":{},"inverseBindMatrices":{},"joints":[{}]}})", quote(sk.name), acc, joints));
    }
    for (const scene::Animation& a : s.animations) {
      Array channels, samplers;
      for (const scene::Animation::Channel& c : a.channels) {
        if (c.node >= node_of_.size() || c.times.empty() || c.values.size() != c.times.size()) continue;
        if (!std::is_sorted(c.times.begin(), c.times.end(), std::less_equal<float>()) || !(c.times.front() >= 0)) continue;
        const bool rotation = c.path == scene::Animation::Path::rotation;
        std::vector<float> times(c.times);
        const std::string range = fmt::format(R"("min":[{}],"max":[{}])", numf(times.front()), numf(times.back()));
        const std::uint32_t input = accessor(times, kFloat, "SCALAR", 0, range);
        std::uint32_t output = 0;
        if (rotation) {
          std::vector<glm::vec4> q(c.values.size());
          for (std::size_t k = 0; k < q.size(); ++k) {
            const glm::vec4 v(finite(c.values[k].x), finite(c.values[k].y), finite(c.values[k].z), finite(c.values[k].w));
            const float l = glm::length(v);
            q[k] = l > 1e-6f ? v / l : glm::vec4(0, 0, 0, 1);
          }
          output = accessor(q, kFloat, "VEC4", 0);
        } else {
          std::vector<glm::vec3> t(c.values.size());
          for (std::size_t k = 0; k < t.size(); ++k) t[k] = {finite(c.values[k].x), finite(c.values[k].y), finite(c.values[k].z)};
          output = accessor(t, kFloat, "VEC3", 0);
        }
        const std::uint32_t sampler =
            samplers.add(fmt::format(R"({{"input":{},"output":{},"interpolation":"{}"}})", input, output, c.step ? "STEP" : "LINEAR"));
        channels.add(fmt::format(R"({{"sampler":{},"target":{{"node":{},"path":"{}"}}}})", sampler, node_of_[c.node],
                                 rotation ? "rotation" : "translation"));
      }
      if (channels.count)
        animations_.add(fmt::format(R"({{"name":{},"channels":[{}],"samplers":[{}]}})", quote(a.name), channels.text, samplers.text));
    }
    return {};
  }

  SceneWalk& w_;
  const Options& o_;
  const Target& t_;
  const Layout layout_;
  Text json_;
  ByteSink* streamed_;
  Error streamed_error_;
  std::uint64_t streamed_size_ = 0;
  std::vector<std::uint8_t> held_;
  std::vector<View> views_;
  std::vector<Planned> plan_;
  Array accessors_, meshes_, materials_, textures_, images_, samplers_, skins_, animations_;
  std::uint32_t nodes_ = 0;
  std::vector<std::uint32_t> node_of_;  // a model's scene node -> its glTF node
  std::vector<std::int64_t> mesh_of_, texture_of_, material_of_;
  std::int64_t ribbon_material_ = -1;
  bool used_instancing_ = false;
};

std::span<const std::uint8_t> bytes_of(const std::vector<std::uint8_t>& v) { return v; }

}  // namespace

Error gltf(const Source& source, const Options& options, const Target& target, bool binary, ByteSink& sink) {
  const Layout layout = binary ? Layout::glb : target.sidecars || target.sidecar_sink ? Layout::separate : Layout::embedded;
  const bool patchable = sink.can_patch();
  // A .glb's header gives the JSON's length: written last where the output can be rewritten,
  // else measured by a first pass that writes nothing.
  std::uint64_t json_size = 0, bin_size = 0;
  if (binary && !patchable) {
    auto pieces = source.pieces();
    SceneWalk walk(*pieces, options, source.assets);
    if (Error e = walk.start()) return e;
    CountingByteSink count;
    Target quiet = target;
    quiet.progress = {};
    GltfWriter measure(walk, options, quiet, layout, count, nullptr);
    if (Error e = measure.head(0.0)) return e;
    if (Error e = measure.tail()) return e;
    json_size = measure.json_size();
    bin_size = measure.buffer_size();
  }
  const auto u32 = [](std::uint8_t* at, std::uint64_t v) {
    for (int b = 0; b < 4; ++b) at[b] = static_cast<std::uint8_t>(v >> (8 * b));
  };
  // The GLB header and the JSON chunk's: magic, version, total; JSON length, "JSON".
  const auto glb_header = [&](std::uint64_t json, std::uint64_t bin) {
    std::array<std::uint8_t, 20> h{};
    const std::uint64_t padded = (json + 3) / 4 * 4;
    u32(h.data(), 0x46546C67), u32(h.data() + 4, 2), u32(h.data() + 8, 12 + 8 + padded + (bin ? 8 + bin : 0));
    u32(h.data() + 12, padded), u32(h.data() + 16, 0x4E4F534A);
    return h;
  };

  auto pieces = source.pieces();
  SceneWalk walk(*pieces, options, source.assets);
  if (Error e = walk.start()) return e;
  // A .bin beside a .gltf takes the instance data as it is made.
  std::unique_ptr<ByteSink> bin_file;
  std::vector<std::uint8_t> bin_bytes;
  VectorByteSink bin_vector(bin_bytes);
  ByteSink* streamed = nullptr;
  const std::string bin_name = file_stem(target.name) + ".bin";
  if (layout == Layout::separate) {
    if (target.sidecar_sink) {
      auto made = target.sidecar_sink(bin_name);
      if (!made) return made.error();
      bin_file = std::move(made).value();
      streamed = bin_file.get();
    } else {
      streamed = &bin_vector;
    }
  }
  if (binary)
    if (Error e = sink.put(std::span<const std::uint8_t>(glb_header(json_size, bin_size))); e) return e;
  GltfWriter writer(walk, options, target, layout, sink, streamed);
  const bool replays = layout != Layout::separate;
  if (Error e = writer.head(replays && options.instancing ? 0.8 : 1.0)) return e;
  // The instance data made again, where it follows the JSON.
  const auto replay = [&](ByteSink& out) -> Error {
    if (writer.streamed_size() == 0) return {};
    auto again = source.pieces();
    SceneWalk second(*again, options, nullptr, true);
    if (Error e = second.start()) return e;
    return writer.replay(second, out);
  };
  if (layout == Layout::separate) {
    if (writer.buffer_size() > 0) {
      if (Error e = sink.put(fmt::format(R"(,"uri":"{}")", bin_name))) return e;
      if (Error e = streamed->put(bytes_of(writer.held()))) return e;
      if (bin_file) {
        if (Error e = bin_file->close()) return e;
      } else {
        target.sidecars->push_back({bin_name, std::move(bin_bytes)});
      }
    }
    if (Error e = writer.tail()) return e;
  } else if (layout == Layout::embedded) {
    if (writer.buffer_size() > 0) {
      if (Error e = sink.put(std::string_view(R"(,"uri":"data:application/octet-stream;base64,)"))) return e;
      Base64Sink base64(sink);
      if (Error e = replay(base64)) return e;
      if (Error e = base64.put(bytes_of(writer.held()))) return e;
      if (Error e = base64.close()) return e;
      if (Error e = sink.put(std::string_view("\""))) return e;
    }
    if (Error e = writer.tail()) return e;
  } else {
    if (Error e = writer.tail()) return e;
    const std::uint64_t json = writer.json_size(), bin = writer.buffer_size();
    if (json % 4)
      if (Error e = sink.put(std::string(4 - json % 4, ' '))) return e;
    const std::uint64_t total = 12 + 8 + (json + 3) / 4 * 4 + (bin ? 8 + bin : 0);
    if (total > 0xFFFFFFFFull)
      return Error{Errc::bad_value, 0,
                   fmt::format("the export is {:.1f} GB, over a GLB's 4 GB: export an area (area=x,z,radius)", static_cast<double>(total) / 1e9)};
    if (bin) {
      std::array<std::uint8_t, 8> h{};
      u32(h.data(), bin), u32(h.data() + 4, 0x004E4942);
      if (Error e = sink.put(std::span<const std::uint8_t>(h))) return e;
      if (Error e = replay(sink)) return e;
      if (Error e = sink.put(bytes_of(writer.held()))) return e;
    }
    if (patchable) {
      if (Error e = sink.patch(0, glb_header(json, bin))) return e;
    } else if (json != json_size || bin != bin_size) {
      return Error{Errc::bad_value, 0, "the scene changed between the export's two passes over it"};
    }
  }
  if (target.progress) target.progress(1.0);
  return {};
}

Result<std::vector<std::uint8_t>> gltf(const scene::Scene& scene, const Options& options, const Target& target, bool binary) {
  std::vector<std::uint8_t> out;
  VectorByteSink sink(out);
  const Source source{[&scene] { return std::make_unique<scene::OnePiece>(scene); }, nullptr};
  if (Error e = gltf(source, options, target, binary, sink)) return e;
  return out;
}

}  // namespace sceneria::exports
