#include "formats/e3d/json.hpp"

#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "formats/e3d/record.hpp"
#include "io/json_io.hpp"

namespace sceneria::e3d {
namespace {

using njson = nlohmann::json;

// What one vertex stores, value by value: floats, or (VNT1, VNT5) the integers of half floats and
// packed normals, which the JSON keeps as integers so that nothing is rounded.
struct VertexLayout {
  std::vector<std::uint8_t> sizes;  // bytes of each value
  bool floats = true;
};

std::optional<VertexLayout> vertex_layout(int variant) {
  switch (variant) {
    case 0: return VertexLayout{std::vector<std::uint8_t>(8, 4), true};
    case 2:
    case 4: return VertexLayout{std::vector<std::uint8_t>(12, 4), true};
    case 6: return VertexLayout{std::vector<std::uint8_t>(16, 4), true};
    case 1: return VertexLayout{{2, 2, 2, 2, 4, 2, 2, 4}, false};  // position halves (4th unused), normal, u, v, tangent
    case 5: return VertexLayout{{2, 2, 2, 2, 4, 2, 2, 4, 2, 2, 2, 2}, false};
    default: return std::nullopt;
  }
}

int digit_of(const std::array<char, 4>& id) { return id[3] - '0'; }
bool is(const std::array<char, 4>& id, const char* four) { return std::memcmp(id.data(), four, 4) == 0; }
bool is_kind(const std::array<char, 4>& id, const char* three) { return std::memcmp(id.data(), three, 3) == 0; }

std::size_t record_size(int sub_variant) { return 256 + 64 * static_cast<std::size_t>(sub_variant); }

template <class T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void submodel_text(JsonText& t, const Submodel& s, std::size_t size) {
  t.open_object();
  submodel_fields(s, [&](std::size_t, const char* name, const auto& field) {
    t.key(name);
    using T = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<T, float>) {
      float_text(t, field);
    } else if constexpr (std::is_same_v<T, std::array<float, 4>>) {
      t.open_array();
      for (float f : field) float_text(t, f);
      t.close();
    } else if constexpr (std::is_signed_v<T>) {
      t.number(std::int64_t{field});
    } else {
      t.number(std::uint64_t{field});
    }
  });
  // Padding is written only where it holds something (the reference writer zeroes it).
  if (s.record.size() > kSubmodelFieldsEnd) {
    const auto padding = std::span(s.record).subspan(kSubmodelFieldsEnd, std::min(s.record.size(), size) - kSubmodelFieldsEnd);
    if (std::any_of(padding.begin(), padding.end(), [](std::uint8_t b) { return b != 0; })) hex_text(t, "padding_hex", padding);
  }
  t.close();
}

void strings_text(JsonText& t, const std::vector<std::string>& list, bool open_end) {
  t.key("strings");
  t.open_array();
  for (const std::string& s : list) string_text(t, s);
  t.close();
  if (open_end) {
    t.key("open_end");
    t.boolean(true);
  }
}

}  // namespace

