#include "scene/serialize.hpp"

#include <cstring>
#include <type_traits>

#include "core/byte_reader.hpp"

namespace sceneria::scene {

namespace {

constexpr char kMagic[4] = {'S', 'C', 'N', '4'};

struct Out {
  std::vector<std::uint8_t>& b;
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
    b.insert(b.end(), p, p + sizeof(T));
  }
  template <class T>
  void array(const std::vector<T>& v) {
    pod(static_cast<std::uint32_t>(v.size()));
    const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
    b.insert(b.end(), p, p + v.size() * sizeof(T));
  }
  void string(const std::string& s) {
    pod(static_cast<std::uint32_t>(s.size()));
    b.insert(b.end(), s.begin(), s.end());
  }
};

struct In {
  ByteReader& r;
  template <class T>
  void pod(T& v) {
    auto bytes = r.take(sizeof(T), "field");
    if (r.ok()) std::memcpy(&v, bytes.data(), sizeof(T));
  }
  template <class T>
  void array(std::vector<T>& v) {
    std::uint32_t n = r.u32();
    if (!r.check_count(n, sizeof(T), "items")) return;
    auto bytes = r.take(std::size_t{n} * sizeof(T), "array");
    if (!r.ok()) return;
    v.resize(n);
    if (n) std::memcpy(v.data(), bytes.data(), bytes.size());
  }
  void string(std::string& s) {
    std::uint32_t n = r.u32();
    auto bytes = r.take(n, "string");
    if (r.ok()) s.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
};

}  // namespace

std::vector<std::uint8_t> serialize(const Scene& s) {
  std::vector<std::uint8_t> bytes(kMagic, kMagic + 4);
  Out o{bytes};
  o.pod(s.mesh_base);
  o.pod(s.object_base);
  o.pod(static_cast<std::uint32_t>(s.kinds.size()));
  for (const auto& k : s.kinds) o.string(k);
  o.array(s.objects);
  o.pod(s.grid);
  o.pod(static_cast<std::uint32_t>(s.textures.size()));
  for (const Texture& t : s.textures) {
    o.string(t.name);
    o.string(t.source);
    o.pod(t.format);
    o.pod(t.width);
    o.pod(t.height);
    o.pod(static_cast<std::uint32_t>(t.levels.size()));
    for (const auto& level : t.levels) o.array(level);
  }
  o.pod(static_cast<std::uint32_t>(s.materials.size()));
  for (const Material& m : s.materials) {
    o.string(m.name);
    o.pod(m.color);
    o.pod(m.texture);
    o.pod(m.alpha);
    o.pod(m.alpha_cutoff);
    o.pod(static_cast<std::uint8_t>(m.two_sided));
  }
  o.pod(static_cast<std::uint32_t>(s.meshes.size()));
  for (const Mesh& m : s.meshes) {
    o.string(m.name);
    o.array(m.positions);
    o.array(m.normals);
    o.array(m.uvs);
    o.array(m.indices);
    o.array(m.parts);
    o.pod(m.bounds_min);
    o.pod(m.bounds_max);
    o.pod(static_cast<std::uint8_t>(m.proxy));
    o.pod(static_cast<std::uint32_t>(m.files.size()));
    for (const std::string& f : m.files) o.string(f);
    o.pod(static_cast<std::uint32_t>(m.file_params.size()));
    for (const auto& [key, value] : m.file_params) o.string(key), o.string(value);
  }
  o.pod(static_cast<std::uint32_t>(s.nodes.size()));
  for (const Node& n : s.nodes) {
    o.string(n.name);
    o.pod(n.parent);
    o.pod(n.translation);
    o.pod(n.rotation);
    o.pod(n.scale);
    o.pod(n.mesh);
    o.pod(n.object);
  }
  o.pod(static_cast<std::uint32_t>(s.sections.size()));
  for (const Section& sec : s.sections) {
    o.pod(sec.row);
    o.pod(sec.col);
    o.pod(sec.static_instances);
    o.pod(sec.origin);
    o.pod(sec.bounds_min);
    o.pod(sec.bounds_max);
    o.pod(static_cast<std::uint32_t>(sec.batches.size()));
    for (const Batch& b : sec.batches) {
      o.pod(b.primitive);
      o.pod(b.material);
      o.array(b.positions);
      o.array(b.normals);
      o.array(b.colors);
      o.array(b.objects);
      o.pod(static_cast<std::uint8_t>(b.overlay));
    }
    o.array(sec.instances);
  }
  o.array(s.tracks);
  o.pod(s.bounds_min);
  o.pod(s.bounds_max);
  o.pod(static_cast<std::uint8_t>(s.has_ground | s.keeps_instances << 1));
  o.array(s.replaces);
  return bytes;
}

Result<Scene> deserialize(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 4 || std::memcmp(bytes.data(), kMagic, 4) != 0)
    return Error{Errc::bad_magic, 0, "not a serialized scene (SCN4)"};
  ByteReader r(bytes.subspan(4), 4, "scene");
  In in{r};
  Scene s;
  in.pod(s.mesh_base);
  in.pod(s.object_base);
  const std::uint32_t kinds = r.u32();
  if (!r.check_count(kinds, 4, "kinds")) return r.error();
  s.kinds.resize(kinds);
  for (auto& k : s.kinds) in.string(k);
  in.array(s.objects);
  in.pod(s.grid);
  if (!(s.grid.cell > 0) || s.grid.cells < 1 || s.grid.cells > 4096)
    return Error{Errc::bad_value, r.offset(), "scene: grid out of range"};
  const std::uint32_t textures = r.u32();
  if (!r.check_count(textures, 17, "textures")) return r.error();
  s.textures.resize(textures);
  for (Texture& t : s.textures) {
    in.string(t.name);
    in.string(t.source);
    in.pod(t.format);
    in.pod(t.width);
    in.pod(t.height);
    const std::uint32_t levels = r.u32();
    if (levels > 16 || !r.check_count(levels, 4, "texture levels")) return Error{Errc::bad_count, r.offset(), "scene: texture levels"};
    t.levels.resize(levels);
    for (auto& level : t.levels) in.array(level);
    if (t.format > Texture::Format::bc3 || t.width > 16384 || t.height > 16384)
      return Error{Errc::bad_value, r.offset(), "scene: texture format or size out of range"};
    const std::size_t blocks = (std::size_t{t.width} + 3) / 4 * ((t.height + 3) / 4);
    const std::size_t need = t.format == Texture::Format::rgba8 ? std::size_t{t.width} * t.height * 4
                           : t.format == Texture::Format::bc1 ? blocks * 8 : blocks * 16;
    if (t.format != Texture::Format::none && (t.levels.empty() || t.levels[0].size() < need))
      return Error{Errc::bad_value, r.offset(), "scene: texture pixels shorter than its size"};
  }
  const std::uint32_t materials = r.u32();
  if (!r.check_count(materials, 18, "materials")) return r.error();
  s.materials.resize(materials);
  for (Material& m : s.materials) {
    in.string(m.name);
    in.pod(m.color);
    in.pod(m.texture);
    in.pod(m.alpha);
    in.pod(m.alpha_cutoff);
    std::uint8_t two_sided = 0;
    in.pod(two_sided);
    m.two_sided = two_sided != 0;
    if (m.texture != kNoTexture && m.texture >= s.textures.size())
      return Error{Errc::bad_value, r.offset(), "scene: material of a missing texture"};
    if (m.alpha > Material::Alpha::blend) return Error{Errc::bad_value, r.offset(), "scene: unknown alpha mode"};
  }
  const std::uint32_t meshes = r.u32();
  if (!r.check_count(meshes, 4, "meshes")) return r.error();
  s.meshes.resize(meshes);
  for (Mesh& m : s.meshes) {
    in.string(m.name);
    in.array(m.positions);
    in.array(m.normals);
    in.array(m.uvs);
    in.array(m.indices);
    in.array(m.parts);
    in.pod(m.bounds_min);
    in.pod(m.bounds_max);
    std::uint8_t proxy = 0;
    in.pod(proxy);
    m.proxy = proxy != 0;
    const std::uint32_t files = r.u32();
    if (!r.check_count(files, 4, "mesh files")) return r.error();
    m.files.resize(files);
    for (std::string& f : m.files) in.string(f);
    const std::uint32_t params = r.u32();
    if (!r.check_count(params, 8, "mesh file params")) return r.error();
    m.file_params.resize(params);
    for (auto& [key, value] : m.file_params) in.string(key), in.string(value);
    if (!r.ok()) return r.error();
    if ((!m.normals.empty() && m.normals.size() != m.positions.size()) || (!m.uvs.empty() && m.uvs.size() != m.positions.size()))
      return Error{Errc::bad_value, r.offset(), "scene: mesh attributes of different lengths"};
    for (std::uint32_t i : m.indices)
      if (i >= m.positions.size()) return Error{Errc::bad_value, r.offset(), "scene: mesh index out of range"};
    for (const Part& p : m.parts)
      if (p.material >= s.materials.size() || p.first > m.indices.size() || p.count > m.indices.size() - p.first)
        return Error{Errc::bad_value, r.offset(), "scene: mesh part out of range"};
  }
  const std::uint32_t nodes = r.u32();
  if (!r.check_count(nodes, 48, "nodes")) return r.error();
  s.nodes.resize(nodes);
  for (std::size_t k = 0; k < s.nodes.size(); ++k) {
    Node& n = s.nodes[k];
    in.string(n.name);
    in.pod(n.parent);
    in.pod(n.translation);
    in.pod(n.rotation);
    in.pod(n.scale);
    in.pod(n.mesh);
    in.pod(n.object);
    if (n.parent >= static_cast<std::int64_t>(k) || n.parent < -1 || n.mesh < -1 || n.mesh >= static_cast<std::int64_t>(s.meshes.size()))
      return Error{Errc::bad_value, r.offset(), "scene: node parent or mesh out of range"};
  }
  const std::uint32_t sections = r.u32();
  if (!r.check_count(sections, 8, "sections")) return r.error();
  s.sections.resize(sections);
  for (Section& sec : s.sections) {
    in.pod(sec.row);
    in.pod(sec.col);
    in.pod(sec.static_instances);
    in.pod(sec.origin);
    in.pod(sec.bounds_min);
    in.pod(sec.bounds_max);
    const std::uint32_t batches = r.u32();
    if (!r.check_count(batches, 4, "batches")) return r.error();
    sec.batches.resize(batches);
    for (Batch& b : sec.batches) {
      in.pod(b.primitive);
      in.pod(b.material);
      in.array(b.positions);
      in.array(b.normals);
      in.array(b.colors);
      in.array(b.objects);
      std::uint8_t overlay = 0;
      in.pod(overlay);
      b.overlay = overlay != 0;
    }
    in.array(sec.instances);
    for (const Instance& i : sec.instances)
      if (i.mesh >= s.mesh_base + s.meshes.size())
        return Error{Errc::bad_value, r.offset(), "scene: instance of a missing mesh"};
    if (sec.static_instances > sec.instances.size())
      return Error{Errc::bad_value, r.offset(), "scene: more static instances than instances"};
  }
  in.array(s.tracks);
  in.pod(s.bounds_min);
  in.pod(s.bounds_max);
  std::uint8_t ground = 0;
  in.pod(ground);
  s.has_ground = (ground & 1) != 0;
  s.keeps_instances = (ground & 2) != 0;
  in.array(s.replaces);
  if (!r.ok()) return r.error();
  if (s.replaces.size() != (s.replaces.empty() ? 0 : s.meshes.size()) || (!s.replaces.empty() && !s.sections.empty()))
    return Error{Errc::bad_value, r.offset(), "scene: a replacing delta names one mesh per mesh it brings, and no sections"};
  return s;
}

}  // namespace sceneria::scene
