#include "formats/b3d/json.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/b3d/catalogue.hpp"
#include "io/json_io.hpp"

namespace sceneria::b3d {

namespace {

using njson = nlohmann::json;
using ojson = nlohmann::ordered_json;

// A name: ASCII as a string; other bytes as {"cp1251": text}; bytes after the first NUL that are
// not NUL add "tail_hex" (the 32 bytes after the text); what CP1251 cannot say is {"hex": …}.
struct NameForm {
  std::string text, form, tail;
};
NameForm name_form(const Name& n) {
  NameForm f;
  const auto* end = std::find(n.begin(), n.end(), std::uint8_t{0});
  const std::string_view text(reinterpret_cast<const char*>(n.data()), static_cast<std::size_t>(end - n.begin()));
  if (std::any_of(end, n.end(), [](std::uint8_t b) { return b != 0; }))
    f.tail = to_hex(std::string_view(reinterpret_cast<const char*>(end), static_cast<std::size_t>(n.end() - end)));
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) f.text = text;
  else if (decode_cp1251(text, f.text)) f.form = "cp1251";
  else f.form = "hex", f.text = to_hex(text);
  return f;
}

void name_text_json(JsonText& t, const Name& n) {
  const NameForm f = name_form(n);
  if (f.form.empty() && f.tail.empty()) return t.string(f.text);
  t.open_object();
  t.key(f.form.empty() ? "text" : f.form);
  t.string(f.text);
  if (!f.tail.empty()) {
    t.key("tail_hex");
    t.string(f.tail);
  }
  t.close();
}

void value_text(JsonText& t, char kind, const std::uint32_t* w) {
  if (kind == 'f') float_text(t, as_float(*w));
  else if (kind == 'i') t.number(std::int64_t{static_cast<std::int32_t>(*w)});
  else t.number(std::uint64_t{*w});
}

// One repeat of a pattern: a single value as itself, several as an array.
const std::uint32_t* pattern_text(JsonText& t, std::string_view pattern, const std::uint32_t* w) {
  if (pattern == "n") {
    Name n;
    std::memcpy(n.data(), w, 32);
    name_text_json(t, n);
    return w + 8;
  }
  if (pattern.size() > 1) t.open_array();
  for (char c : pattern) value_text(t, c, w++);
  if (pattern.size() > 1) t.close();
  return w;
}

class Text {
 public:
  Text(JsonText& t, const File& f) : t_(t), f_(f) {}

  void items(const std::vector<Item>& list) {
    t_.open_array();
    for (const Item& i : list) {
      if (i.separator()) t_.number(std::uint64_t{marker::group});
      else block(f_.blocks[static_cast<std::size_t>(i.block)]);
    }
    t_.close();
  }

 private:
  void block(const Block& b) {
    t_.open_object();
    t_.key("name");
    name_text_json(t_, b.name);
    t_.key("type");
    t_.number(std::uint64_t{b.type});
    const Layout* layout = layout_of(b.type);
    const std::uint32_t* w = b.words.data();
    std::vector<const std::uint32_t*> starts;
    for (const Field& field : layout->fields) {
      starts.push_back(w);
      using K = Field::Kind;
      switch (field.kind) {
        case K::plain:
          t_.key(field.name);
          w = pattern_text(t_, field.pattern, w);
          break;
        case K::counted: {
          const std::uint32_t n = *starts[static_cast<std::size_t>(field.count_of)];
          t_.key(field.name);
          t_.open_array();
          for (std::uint32_t k = 0; k < n; ++k) w = pattern_text(t_, field.pattern, w);
          t_.close();
          break;
        }
        case K::vertices:
        case K::formatted_vertices:
          if (field.kind == K::formatted_vertices) {
            t_.key("vertex_format");
            t_.number(std::uint64_t{b.vertices.format});
          }
          t_.key("vertices");
          t_.open_array();
          for (std::size_t v = 0; v < b.vertices.count(); ++v) {
            t_.open_array();
            for (std::uint32_t k = 0; k < b.vertices.stride; ++k) float_text(t_, as_float(b.vertices.words[v * b.vertices.stride + k]));
            t_.close();
          }
          t_.close();
          break;
        case K::polygons:
        case K::sprites:
          t_.key("polygons");
          t_.open_array();
          for (const Polygon& p : b.polygons) polygon(b, p, field.kind == K::sprites);
          t_.close();
          break;
        case K::collision:
          t_.key("polygons");
          t_.open_array();
          for (const CollisionPolygon& c : b.collision) {
            t_.open_array();
            for (std::size_t k = 0; k + 3 <= c.points.size(); k += 3) pattern_text(t_, "fff", c.points.data() + k);
            t_.close();
          }
          t_.close();
          break;
        case K::extra_word:
          if (b.extra_word) {
            t_.key(field.name);
            t_.number(std::uint64_t{*w++});
          }
          break;
        case K::children: {
          std::size_t children = 0;
          for (const Item& i : b.items) children += !i.separator();
          if (children != b.child_count) {
            t_.key("child_count");
            t_.number(std::uint64_t{b.child_count});
          }
          break;
        }
      }
    }
    if (b.has_children || !b.items.empty()) {
      t_.key("children");
      items(b.items);
    }
    t_.close();
  }