Error write_model_json(const Model& m, ByteSink& sink, int indent) {
  JsonText t(sink, indent);
  t.open_form("e3d", kJsonSchemaVersion);
  t.key("chunks");
  t.open_array();
  // The chunks the writer fills from the model's fields, decided as write_model decides them.
  bool wrote_vertices = false, wrote_indices = false;
  const std::optional<VertexLayout> layout = vertex_layout(m.vertex_variant);
  for (const ChunkInfo& c : m.chunks) {
    t.open_object();
    t.key("id");
    t.string(fourcc_text(std::string_view(c.id.data(), 4)));
    if (is_kind(c.id, "SUB")) {
      t.key("submodels");
      t.open_array();
      for (const Submodel& s : m.submodels) submodel_text(t, s, record_size(m.sub_variant));
      t.close();
    } else if (is_kind(c.id, "TRA")) {
      t.key("matrices");
      t.open_array();
      const bool bytes = !m.matrices_f64 && m.matrix_bytes_current();
      for (std::size_t k = 0; k < m.matrices.size(); ++k) {
        t.open_array();
        for (std::size_t e = 0; e < 16; ++e) {
          if (m.matrices_f64) double_text(t, m.matrices[k][e]);
          else float_text(t, bytes ? load<float>(m.matrix_bytes.data() + k * 64 + e * 4) : static_cast<float>(m.matrices[k][e]));
        }
        t.close();
      }
      t.close();
    } else if (is_kind(c.id, "VNT") && !wrote_vertices && c.unknown.empty() && layout) {
      wrote_vertices = true;
      t.key("vertices");
      t.open_array();
      const std::size_t stride = m.vertex_stride();
      for (std::size_t at = 0; at + stride <= m.vertex_bytes.size(); at += stride) {
        t.open_array();
        const std::uint8_t* p = m.vertex_bytes.data() + at;
        for (std::uint8_t size : layout->sizes) {
          if (layout->floats) float_text(t, load<float>(p));
          else if (size == 2) t.number(std::uint64_t{load<std::uint16_t>(p)});
          else t.number(std::uint64_t{load<std::uint32_t>(p)});
          p += size;
        }
        t.close();
      }
      t.close();
    } else if (is_kind(c.id, "IDX") && !wrote_indices && c.unknown.empty() && m.index_size) {
      wrote_indices = true;
      t.key("indices");
      t.open_array();
      for (std::size_t i = 0; i < m.index_total(); ++i) t.number(std::uint64_t{m.index(i)});
      t.close();
    } else if (is(c.id, "TEX0")) {
      strings_text(t, m.textures, c.open_end);
    } else if (is(c.id, "NAM0")) {
      strings_text(t, m.names, c.open_end);
    } else {
      hex_text(t, "hex", c.unknown);
    }
    t.close();
  }
  t.close();
  if (!m.trailing.empty()) hex_text(t, "trailing_hex", m.trailing);
  t.close();
  return t.flush();
}

namespace {

// The model as its items arrive (parse_json_streamed's visitor): each chunk's list is decoded an
// item at a time into the model's pools, and each chunk when it closes.
class ModelReader {
 public:
  Result<bool> item(std::span<const JsonLevel> open, njson& item) {
    // open: [document, "chunks", a chunk, its list]
    if (open.size() < 2 || open[1].key != "chunks") return true;
    if (open.size() == 2) {
      if (Error e = chunk(item, open[1].items)) return e;
      return false;
    }
    if (open.size() != 4) return true;
    const std::string_view list = open[3].key;
    if (list != "submodels" && list != "vertices" && list != "indices" && list != "matrices" && list != "strings") return true;
    const njson& chunk_so_far = *open[2].value;
    const auto fail = [&](std::string what) {
      return Error{Errc::bad_value, 0, fmt::format("{}[{}]: {}", json_path(open), open[3].items, what)};
    };
    if (!id_) {
      const auto it = chunk_so_far.find("id");
      std::string four;
      if (it == chunk_so_far.end() || !it->is_string() || !fourcc_from_text(it->get_ref<const std::string&>(), four))
        return fail(fmt::format("the chunk's \"id\" (four characters) must come before its \"{}\"", list));
      id_.emplace();
      std::memcpy(id_->data(), four.data(), 4);
    }
    const auto& id = *id_;
    if (list == "submodels") {
      if (!is_kind(id, "SUB") || (digit_of(id) != 0 && digit_of(id) != 1)) return fail("submodels belong in a SUB0 or SUB1 chunk");
      if (Error e = submodel(item, record_size(digit_of(id)), fail)) return e;
    } else if (list == "vertices") {
      if (Error e = vertex(item, id, fail)) return e;
    } else if (list == "indices") {
      if (Error e = index(item, id, fail)) return e;
    } else if (list == "matrices") {
      if (Error e = matrix(item, id, fail)) return e;
    } else {
      std::string bytes;
      if (!is(id, "TEX0") && !is(id, "NAM0")) return fail("strings belong in a TEX0 or NAM0 chunk");
      if (!string_from_json(item, bytes)) return fail("expected a string (or {\"cp1250\": …} / {\"hex\": …})");
      if (bytes.find('\0') != std::string::npos) return fail("a name cannot hold a NUL byte");
      if (Error e = grow(bytes.size() + 1, fail)) return e;
      strings_.push_back(std::move(bytes));
    }
    return false;
  }

