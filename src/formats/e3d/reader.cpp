#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/byte_reader.hpp"
#include "formats/e3d/e3d.hpp"
#include "formats/e3d/record.hpp"

namespace sceneria::e3d {
namespace {

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      std::uint32_t m = mantissa;
      do {
        ++e;
        m <<= 1;
      } while (!(m & 0x400));
      bits = sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 | (m & 0x3FF) << 13;
    }
  } else if (exponent == 31) {
    bits = sign | 0x7F800000u | mantissa << 13;
  } else {
    bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// A signed 10-bit field of a packed normal or tangent, as the engine unpacks it: value / 511,
// clamped to [-1, 1].
float snorm10(std::uint32_t packed, int shift) {
  auto v = static_cast<std::int32_t>((packed >> shift) & 0x3FF);
  if (v & 0x200) v -= 0x400;
  return std::clamp(static_cast<float>(v) / 511.0f, -1.0f, 1.0f);
}

template <class T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string chunk_name(const std::uint8_t* id) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += (id[i] >= 0x20 && id[i] < 0x7F) ? static_cast<char>(id[i]) : '?';
  return s;
}

std::size_t stride_of(int variant) {
  switch (variant) {
    case 0: return 32;
    case 1: return 20;
    case 2: return 48;
    case 4: return 48;
    case 5: return 28;
    case 6: return 64;
    default: return 0;
  }
}

// NUL-terminated strings until the end of the payload.
std::vector<std::string> strings_of(std::span<const std::uint8_t> payload, bool& open_end) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < payload.size(); ++i)
    if (payload[i] == 0) {
      out.emplace_back(reinterpret_cast<const char*>(payload.data() + start), i - start);
      start = i + 1;
    }
  open_end = start < payload.size();
  if (open_end) out.emplace_back(reinterpret_cast<const char*>(payload.data() + start), payload.size() - start);
  return out;
}

Submodel submodel_from(std::span<const std::uint8_t> r) {
  Submodel s;
  submodel_fields(s, [&](std::size_t at, const char*, auto& field) { std::memcpy(&field, r.data() + at, sizeof field); });
  s.record.assign(r.begin(), r.end());
  return s;
}