  void polygon(const Block& b, const Polygon& p, bool sprite) {
    t_.open_object();
    t_.key("format");
    t_.number(std::uint64_t{p.format});
    t_.key("unknown_f");
    float_text(t_, as_float(p.unknown_f));
    t_.key("unknown_i");
    t_.number(std::uint64_t{p.unknown_i});
    t_.key("texnum");
    t_.number(std::uint64_t{p.texnum});
    t_.key("corners");
    t_.open_array();
    for (std::size_t c = 0, n = b.corner_count_of(p); c < n; ++c) {
      t_.open_array();
      const std::uint32_t* w = b.corners_of(p).data() + c * p.corner_words;
      // A polygon's corner starts with its vertex index; a sprite's with two offsets.
      for (std::uint32_t k = 0; k < p.corner_words; ++k) {
        if (k == 0 && !sprite) t_.number(std::uint64_t{w[k]});
        else float_text(t_, as_float(w[k]));
      }
      t_.close();
    }
    t_.close();
    t_.close();
  }

  JsonText& t_;
  const File& f_;
};

// ---- reading back: the tree to a File, then through the writer and reader, so that the result
// is what read_b3d gives from the bytes it describes ----

Error bad(const std::string& path, std::string what) { return Error{Errc::bad_value, 0, path + ": " + what}; }

bool word_of(const njson& j, char kind, std::uint32_t& w) {
  if (kind == 'f') {
    float f;
    if (!float_from_json(j, f)) return false;
    w = float_bits(f);
    return true;
  }
  if (kind == 'i') {
    if (!j.is_number_integer() || j.get<std::int64_t>() < INT32_MIN || j.get<std::int64_t>() > INT32_MAX) return false;
    w = static_cast<std::uint32_t>(static_cast<std::int32_t>(j.get<std::int64_t>()));
    return true;
  }
  if (!j.is_number_unsigned() || j.get<std::uint64_t>() > UINT32_MAX) return false;
  w = static_cast<std::uint32_t>(j.get<std::uint64_t>());
  return true;
}

Error name_from(const njson& j, Name& n, const std::string& path) {
  n = {};
  std::string bytes, tail;
  if (j.is_string()) {
    bytes = j.get<std::string>();
    if (std::any_of(bytes.begin(), bytes.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
      return bad(path, "a plain name is ASCII; other text goes in {\"cp1251\": …}");
  } else if (j.is_object()) {
    bool ok = true;
    if (j.contains("cp1251")) ok = j["cp1251"].is_string() && encode_cp1251(j["cp1251"].get<std::string>(), bytes);
    else if (j.contains("hex")) ok = j["hex"].is_string() && from_hex(j["hex"].get<std::string>(), bytes);
    else if (j.contains("text")) ok = j["text"].is_string(), bytes = ok ? j["text"].get<std::string>() : "";
    if (j.contains("tail_hex")) ok = ok && j["tail_hex"].is_string() && from_hex(j["tail_hex"].get<std::string>(), tail);
    if (!ok) return bad(path, "expected a name: a string, {\"cp1251\": …}, {\"hex\": …}, with \"tail_hex\" if bytes follow its NUL");
  } else {
    return bad(path, "expected a name");
  }
  if (bytes.find('\0') != std::string::npos) return bad(path, "a name's text has no NUL in it");
  if (bytes.size() + tail.size() > 32 || (!tail.empty() && bytes.size() + tail.size() != 32))
    return bad(path, fmt::format("a name is 32 bytes: its text ({}) and tail ({}) do not fit", bytes.size(), tail.size()));
  std::memcpy(n.data(), bytes.data(), bytes.size());
  std::memcpy(n.data() + bytes.size(), tail.data(), tail.size());
  return {};
}

Error pattern_from(const njson& j, std::string_view pattern, std::vector<std::uint32_t>& out, const std::string& path, bool array = false) {
  if (pattern == "n") {
    Name n;
    if (Error e = name_from(j, n, path)) return e;
    const std::size_t at = out.size();
    out.resize(at + 8);
    std::memcpy(out.data() + at, n.data(), 32);
    return {};
  }
  if (pattern.size() == 1 && !array) {
    std::uint32_t w;
    if (!word_of(j, pattern[0], w)) return bad(path, pattern[0] == 'f' ? "expected a number" : "expected an integer");
    out.push_back(w);
    return {};
  }
  if (!j.is_array() || j.size() != pattern.size()) return bad(path, fmt::format("expected {} numbers", pattern.size()));
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    std::uint32_t w;
    if (!word_of(j[k], pattern[k], w)) return bad(fmt::format("{}[{}]", path, k), "expected a number");
    out.push_back(w);
  }
  return {};
}

class Tree {
 public:
  explicit Tree(File& f) : f_(f) {}

  Error items(const njson& list, std::vector<Item>& out, const std::string& path, std::int32_t parent, std::uint32_t depth) {
    if (!list.is_array()) return bad(path, "expected an array");
    for (std::size_t k = 0; k < list.size(); ++k) {
      const njson& i = list[k];
      const std::string at = fmt::format("{}[{}]", path, k);
      if (i.is_number_unsigned() && i.get<std::uint64_t>() == marker::group) {
        out.push_back({});
        continue;
      }
      if (!i.is_object()) return bad(at, "expected a block or 444");
      const auto index = static_cast<std::int32_t>(f_.blocks.size());
      f_.blocks.emplace_back();
      if (Error e = block(i, index, at, parent, depth)) return e;
      out.push_back({index});
    }
    return {};
  }

 private:
  Error block(const njson& j, std::int32_t index, const std::string& path, std::int32_t parent, std::uint32_t depth) {
    if (!j.contains("type") || !j["type"].is_number_unsigned()) return bad(path + ".type", "expected a block type");
    const std::uint32_t type = static_cast<std::uint32_t>(std::min<std::uint64_t>(j["type"].get<std::uint64_t>(), UINT32_MAX));
    const Layout* layout = layout_of(type);
    if (!layout) return bad(path + ".type", fmt::format("{} is not a known block type", type));
    Block b;
    b.type = type, b.parent = parent, b.depth = depth;
    if (!j.contains("name")) return bad(path + ".name", "missing");
    if (Error e = name_from(j["name"], b.name, path + ".name")) return e;
    std::vector<std::size_t> starts;
    for (const Field& field : layout->fields) {
      starts.push_back(b.words.size());
      const std::string at = path + "." + std::string(field.name);
      using K = Field::Kind;
      const auto member = [&]() -> const njson* { return j.contains(field.name) ? &j[std::string(field.name)] : nullptr; };
      switch (field.kind) {
        case K::plain: {
          const njson* m = member();
          if (!m) return bad(at, "missing");
          if (Error e = pattern_from(*m, field.pattern, b.words, at)) return e;
          break;
        }
        case K::counted: {
          const njson* m = member();
          const std::uint32_t n = b.words[starts[static_cast<std::size_t>(field.count_of)]];
          if (!m || !m->is_array()) return bad(at, "expected an array");
          if (m->size() != n)
            return bad(at, fmt::format("holds {} items where \"{}\" says {}", m->size(), layout->fields[static_cast<std::size_t>(field.count_of)].name, n));
          for (std::size_t k = 0; k < m->size(); ++k)
            if (Error e = pattern_from((*m)[k], field.pattern, b.words, fmt::format("{}[{}]", at, k))) return e;
          break;
        }
        case K::vertices:
        case K::formatted_vertices: {
          if (field.kind == K::formatted_vertices) {
            if (!j.contains("vertex_format") || !word_of(j["vertex_format"], 'u', b.vertices.format))
              return bad(path + ".vertex_format", "expected an integer");
          }
          b.vertices.stride = field.kind == K::formatted_vertices ? vertex_layout(b.vertices.format).stride() : 5;
          const njson* m = member();
          if (!m || !m->is_array()) return bad(at, "expected an array");
          for (std::size_t v = 0; v < m->size(); ++v)
            if (Error e = pattern_from((*m)[v], std::string(b.vertices.stride, 'f'), b.vertices.words, fmt::format("{}[{}]", at, v), true)) return e;
          break;
        }
        case K::polygons:
        case K::sprites: {
          const njson* m = member();
          if (!m || !m->is_array()) return bad(at, "expected an array");
          for (std::size_t k = 0; k < m->size(); ++k)
            if (Error e = polygon((*m)[k], b, field.kind == K::sprites, fmt::format("{}[{}]", at, k))) return e;
          break;
        }
        case K::collision: {
          const njson* m = member();
          if (!m || !m->is_array()) return bad(at, "expected an array");
          for (std::size_t k = 0; k < m->size(); ++k) {
            const njson& poly = (*m)[k];
            if (!poly.is_array()) return bad(fmt::format("{}[{}]", at, k), "expected an array of points");
            CollisionPolygon& c = b.collision.emplace_back();
            for (std::size_t p = 0; p < poly.size(); ++p)
              if (Error e = pattern_from(poly[p], "fff", c.points, fmt::format("{}[{}][{}]", at, k, p))) return e;
          }
          break;
        }
        case K::extra_word: {
          const njson* m = member();
          b.extra_word = m != nullptr;
          if (m)
            if (Error e = pattern_from(*m, "u", b.words, at)) return e;
          break;
        }
        case K::children: b.has_children = true; break;
      }
    }
    const njson* children = j.contains("children") ? &j["children"] : nullptr;
    f_.blocks[static_cast<std::size_t>(index)] = std::move(b);
    if (children) {
      std::vector<Item> list;
      if (Error e = items(*children, list, path + ".children", index, depth + 1)) return e;
      f_.blocks[static_cast<std::size_t>(index)].items = std::move(list);
    }
    Block& done = f_.blocks[static_cast<std::size_t>(index)];
    std::uint32_t count = 0;
    for (const Item& i : done.items) count += !i.separator();
    done.child_count = count;
    if (j.contains("child_count") && !word_of(j["child_count"], 'u', done.child_count)) return bad(path + ".child_count", "expected an integer");
    return {};
  }

  Error polygon(const njson& j, Block& b, bool sprite, const std::string& path) {
    if (!j.is_object()) return bad(path, "expected a polygon");
    Polygon p;
    for (const auto& [key, kind, into] : {std::tuple{"format", 'u', &p.format}, std::tuple{"unknown_f", 'f', &p.unknown_f},
                                          std::tuple{"unknown_i", 'u', &p.unknown_i}, std::tuple{"texnum", 'u', &p.texnum}})
      if (!j.contains(key) || !word_of(j[key], kind, *into)) return bad(path + "." + key, "missing or not a number of its kind");
    p.corner_words = corner_layout(p.format, sprite).words();
    if (!j.contains("corners") || !j["corners"].is_array()) return bad(path + ".corners", "expected an array");
    std::string pattern(p.corner_words, 'f');
    if (!sprite) pattern[0] = 'u';
    p.first = b.corners.size();
    for (std::size_t c = 0; c < j["corners"].size(); ++c)
      if (Error e = pattern_from(j["corners"][c], pattern, b.corners, fmt::format("{}.corners[{}]", path, c), true)) return e;
    p.corner_count = static_cast<std::uint32_t>(j["corners"].size());
    b.polygons.push_back(p);
    return {};
  }

  File& f_;
};

Error hex_member(const njson& j, const char* key, std::vector<std::uint8_t>& out) {
  out.clear();
  if (!j.contains(key)) return {};
  std::string bytes;
  if (!j[key].is_string() || !from_hex(j[key].get<std::string>(), bytes)) return bad(key, "bad hex");
  out.assign(bytes.begin(), bytes.end());
  return {};
}

}  // namespace

Error write_b3d_json(const File& f, ByteSink& sink, int indent) {
  JsonText t(sink, indent);
  t.open_form("b3d", kJsonSchemaVersion);
  if (f.incomplete) {
    // Not read to its end: the reason and the file's bytes, which read back to the same break.
    if (f.original.empty()) return Error{Errc::bad_value, f.incomplete->offset, "the file was not read to its end: " + f.incomplete->message};
    t.key("incomplete");
    t.string(f.incomplete->message);
    hex_text(t, "bytes_hex", f.original);
    t.close();
    return t.flush();
  }
  if (f.header != computed_header(f)) {
    t.key("header_as_read");
    t.open_array();
    for (std::uint32_t w : f.header) t.number(std::uint64_t{w});
    t.close();
  }
  for (const auto& [key, bytes] : {std::pair{"lead_hex", &f.lead}, std::pair{"gap_hex", &f.gap}, std::pair{"trailing_hex", &f.trailing}})
    if (!bytes->empty()) hex_text(t, key, *bytes);
  t.key("materials");
  t.open_array();
  for (const Name& m : f.materials) name_text_json(t, m);
  t.close();
  t.key("items");
  Text(t, f).items(f.top);
  t.close();
  return t.flush();
}

Result<File> read_b3d_json(ByteSource& source) {
  // A B3D is a few megabytes at most: its JSON is read whole (nested blocks, so no list to stream).
  auto tree = parse_json_streamed(source, [](std::span<const JsonLevel>, njson&) -> Result<bool> { return true; }, 512);
  if (!tree) return tree.error();
  const njson& j = *tree;
  if (!j.is_object() || j.value("format", "") != "b3d") return Error{Errc::bad_value, 0, "not a B3D JSON document (\"format\": \"b3d\" missing)"};
  if (!j.contains("schema") || !j["schema"].is_number_integer() || j["schema"].get<int>() != kJsonSchemaVersion)
    return Error{Errc::bad_value, 0, fmt::format("unsupported B3D JSON schema (this build reads schema {})", kJsonSchemaVersion)};
  File f;
  if (j.contains("bytes_hex")) {  // a file read up to a break: its bytes
    std::vector<std::uint8_t> bytes;
    if (Error e = hex_member(j, "bytes_hex", bytes)) return e;
    return read_b3d(bytes);
  }
  if (Error e = hex_member(j, "lead_hex", f.lead)) return e;
  if (Error e = hex_member(j, "gap_hex", f.gap)) return e;
  if (Error e = hex_member(j, "trailing_hex", f.trailing)) return e;
  if (!j.contains("materials") || !j["materials"].is_array()) return bad("materials", "expected an array of names");
  for (std::size_t k = 0; k < j["materials"].size(); ++k)
    if (Error e = name_from(j["materials"][k], f.materials.emplace_back(), fmt::format("materials[{}]", k))) return e;
  if (!j.contains("items")) return bad("items", "missing");
  if (Error e = Tree(f).items(j["items"], f.top, "items", -1, 0)) return e;
  if (j.contains("header_as_read")) {
    const njson& h = j["header_as_read"];
    if (!h.is_array() || h.size() != 5) return bad("header_as_read", "expected 5 words");
    for (std::size_t k = 0; k < 5; ++k)
      if (!word_of(h[k], 'u', f.header[k])) return bad(fmt::format("header_as_read[{}]", k), "expected an integer");
  }
  // Through the bytes: offsets, parents and every check as the binary reader makes them.
  auto bytes = write_b3d(f);
  if (!bytes) return bytes.error();
  return read_b3d(*bytes);
}

}  // namespace sceneria::b3d