  Error finish(const njson& doc) {
    if (!doc.is_object()) return Error{Errc::bad_value, 0, "an E3D JSON document is an object"};
    const auto format = doc.find("format");
    if (format == doc.end() || *format != "e3d") return Error{Errc::bad_value, 0, "format: expected \"e3d\""};
    const auto schema = doc.find("schema");
    if (schema == doc.end() || !schema->is_number_integer() || *schema != kJsonSchemaVersion)
      return Error{Errc::bad_value, 0, fmt::format("schema: this build reads schema {}", kJsonSchemaVersion)};
    if (doc.find("chunks") == doc.end()) return Error{Errc::bad_value, 0, "chunks: missing"};
    if (const auto t = doc.find("trailing_hex"); t != doc.end()) {
      std::string bytes;
      if (!t->is_string() || !from_hex(t->get<std::string>(), bytes)) return Error{Errc::bad_value, 0, "trailing_hex: expected hex"};
      m_.trailing.assign(bytes.begin(), bytes.end());
    }
    return {};
  }

  Model m_;

 private:
  template <class Fail>
  Error grow(std::size_t bytes, const Fail& fail) {
    // A model is read whole from at most 2 GB (the E3D opener's limit); its JSON says no more.
    size_ += bytes;
    if (size_ > (std::uint64_t{1} << 31)) return fail("the model would be bigger than 2 GB");
    return {};
  }