// Every link, block, name, matrix and texture of every submodel within the model; parents set.
Error check_and_link(Model& m, std::uint64_t sub_offset) {
  const auto count = static_cast<std::int64_t>(m.submodels.size());
  const auto vertices = static_cast<std::int64_t>(m.vertex_total()), indices = static_cast<std::int64_t>(m.index_total());
  for (std::int64_t i = 0; i < count; ++i) {
    Submodel& s = m.submodels[static_cast<std::size_t>(i)];
    const std::uint64_t at = sub_offset + 8 + static_cast<std::uint64_t>(i) * (256 + 64 * static_cast<std::uint64_t>(m.sub_variant));
    auto fail = [&](std::string what) { return Error{Errc::bad_value, at, fmt::format("submodel {} at {}: {}", i, hex_offset(at), what)}; };
    if (s.next >= count) return fail(fmt::format("next is {} but the model has {} submodels", s.next, count));
    if (s.child >= count) return fail(fmt::format("child is {} but the model has {} submodels", s.child, count));
    if (s.name < -1 || s.name >= static_cast<std::int64_t>(m.names.size()))
      return fail(fmt::format("name {} but NAM0 has {} names", s.name, m.names.size()));
    if (s.matrix < -1 || s.matrix >= static_cast<std::int64_t>(m.matrices.size()))
      return fail(fmt::format("matrix {} but TRA has {} matrices", s.matrix, m.matrices.size()));
    if (s.texture < -4 || s.texture >= static_cast<std::int64_t>(std::max<std::size_t>(m.textures.size(), 1)))
      return fail(fmt::format("texture {} but TEX0 has {} entries", s.texture, m.textures.size()));
    if (s.vertex_count < 0 || s.index_count < 0) return fail("a negative vertex or index count");
    if (s.vertex_count > 0 && (s.vertex_offset < 0 || s.vertex_offset + static_cast<std::int64_t>(s.vertex_count) > vertices))
      return fail(fmt::format("vertices {}..{} but the pool has {}", s.vertex_offset, s.vertex_offset + static_cast<std::int64_t>(s.vertex_count), vertices));
    if (s.index_count > 0) {
      if (s.index_offset < 0 || s.index_offset + static_cast<std::int64_t>(s.index_count) > indices)
        return fail(fmt::format("indices {}..{} but the pool has {}", s.index_offset, s.index_offset + static_cast<std::int64_t>(s.index_count), indices));
      for (std::int64_t k = 0; k < s.index_count; ++k)
        if (const std::uint32_t v = m.index(static_cast<std::size_t>(s.index_offset + k)); v >= static_cast<std::uint32_t>(s.vertex_count))
          return fail(fmt::format("index {} is {} but the submodel has {} vertices", k, v, s.vertex_count));
    }
  }
  // Roots are 0 and its next chain; a child's next chain shares its parent. Each submodel is
  // reached once at most: a link back is a cycle, which the engine would follow for ever.
  if (count == 0) return {};
  std::vector<char> seen(static_cast<std::size_t>(count), 0);
  std::vector<std::pair<std::int32_t, std::int32_t>> chains{{0, -1}};  // first of a chain, its parent
  while (!chains.empty()) {
    auto [at, parent] = chains.back();
    chains.pop_back();
    for (std::int32_t i = at;;) {
      if (seen[static_cast<std::size_t>(i)])
        return Error{Errc::bad_value, sub_offset, fmt::format("chunk SUB at {}: submodel {} is linked twice (a cycle of next/child links)", hex_offset(sub_offset), i)};
      seen[static_cast<std::size_t>(i)] = 1;
      Submodel& s = m.submodels[static_cast<std::size_t>(i)];
      s.parent = parent;
      if (s.child > 0) chains.push_back({s.child, i});
      if (s.next <= 0) break;
      i = s.next;
    }
  }
  return {};
}

}  // namespace

std::size_t Model::vertex_stride() const { return stride_of(vertex_variant); }

std::size_t Model::vertex_total() const {
  const std::size_t stride = vertex_stride();
  return stride ? vertex_bytes.size() / stride : 0;
}

Vertex Model::vertex(std::size_t i) const {
  Vertex v;
  const std::uint8_t* p = vertex_bytes.data() + i * vertex_stride();
  const int base = vertex_variant & 3;
  if (base == 1) {  // packed halves and 10-10-10-2 normals
    const auto pos = load<std::uint64_t>(p);
    for (int k = 0; k < 3; ++k) v.position[static_cast<std::size_t>(k)] = half_to_float(static_cast<std::uint16_t>(pos >> (16 * k)));
    const auto n = load<std::uint32_t>(p + 8);
    for (int k = 0; k < 3; ++k) v.normal[static_cast<std::size_t>(k)] = snorm10(n, 10 * k);
    v.uv = {half_to_float(load<std::uint16_t>(p + 12)), half_to_float(load<std::uint16_t>(p + 14))};
    const auto t = load<std::uint32_t>(p + 16);
    auto w = static_cast<std::int32_t>(t >> 30);
    if (w & 2) w -= 4;
    v.tangent = {snorm10(t, 0), snorm10(t, 10), snorm10(t, 20), static_cast<float>(w)};
    if (vertex_variant & 4)
      for (int k = 0; k < 4; ++k) v.user[static_cast<std::size_t>(k)] = half_to_float(load<std::uint16_t>(p + 20 + 2 * k));
    return v;
  }
  for (int k = 0; k < 3; ++k) v.position[static_cast<std::size_t>(k)] = load<float>(p + 4 * k);
  for (int k = 0; k < 3; ++k) v.normal[static_cast<std::size_t>(k)] = load<float>(p + 12 + 4 * k);
  v.uv = {load<float>(p + 24), load<float>(p + 28)};
  std::size_t at = 32;
  if (base == 2) {
    for (int k = 0; k < 4; ++k) v.tangent[static_cast<std::size_t>(k)] = load<float>(p + 32 + 4 * k);
    at = 48;
  }
  if (vertex_variant & 4)
    for (int k = 0; k < 4; ++k) v.user[static_cast<std::size_t>(k)] = load<float>(p + at + 4 * static_cast<std::size_t>(k));
  return v;
}

