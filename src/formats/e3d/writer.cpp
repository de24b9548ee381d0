#include <algorithm>
#include <cstring>

#include "formats/e3d/e3d.hpp"
#include "formats/e3d/record.hpp"

namespace sceneria::e3d {
namespace {

template <class T>
void put(std::vector<std::uint8_t>& out, T v) {
  std::uint8_t b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  out.insert(out.end(), b, b + sizeof v);
}

// A record from the submodel's fields, over its record as read (its padding kept); zeros for a
// submodel made in code.
void put_submodel(std::vector<std::uint8_t>& out, const Submodel& s, std::size_t size) {
  std::vector<std::uint8_t> r(size, 0);
  if (!s.record.empty()) std::memcpy(r.data(), s.record.data(), std::min(size, s.record.size()));  // none for a submodel made in code
  submodel_fields(s, [&](std::size_t at, const char*, const auto& field) { std::memcpy(r.data() + at, &field, sizeof field); });
  out.insert(out.end(), r.begin(), r.end());
}

void put_strings(std::vector<std::uint8_t>& out, const std::vector<std::string>& list, bool open_end) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    out.insert(out.end(), list[i].begin(), list[i].end());
    if (!(open_end && i + 1 == list.size())) out.push_back(0);
  }
}

}  // namespace

bool Model::matrix_bytes_current() const {
  if (matrix_bytes.size() != matrices.size() * 64) return false;
  for (std::size_t k = 0; k < matrices.size(); ++k)
    for (std::size_t e = 0; e < 16; ++e) {
      float f;
      std::memcpy(&f, matrix_bytes.data() + k * 64 + e * 4, 4);
      const double wide = f;
      if (std::memcmp(&wide, &matrices[k][e], sizeof wide) != 0) return false;  // bit for bit
    }
  return true;
}

std::vector<std::uint8_t> write_model(const Model& m) {
  std::vector<std::uint8_t> out;
  out.reserve(8 + 8 * m.chunks.size() + m.vertex_bytes.size() + m.index_bytes.size() + 128 * m.matrices.size() + 384 * m.submodels.size());
  out.assign({'E', '3', 'D', '0', 0, 0, 0, 0});
  bool wrote_vertices = false, wrote_indices = false;
  for (const ChunkInfo& c : m.chunks) {
    const std::size_t start = out.size();
    out.insert(out.end(), c.id.begin(), c.id.end());
    put<std::uint32_t>(out, 0);
    const std::string_view key(c.id.data(), 3);
    if (key == "SUB") {
      for (const Submodel& s : m.submodels) put_submodel(out, s, 256 + 64 * static_cast<std::size_t>(m.sub_variant));
    } else if (key == "TRA") {
      if (!m.matrices_f64 && m.matrix_bytes_current()) out.insert(out.end(), m.matrix_bytes.begin(), m.matrix_bytes.end());
      else
        for (const auto& matrix : m.matrices)
          for (double e : matrix) m.matrices_f64 ? put(out, e) : put(out, static_cast<float>(e));
    } else if (key == "VNT" && !wrote_vertices && c.unknown.empty()) {
      out.insert(out.end(), m.vertex_bytes.begin(), m.vertex_bytes.end());
      wrote_vertices = true;
    } else if (key == "IDX" && !wrote_indices && c.unknown.empty()) {
      out.insert(out.end(), m.index_bytes.begin(), m.index_bytes.end());
      wrote_indices = true;
    } else if (std::memcmp(c.id.data(), "TEX0", 4) == 0) {
      put_strings(out, m.textures, c.open_end);
    } else if (std::memcmp(c.id.data(), "NAM0", 4) == 0) {
      put_strings(out, m.names, c.open_end);
    } else {
      out.insert(out.end(), c.unknown.begin(), c.unknown.end());
    }
    const auto size = static_cast<std::uint32_t>(out.size() - start);
    std::memcpy(out.data() + start + 4, &size, 4);
  }
  const auto total = static_cast<std::uint32_t>(out.size());
  std::memcpy(out.data() + 4, &total, 4);
  out.insert(out.end(), m.trailing.begin(), m.trailing.end());
  return out;
}

}  // namespace sceneria::e3d
