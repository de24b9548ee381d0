#include "formats/xray/json.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/text.hpp"
#include "io/json_io.hpp"

namespace sceneria::xray {

namespace {

using njson = nlohmann::json;

// Where a chunk list lies: which of its chunks are containers and which hold names depends on it
// (notes xray-object.md §3-§5), never on what the bytes happen to look like.
enum class Place { file, object, meshes, bones, mesh, bone, leaf };

// The place of the list inside a chunk `id` of a list at `parent` (leaf: the chunk holds bytes).
Place inner_place(Place parent, std::uint32_t id) {
  switch (parent) {
    case Place::file: return id == 0x7777 ? Place::object : Place::leaf;
    case Place::object: return id == 0x0910 ? Place::meshes : id == 0x0921 ? Place::bones : Place::leaf;
    case Place::meshes: return Place::mesh;  // every child of EDITMESHES is a mesh
    case Place::bones: return Place::bone;   // and of BONES2 a bone
    default: return Place::leaf;
  }
}

// The chunks that are one or more stringZ and nothing else: user data, the XRLC shaders, motion
// and LOD references, a mesh's name, a bone's DEF and game material.
bool holds_strings(Place parent, std::uint32_t id) {
  switch (parent) {
    case Place::object: return id == 0x0912 || id == 0x0918 || id == 0x0924 || id == 0x0925;
    case Place::mesh: return id == 0x1001;
    case Place::bone: return id == 0x0002 || id == 0x0004;
    default: return false;
  }
}

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// A name chunk's strings as JSON can hold them: ASCII under "text", other CP1251 under "cp1251"
// (B3D's names' rule); nothing when the bytes are not whole stringZ or CP1251 would not give them
// back (0x98), so the chunk stays hex.
struct Strings {
  const char* key = "text";
  std::vector<std::string> texts;
};
std::optional<Strings> strings_of(std::span<const std::uint8_t> data) {
  if (data.empty() || data.back() != 0) return std::nullopt;
  std::vector<std::string> parts;
  for (auto at = data.begin(); at != data.end();) {
    const auto nul = std::find(at, data.end(), std::uint8_t{0});
    parts.emplace_back(at, nul);
    at = nul + 1;
  }
  Strings s;
  if (std::all_of(parts.begin(), parts.end(), is_ascii)) {
    s.texts = std::move(parts);
    return s;
  }
  s.key = "cp1251";
  for (const std::string& p : parts) {
    std::string utf8, back;
    if (!decode_cp1251(p, utf8) || !encode_cp1251(utf8, back) || back != p) return std::nullopt;
    s.texts.push_back(std::move(utf8));
  }
  return s;
}

class Text {
 public:
  explicit Text(JsonText& t) : t_(t) {}

  void list(const ChunkList& l, Place place) {
    t_.open_array();
    bool object_seen = false;
    for (const Chunk& c : l.chunks) {
      Place inner = inner_place(place, c.id);
      // Only the object chunk read_object decodes is opened: another 0x7777 is kept, not read,
      // and unpacking what nothing has bounded yet would let a file grow without limit.
      if (inner == Place::object) {
        if (object_seen) inner = Place::leaf;
        object_seen = true;
      }
      chunk(c, place, inner);
    }
    t_.close();
  }

 private:
  void chunk(const Chunk& c, Place parent, Place inner) {
    t_.open_object();
    t_.key("id");
    t_.string(chunk_id_text(c.id));
    if (c.packed) {
      t_.key("packed");
      t_.boolean(true);
    }
    body(c, parent, inner);
    if (c.packed && !c.stream.empty()) hex_text(t_, "stream_hex", c.stream);
    t_.close();
  }

  void body(const Chunk& c, Place parent, Place inner) {
    if (inner != Place::leaf) {
      // A container whose bytes are not chunks exactly goes as hex, which still round-trips.
      auto children = read_chunks(c.data, c.offset + 8, chunk_id_text(c.id));
      if (children && children->trailing.empty()) {
        t_.key("chunks");
        return list(*children, inner);
      }
    }
    if (holds_strings(parent, c.id))
      if (auto s = strings_of(c.data)) {
        t_.key(s->key);
        if (s->texts.size() != 1) t_.open_array();
        for (const std::string& text : s->texts) t_.string(text);
        if (s->texts.size() != 1) t_.close();
        return;
      }
    hex_text(t_, "hex", c.data);
  }