  template <class Fail>
  Error submodel(const njson& j, std::size_t size, const Fail& fail) {
    if (!j.is_object()) return fail("expected a submodel object");
    if (Error e = grow(size, fail)) return e;
    Submodel s;
    s.record.assign(size, 0);
    std::string problem;
    submodel_fields(s, [&](std::size_t, const char* name, auto& field) {
      if (!problem.empty()) return;
      const auto it = j.find(name);
      if (it == j.end()) return void(problem = fmt::format("{}: missing", name));
      using T = std::decay_t<decltype(field)>;
      if constexpr (std::is_same_v<T, float>) {
        if (!float_from_json(*it, field)) problem = fmt::format("{}: expected a float (or \"0x…\" bits)", name);
      } else if constexpr (std::is_same_v<T, std::array<float, 4>>) {
        if (!it->is_array() || it->size() != 4) return void(problem = fmt::format("{}: expected four floats", name));
        for (std::size_t k = 0; k < 4; ++k)
          if (!float_from_json((*it)[k], field[k])) problem = fmt::format("{}: expected four floats", name);
      } else {
        const bool in_range = std::is_signed_v<T> ? it->is_number_integer() && (*it) >= std::numeric_limits<T>::min() && (*it) <= std::numeric_limits<T>::max()
                                                  : it->is_number_unsigned() && it->template get<std::uint64_t>() <= std::numeric_limits<T>::max();
        if (!in_range) problem = fmt::format("{}: expected an integer from {} to {}", name, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
        else field = it->template get<T>();
      }
    });
    if (!problem.empty()) return fail(problem);
    if (const auto p = j.find("padding_hex"); p != j.end()) {
      std::string bytes;
      if (!p->is_string() || !from_hex(p->get<std::string>(), bytes) || bytes.size() > size - kSubmodelFieldsEnd)
        return fail(fmt::format("padding_hex: expected at most {} bytes of hex", size - kSubmodelFieldsEnd));
      std::memcpy(s.record.data() + kSubmodelFieldsEnd, bytes.data(), bytes.size());
    }
    m_.submodels.push_back(std::move(s));
    return {};
  }

  template <class Fail>
  Error vertex(const njson& j, const std::array<char, 4>& id, const Fail& fail) {
    const auto layout = is_kind(id, "VNT") ? vertex_layout(digit_of(id)) : std::nullopt;
    if (!layout) return fail("vertices belong in a VNT0, VNT1, VNT2, VNT4, VNT5 or VNT6 chunk");
    if (!j.is_array() || j.size() != layout->sizes.size()) return fail(fmt::format("expected {} values", layout->sizes.size()));
    std::uint8_t out[64];
    std::size_t at = 0;
    for (std::size_t k = 0; k < layout->sizes.size(); ++k) {
      const std::uint8_t size = layout->sizes[k];
      if (layout->floats) {
        float f;
        if (!float_from_json(j[k], f)) return fail(fmt::format("value {}: expected a float (or \"0x…\" bits)", k));
        std::memcpy(out + at, &f, 4);
      } else {
        const std::uint64_t max = size == 2 ? 0xFFFF : 0xFFFFFFFF;
        if (!j[k].is_number_unsigned() || j[k].get<std::uint64_t>() > max) return fail(fmt::format("value {}: expected an integer from 0 to {}", k, max));
        const auto v = j[k].get<std::uint64_t>();
        if (size == 2) {
          const auto u = static_cast<std::uint16_t>(v);
          std::memcpy(out + at, &u, 2);
        } else {
          const auto u = static_cast<std::uint32_t>(v);
          std::memcpy(out + at, &u, 4);
        }
      }
      at += size;
    }
    if (Error e = grow(at, fail)) return e;
    m_.vertex_bytes.insert(m_.vertex_bytes.end(), out, out + at);
    return {};
  }

  template <class Fail>
  Error index(const njson& j, const std::array<char, 4>& id, const Fail& fail) {
    const int size = is_kind(id, "IDX") ? digit_of(id) : 0;
    if (size != 1 && size != 2 && size != 4) return fail("indices belong in an IDX1, IDX2 or IDX4 chunk");
    const std::uint64_t max = size == 1 ? 0xFF : size == 2 ? 0xFFFF : 0xFFFFFFFF;
    if (!j.is_number_unsigned() || j.get<std::uint64_t>() > max) return fail(fmt::format("expected an integer from 0 to {}", max));
    if (Error e = grow(static_cast<std::size_t>(size), fail)) return e;
    const auto v = static_cast<std::uint32_t>(j.get<std::uint64_t>());
    const auto* b = reinterpret_cast<const std::uint8_t*>(&v);  // little-endian, as the file
    m_.index_bytes.insert(m_.index_bytes.end(), b, b + size);
    return {};
  }

  template <class Fail>
  Error matrix(const njson& j, const std::array<char, 4>& id, const Fail& fail) {
    if (!is(id, "TRA0") && !is(id, "TRA1")) return fail("matrices belong in a TRA0 or TRA1 chunk");
    const bool f64 = id[3] == '1';
    if (!j.is_array() || j.size() != 16) return fail("expected 16 numbers");
    if (Error e = grow(f64 ? 128 : 64, fail)) return e;
    std::array<double, 16> matrix{};
    for (std::size_t e = 0; e < 16; ++e) {
      if (f64) {
        if (!double_from_json(j[e], matrix[e])) return fail(fmt::format("value {}: expected a number (or \"0x…\" bits)", e));
      } else {
        float f;
        if (!float_from_json(j[e], f)) return fail(fmt::format("value {}: expected a float (or \"0x…\" bits)", e));
        matrix[e] = f;
        const auto* b = reinterpret_cast<const std::uint8_t*>(&f);
        m_.matrix_bytes.insert(m_.matrix_bytes.end(), b, b + 4);
      }
    }
    m_.matrices.push_back(matrix);
    return {};
  }

  // A chunk as it closes: its lists have gone into the model; what is left says what it was.
  Error chunk(const njson& c, std::uint64_t index) {
    const auto fail = [&](std::string what) { return Error{Errc::bad_value, 0, fmt::format("chunks[{}]: {}", index, what)}; };
    std::optional<std::array<char, 4>> id = id_;
    id_.reset();
    if (!c.is_object()) return fail("expected a chunk object");
    if (!id) {
      const auto it = c.find("id");
      std::string four;
      if (it == c.end() || !it->is_string() || !fourcc_from_text(it->get_ref<const std::string&>(), four))
        return fail("id: expected four characters");
      id.emplace();
      std::memcpy(id->data(), four.data(), 4);
    }
    ChunkInfo info;
    info.id = *id;
    const auto has = [&](const char* key) { return c.find(key) != c.end(); };
    const auto once = [&](bool& seen, const char* what) -> Error {
      if (seen) return fail(fmt::format("a second {}", what));
      seen = true;
      return {};
    };
    const int digit = digit_of(*id);
    if (has("submodels") && !(is_kind(*id, "SUB") && (digit == 0 || digit == 1))) return fail("submodels belong in a SUB0 or SUB1 chunk");
    if (has("vertices") && !(is_kind(*id, "VNT") && vertex_layout(digit))) return fail("vertices belong in a VNT0, VNT1, VNT2, VNT4, VNT5 or VNT6 chunk");
    if (has("indices") && !(is_kind(*id, "IDX") && (digit == 1 || digit == 2 || digit == 4))) return fail("indices belong in an IDX1, IDX2 or IDX4 chunk");
    if (has("matrices") && !is(*id, "TRA0") && !is(*id, "TRA1")) return fail("matrices belong in a TRA0 or TRA1 chunk");
    if (has("strings") && !is(*id, "TEX0") && !is(*id, "NAM0")) return fail("strings belong in a TEX0 or NAM0 chunk");
    if (has("submodels")) {
      if (Error e = once(seen_sub_, "submodel chunk")) return e;
      m_.sub_variant = digit_of(*id);
    } else if (has("vertices")) {
      if (Error e = once(seen_vertices_, "vertex list")) return e;
      m_.vertex_variant = digit_of(*id);
    } else if (has("indices")) {
      if (Error e = once(seen_indices_, "index list")) return e;
      m_.index_size = digit_of(*id);
    } else if (has("matrices")) {
      if (Error e = once(seen_matrices_, "matrix chunk")) return e;
      m_.matrices_f64 = (*id)[3] == '1';
    } else if (has("strings")) {
      if (Error e = once(is(*id, "TEX0") ? seen_tex_ : seen_nam_, is(*id, "TEX0") ? "texture list" : "name list")) return e;
      (is(*id, "TEX0") ? m_.textures : m_.names) = std::move(strings_);
      strings_.clear();
      if (const auto o = c.find("open_end"); o != c.end()) {
        if (!o->is_boolean()) return fail("open_end: expected true or false");
        info.open_end = o->get<bool>();
        if (info.open_end && (is(*id, "TEX0") ? m_.textures : m_.names).empty()) return fail("open_end: there is no last string");
      }
    } else if (const auto h = c.find("hex"); h != c.end()) {
      std::string bytes;
      if (!h->is_string() || !from_hex(h->get<std::string>(), bytes)) return fail("hex: expected hex");
      if (Error e = grow(bytes.size(), [&](std::string what) { return fail(what); })) return e;
      info.unknown.assign(bytes.begin(), bytes.end());
    } else {
      return fail("expected one of submodels, vertices, indices, matrices, strings or hex");
    }
    m_.chunks.push_back(std::move(info));
    return {};
  }

  std::optional<std::array<char, 4>> id_;  // of the chunk being read, once a list needed it
  std::vector<std::string> strings_;
  std::uint64_t size_ = 0;
  bool seen_sub_ = false, seen_vertices_ = false, seen_indices_ = false, seen_matrices_ = false, seen_tex_ = false, seen_nam_ = false;
};

}  // namespace

Result<Model> read_model_json(ByteSource& source) {
  ModelReader reader;
  auto doc = parse_json_streamed(source, [&](std::span<const JsonLevel> open, njson& item) { return reader.item(open, item); });
  if (!doc) return doc.error();
  if (Error e = reader.finish(*doc)) return e;
  // The bytes it describes, read back: every check and link of read_model then holds.
  auto bytes = write_model(reader.m_);
  if (bytes.size() > (std::uint64_t{1} << 31)) return Error{Errc::bad_count, 0, "the model would be bigger than 2 GB"};
  return read_model(bytes);
}

}  // namespace sceneria::e3d