std::uint32_t Model::index(std::size_t i) const {
  const std::uint8_t* p = index_bytes.data() + i * static_cast<std::size_t>(index_size);
  switch (index_size) {
    case 1: return *p;
    case 2: return load<std::uint16_t>(p);
    default: return load<std::uint32_t>(p);
  }
}

std::string_view Model::name_of(const Submodel& s) const {
  return s.name >= 0 && static_cast<std::size_t>(s.name) < names.size() ? std::string_view(names[static_cast<std::size_t>(s.name)]) : std::string_view();
}

std::string Model::material_of(const Submodel& s) const {
  if (s.texture < 0) return fmt::format("replaceable skin {}", -s.texture);
  if (s.texture == 0 || static_cast<std::size_t>(s.texture) >= textures.size()) return "colored";
  std::string path = textures[static_cast<std::size_t>(s.texture)];
  std::replace(path.begin(), path.end(), '\\', '/');
  return path;
}

bool Model::hidden_by_default(const Submodel& s, bool vehicle) const {
  const std::string_view n = name_of(s);
  if (n.substr(0, 8) == "Light_On") return true;
  return vehicle && n.size() >= 3 && n.substr(n.size() - 3) == "_on";
}

namespace {

// read_model; with `pools`, a model whose written bytes these are, whose pools it takes instead
// of copying the file's.
Result<Model> read(std::span<const std::uint8_t> bytes, Model* pools) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), "E3D0", 4) != 0)
    return Error{Errc::bad_magic, 0, "not an E3D model: the file does not start with an E3D0 chunk"};
  const auto total = load<std::uint32_t>(bytes.data() + 4);
  if (total < 8 || total > bytes.size())
    return Error{Errc::truncated, 0, fmt::format("chunk E3D0 at 0x0 claims {} bytes but the file has {}", total, bytes.size())};
  Model m;
  m.trailing.assign(bytes.begin() + total, bytes.end());
  bool seen_sub = false, seen_tra = false, seen_tex = false, seen_nam = false, adopt_vertices = false, adopt_indices = false;
  std::uint64_t sub_offset = 0;
  for (std::uint64_t at = 8; at < total;) {
    const std::uint64_t left = total - at;
    if (left < 8) return Error{Errc::truncated, at, fmt::format("chunk E3D0: {} bytes at {} are too few for a chunk header", left, hex_offset(at))};
    const std::uint8_t* head = bytes.data() + at;
    const std::string name = chunk_name(head);
    const auto size = load<std::uint32_t>(head + 4);
    if (size < 8 || size > left)
      return Error{Errc::bad_chunk_size, at, fmt::format("chunk {} at {} claims {} bytes but only {} remain in E3D0", name, hex_offset(at), size, left)};
    const std::span<const std::uint8_t> payload = bytes.subspan(static_cast<std::size_t>(at + 8), size - 8);
    const int digit = head[3] - '0';
    ChunkInfo info;
    std::memcpy(info.id.data(), head, 4);
    info.offset = at;
    info.size = size;
    auto fail = [&](Errc code, std::string what) { return Error{code, at, fmt::format("chunk {} at {}: {}", name, hex_offset(at), what)}; };
    const std::string_view key(reinterpret_cast<const char*>(head), 3);
    if (key == "SUB") {
      if (seen_sub) return fail(Errc::bad_value, "a second submodel chunk");
      if (digit != 0 && digit != 1) return fail(Errc::unsupported_version, "submodel records of an unknown size");
      const std::size_t record = 256 + 64 * static_cast<std::size_t>(digit);
      if (payload.size() % record) return fail(Errc::bad_chunk_size, fmt::format("{} bytes are not a whole number of {}-byte records", payload.size(), record));
      seen_sub = true;
      sub_offset = at;
      m.sub_variant = digit;
      m.submodels.reserve(payload.size() / record);
      for (std::size_t r = 0; r < payload.size(); r += record) m.submodels.push_back(submodel_from(payload.subspan(r, record)));
    } else if ((key == "VNT" || key == "IDX") && !seen_sub) {
      return fail(Errc::bad_value, "vertices or indices before the submodels (the engine refuses them)");
    } else if (key == "VNT" && m.vertex_variant < 0) {
      const std::size_t stride = digit >= 0 && digit <= 9 ? stride_of(digit) : 0;
      if (!stride) return fail(Errc::unsupported_version, "an unknown vertex format");
      if (payload.size() % stride) return fail(Errc::bad_chunk_size, fmt::format("{} bytes are not a whole number of {}-byte vertices", payload.size(), stride));
      m.vertex_variant = digit;
      if (pools && pools->vertex_bytes.size() == payload.size()) adopt_vertices = true;
      else m.vertex_bytes.assign(payload.begin(), payload.end());
    } else if (key == "IDX" && m.index_size == 0) {
      if (digit != 1 && digit != 2 && digit != 4) return fail(Errc::unsupported_version, "an unknown index size");
      if (payload.size() % static_cast<std::size_t>(digit)) return fail(Errc::bad_chunk_size, fmt::format("{} bytes are not a whole number of {}-byte indices", payload.size(), digit));
      m.index_size = digit;
      if (pools && pools->index_bytes.size() == payload.size()) adopt_indices = true;
      else m.index_bytes.assign(payload.begin(), payload.end());
    } else if (key == "TRA") {
      if (seen_tra) return fail(Errc::bad_value, "a second matrix chunk");
      if (digit != 0 && digit != 1) return fail(Errc::unsupported_version, "matrices of an unknown precision");
      const std::size_t each = digit ? 128 : 64;
      if (payload.size() % each) return fail(Errc::bad_chunk_size, fmt::format("{} bytes are not a whole number of {}-byte matrices", payload.size(), each));
      seen_tra = true;
      m.matrices_f64 = digit == 1;
      if (!digit) m.matrix_bytes.assign(payload.begin(), payload.end());
      m.matrices.resize(payload.size() / each);
      for (std::size_t k = 0; k < m.matrices.size(); ++k)
        for (std::size_t e = 0; e < 16; ++e)
          m.matrices[k][e] = digit ? load<double>(payload.data() + k * each + 8 * e) : static_cast<double>(load<float>(payload.data() + k * each + 4 * e));
    } else if (std::memcmp(head, "TEX0", 4) == 0 || std::memcmp(head, "NAM0", 4) == 0) {
      const bool tex = head[0] == 'T';
      if (tex ? seen_tex : seen_nam) return fail(Errc::bad_value, tex ? "a second texture list" : "a second name list");
      (tex ? seen_tex : seen_nam) = true;
      (tex ? m.textures : m.names) = strings_of(payload, info.open_end);
    } else {
      info.unknown.assign(payload.begin(), payload.end());  // kept as it was (and a second VNT or IDX, which the engine ignores)
    }
    m.chunks.push_back(std::move(info));
    at += size;
  }
  if (!seen_sub) return Error{Errc::bad_value, 0, "chunk E3D0 at 0x0: no submodel chunk (SUB0 or SUB1)"};
  // Lent for the checks, which read the indices; given back when they fail.
  if (adopt_vertices) m.vertex_bytes = std::move(pools->vertex_bytes);
  if (adopt_indices) m.index_bytes = std::move(pools->index_bytes);
  if (Error e = check_and_link(m, sub_offset)) {
    if (adopt_vertices) pools->vertex_bytes = std::move(m.vertex_bytes);
    if (adopt_indices) pools->index_bytes = std::move(m.index_bytes);
    return e;
  }
  return m;
}

}  // namespace

Result<Model> read_model(std::span<const std::uint8_t> bytes) { return read(bytes, nullptr); }

Result<Model> reread_model(Model& built) {
  const std::vector<std::uint8_t> bytes = write_model(built);
  return read(bytes, &built);
}

}  // namespace sceneria::e3d