  JsonText& t_;
};

// ---- reading back: the tree to bytes, then through read_object, so that the result is what
// read_object gives from the bytes it describes ----

// What an object may be, as open() takes one: 2 GiB (chunk sizes are u32 besides).
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 31;

Error bad(const std::string& path, std::string what) { return Error{Errc::bad_value, 0, path + ": " + what}; }

Error hex_of(const njson& j, const std::string& path, std::vector<std::uint8_t>& out) {
  std::string bytes;
  if (!j.is_string() || !from_hex(j.get_ref<const std::string&>(), bytes)) return bad(path, "not hex");
  out.assign(bytes.begin(), bytes.end());
  return {};
}

// "0x" and 1 to 8 hex digits, below the packed bit (which is "packed": true).
Error id_of(const njson& j, const std::string& path, std::uint32_t& id) {
  const auto refuse = [&] { return bad(path, "expected \"0x\" and up to 8 hex digits, below 0x80000000 (a packed chunk says \"packed\": true)"); };
  if (!j.is_string()) return refuse();
  const std::string& s = j.get_ref<const std::string&>();
  if (s.size() < 3 || s.size() > 10 || s[0] != '0' || s[1] != 'x') return refuse();
  std::uint64_t v = 0;
  for (std::size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return refuse();
    v = v << 4 | static_cast<std::uint64_t>(d);
  }
  if (v & kPackedBit) return refuse();
  id = static_cast<std::uint32_t>(v);
  return {};
}

// One string or a non-empty array of them, each written with its NUL.
Error strings_from(const njson& j, bool cp1251, const std::string& path, std::vector<std::uint8_t>& out) {
  if (!j.is_string() && (!j.is_array() || j.empty())) return bad(path, "expected a string or a non-empty array of strings");
  const std::size_t n = j.is_string() ? 1 : j.size();
  for (std::size_t k = 0; k < n; ++k) {
    const njson& s = j.is_string() ? j : j[k];
    const std::string at = j.is_string() ? path : fmt::format("{}[{}]", path, k);
    if (!s.is_string()) return bad(at, "expected a string");
    const std::string& text = s.get_ref<const std::string&>();
    if (text.find('\0') != std::string::npos) return bad(at, "a string ends at its NUL, so holds none");
    std::string bytes;
    if (!cp1251) {
      if (!is_ascii(text)) return bad(at, "\"text\" is ASCII; other text goes in \"cp1251\"");
      bytes = text;
    } else if (!encode_cp1251(text, bytes)) {
      return bad(at, "has a character CP1251 cannot write");
    }
    out.insert(out.end(), bytes.begin(), bytes.end());
    out.push_back(0);
  }
  return {};
}

Error list_from(const njson& j, const std::string& path, ChunkList& out);

// The chunk's payload from its one body member.
Error body_from(const njson& j, const std::string& path, Chunk& c) {
  std::string body;
  for (const char* key : {"hex", "text", "cp1251", "chunks"}) {
    if (!j.contains(key)) continue;
    if (!body.empty()) return bad(path, fmt::format("holds both \"{}\" and \"{}\"; a chunk has one body", body, key));
    body = key;
  }
  if (body.empty()) return bad(path, "expected one of \"hex\", \"text\", \"cp1251\" or \"chunks\"");
  const njson& v = j[body];
  const std::string at = path + "." + body;
  if (body == "hex") return hex_of(v, at, c.data);
  if (body == "text" || body == "cp1251") return strings_from(v, body == "cp1251", at, c.data);
  ChunkList children;
  if (Error e = list_from(v, at, children)) return e;
  c.data = write_chunks(children);
  return {};
}

Error chunk_from(const njson& j, const std::string& path, Chunk& c) {
  if (!j.is_object()) return bad(path, "expected a chunk: {\"id\": \"0x…\", and its \"hex\", \"text\", \"cp1251\" or \"chunks\"}");
  if (!j.contains("id")) return bad(path + ".id", "missing");
  if (Error e = id_of(j["id"], path + ".id", c.id)) return e;
  if (j.contains("packed")) {
    if (!j["packed"].is_boolean()) return bad(path + ".packed", "expected true or false");
    c.packed = j["packed"].get<bool>();
  }
  if (Error e = body_from(j, path, c)) return e;
  if (c.data.size() >= kMaxBytes) return bad(path, fmt::format("{} bytes, more than an object can hold", c.data.size()));
  if (j.contains("stream_hex")) {
    if (!c.packed) return bad(path + ".stream_hex", "only a packed chunk has a stream");
    if (Error e = hex_of(j["stream_hex"], path + ".stream_hex", c.stream)) return e;
    // A stream that does not claim the payload's size cannot unpack to it: packed anew, and
    // write_chunks never unpacks a size the payload does not bound.
    std::uint32_t claimed = 0;
    if (c.stream.size() >= 4) std::memcpy(&claimed, c.stream.data(), 4);
    if (c.stream.size() < 4 || claimed != c.data.size()) c.stream.clear();
  }
  return {};
}

Error list_from(const njson& j, const std::string& path, ChunkList& out) {
  if (!j.is_array()) return bad(path, "expected an array of chunks");
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < j.size(); ++k) {
    const std::string at = fmt::format("{}[{}]", path, k);
    Chunk& c = out.chunks.emplace_back();
    if (Error e = chunk_from(j[k], at, c)) return e;
    total += 8 + std::max(c.data.size(), c.stream.size());
    if (total >= kMaxBytes) return bad(at, "the chunks so far are more than an object can hold");
  }
  return {};
}

}  // namespace

Error write_xray_json(const File& f, ByteSink& sink, int indent) {
  JsonText t(sink, indent);
  t.open_form("xray", kJsonSchemaVersion);
  t.key("chunks");
  Text(t).list(f.root, Place::file);
  if (!f.root.trailing.empty()) hex_text(t, "trailing_hex", f.root.trailing);
  t.close();
  return t.flush();
}

Result<File> read_xray_json(ByteSource& source) {
  // Hex doubles an object's bytes: a JSON form far past twice what an object may be is not one.
  if (source.size() > 4 * kMaxBytes)
    return Error{Errc::bad_count, 0, fmt::format("{}: a {} byte JSON form is too big to read", source.name(), source.size())};
  // An object is tens of megabytes at most: its JSON is read whole (nested lists, none to stream).
  auto tree = parse_json_streamed(source, [](std::span<const JsonLevel>, njson&) -> Result<bool> { return true; });
  if (!tree) return tree.error();
  const njson& j = *tree;
  if (!j.is_object() || !j.contains("format") || j["format"] != "xray") return Error{Errc::bad_value, 0, "not an X-Ray JSON document (\"format\": \"xray\" missing)"};
  if (!j.contains("schema") || !j["schema"].is_number_integer() || j["schema"].get<int>() != kJsonSchemaVersion)
    return Error{Errc::bad_value, 0, fmt::format("unsupported X-Ray JSON schema (this build reads schema {})", kJsonSchemaVersion)};
  ChunkList root;
  if (!j.contains("chunks")) return bad("chunks", "missing");
  if (Error e = list_from(j["chunks"], "chunks", root)) return e;
  if (j.contains("trailing_hex")) {
    if (Error e = hex_of(j["trailing_hex"], "trailing_hex", root.trailing)) return e;
    if (root.trailing.size() >= 8) return bad("trailing_hex", fmt::format("{} bytes would read as a chunk (trailing bytes are fewer than 8)", root.trailing.size()));
  }
  // Through the bytes: offsets, the decoded object and its warnings as the binary reader makes them.
  return read_object(write_chunks(root));
}

}  // namespace sceneria::xray
