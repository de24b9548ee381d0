#include "formats/scenery/twin_json.hpp"

#include <cstring>
#include <unordered_map>

#include <fmt/format.h>

#include "core/text.hpp"
#include "io/json_io.hpp"

namespace sceneria::scenery {
namespace {

using njson = nlohmann::json;

bool has_position(std::uint8_t version, NodeClass cls) { return cls == NodeClass::visual_pos && version >= 7; }
bool has_range(std::uint8_t version, NodeClass cls) { return has_position(version, cls) && version >= 9; }

// Strings a token may name by their text: UTF-8, and the first entry of the table with those bytes
// (a reader finds it again by its text). Others are named by index.
std::unordered_map<std::string_view, std::uint32_t> first_of(const std::vector<std::string>& strings) {
  std::unordered_map<std::string_view, std::uint32_t> first;
  for (std::uint32_t i = 0; i < strings.size(); ++i)
    if (is_valid_utf8(strings[i])) first.emplace(strings[i], i);
  return first;
}

class EntryWriter {
 public:
  EntryWriter(const Twin& t, JsonText& out) : t_(t), out_(out), first_(first_of(t.strings)) {}

  void entry(const TwinEntry& e) {
    switch (e.tag) {
      case EntryTag::token:
        if (named(e.index)) return out_.string(t_.strings[e.index]);
        return member("token", [&] { out_.number(std::uint64_t{e.index}); });
      case EntryTag::qtoken:
        return member("quoted", [&] { reference(e.index); });
      case EntryTag::int_number:
        return out_.number(e.integer);
      case EntryTag::f32:
        return member("f32", [&] {
          const auto bits = static_cast<std::uint32_t>(e.bits);
          float f;
          std::memcpy(&f, &bits, 4);
          float_text(out_, f);
        });
      case EntryTag::f64:
        return member("f64", [&] {
          double d;
          std::memcpy(&d, &e.bits, 8);
          double_text(out_, d);
        });
      case EntryTag::include: {
        out_.open_object();
        for (const bool files : {true, false}) {
          out_.key(files ? "include" : "params");
          out_.open_array();
          const std::uint32_t first = files ? e.index : e.index + e.files, count = files ? e.files : e.params;
          for (std::uint32_t i = 0; i < count; ++i) reference(t_.include_strings[first + i]);
          out_.close();
        }
        return out_.close();
      }
      case EntryTag::node:
        return;  // markers are written around their entries
    }
  }

 private:
  bool named(std::uint32_t index) const {
    const auto it = first_.find(t_.strings[index]);
    return it != first_.end() && it->second == index;
  }
  // A string by its text where it can be found again by it, else by its index.
  void reference(std::uint32_t index) {
    if (named(index)) out_.string(t_.strings[index]);
    else out_.number(std::uint64_t{index});
  }
  template <class F>
  void member(const char* key, F&& value) {
    out_.open_object();
    out_.key(key);
    value();
    out_.close();
  }
  const Twin& t_;
  JsonText& out_;
  std::unordered_map<std::string_view, std::uint32_t> first_;
};

}  // namespace

Error write_twin_json(const Twin& t, ByteSink& sink, int indent) {
  JsonText out(sink, indent);
  out.open_form("scenery-twin", kTwinJsonSchema);
  out.key("version");
  out.number(std::uint64_t{t.version});
  out.key("kind");
  out.string(kind_name(t.kind));
  out.key("flags");
  out.number(std::uint64_t{t.flags});
  out.key("strings");
  out.open_array();
  for (const std::string& s : t.strings) string_text(out, s);
  out.close();
  out.key("entries");
  out.open_array();
  EntryWriter writer(t, out);
  std::uint32_t open_marker = TwinEntry::kNoMarker;
  for (const TwinEntry& e : t.entries) {
    if (e.marker != open_marker) {
      if (open_marker != TwinEntry::kNoMarker) out.close(), out.close();  // its entries, the node
      open_marker = e.marker;
      if (open_marker != TwinEntry::kNoMarker && open_marker < t.markers.size()) {
        const TwinMarker& m = t.markers[open_marker];
        out.open_object();
        out.key("node");
        out.string(class_name(m.cls));
        if (has_position(t.version, m.cls)) {
          out.key("position");
          out.open_array();
          for (float v : m.position) float_text(out, v);
          out.close();
        }
        if (has_range(t.version, m.cls)) {
          out.key("range");
          float_text(out, m.range);
        }
        out.key("entries");
        out.open_array();
      } else {
        open_marker = TwinEntry::kNoMarker;
      }
    }
    writer.entry(e);
  }
  if (open_marker != TwinEntry::kNoMarker) out.close(), out.close();
  out.close();
  out.close();
  return out.flush();
}

namespace {

// The twin as its items arrive (parse_json_streamed's visitor): strings and entries one at a time.
class TwinReader {
 public:
  Result<bool> item(std::span<const JsonLevel> open, njson& item) {
    // open: [document, "strings" | "entries", (a node, its "entries")]
    if (open.size() < 2) return true;
    const auto fail = [&](std::string what) { return Error{Errc::bad_value, 0, fmt::format("{}[{}]: {}", json_path(open), open.back().items, what)}; };
    if (open.size() == 2 && open[1].key == "strings") {
      if (first_built_ || !t_.entries.empty()) return fail("strings must come before entries");
      std::string bytes;
      if (!string_from_json(item, bytes)) return fail("expected a string (or {\"cp1250\": …} / {\"hex\": …})");
      if (Error e = grow(bytes.size() + 1, fail)) return e;
      t_.strings.push_back(std::move(bytes));
      return false;
    }
    if (open[1].key != "entries") return true;
    if (open.size() == 2) {
      if (item.is_object() && item.contains("node")) {
        if (marker_ == TwinEntry::kNoMarker) return fail("a node with no entries (a marker holds at least one)");
        marker_ = TwinEntry::kNoMarker;
        return false;
      }
      if (Error e = entry(item, fail)) return e;
      return false;
    }
    if (open.size() == 4 && open[2].value->is_object() && open[3].key == "entries") {
      if (marker_ == TwinEntry::kNoMarker)
        if (Error e = start_marker(*open[2].value, fail)) return e;
      if (item.is_object() && item.contains("node")) return fail("nodes do not nest");
      if (Error e = entry(item, fail)) return e;
      return false;
    }
    return true;
  }

  Error finish(const njson& doc) {
    if (!doc.is_object()) return Error{Errc::bad_value, 0, "a scenery twin's JSON is an object"};
    const auto format = doc.find("format");
    if (format == doc.end() || *format != "scenery-twin") return Error{Errc::bad_value, 0, "format: expected \"scenery-twin\""};
    const auto schema = doc.find("schema");
    if (schema == doc.end() || !schema->is_number_integer() || *schema != kTwinJsonSchema)
      return Error{Errc::bad_value, 0, fmt::format("schema: this build reads schema {}", kTwinJsonSchema)};
    const auto version = doc.find("version");
    if (version == doc.end() || !version->is_number_unsigned() || *version < kTwinOldestVersion || *version > kTwinVersion)
      return Error{Errc::bad_value, 0, fmt::format("version: expected {} to {}", kTwinOldestVersion, kTwinVersion)};
    t_.version = version->get<std::uint8_t>();
    if (version_seen_ && seen_version_ != t_.version)
      return Error{Errc::bad_value, 0, "version: must come before the entries (a node's position depends on it)"};
    const auto kind = doc.find("kind");
    bool kind_ok = false;
    for (const TwinKind k : {TwinKind::scn, TwinKind::inc, TwinKind::scm})
      if (kind != doc.end() && *kind == kind_name(k)) t_.kind = k, kind_ok = true;
    if (!kind_ok) return Error{Errc::bad_value, 0, "kind: expected \"scn\", \"inc\" or \"scm\""};
    const auto flags = doc.find("flags");
    if (flags == doc.end() || !flags->is_number_unsigned() || *flags > 0xFFFFFFFFu) return Error{Errc::bad_value, 0, "flags: expected an integer from 0 to 4294967295"};
    t_.flags = flags->get<std::uint32_t>();
    if (!doc.contains("strings") || !doc.contains("entries")) return Error{Errc::bad_value, 0, "expected \"strings\" and \"entries\""};
    return {};
  }

  Twin t_;

 private:
  template <class Fail>
  Error grow(std::size_t bytes, const Fail& fail) {
    // A twin is read whole from at most 2 GB (the opener's limit); its JSON says no more.
    size_ += bytes;
    if (size_ > (std::uint64_t{1} << 31)) return fail("the twin would be bigger than 2 GB");
    return {};
  }

  // A string by its text (the first with those bytes) or its index.
  template <class Fail>
  Result<std::uint32_t> reference(const njson& j, const Fail& fail) {
    if (j.is_number_unsigned()) {
      if (j.get<std::uint64_t>() >= t_.strings.size()) return fail(fmt::format("string {} of {}", j.get<std::uint64_t>(), t_.strings.size()));
      return static_cast<std::uint32_t>(j.get<std::uint64_t>());
    }
    if (!j.is_string()) return fail("expected a string or a string's index");
    if (!first_built_) first_ = first_of(t_.strings), first_built_ = true;
    const auto it = first_.find(j.get_ref<const std::string&>());
    if (it == first_.end()) return fail(fmt::format("\"{}\" is not among the strings (add it there)", j.get_ref<const std::string&>()));
    return it->second;
  }

  template <class Fail>
  Error entry(const njson& j, const Fail& fail) {
    if (Error e = grow(16, fail)) return e;  // an entry's bytes, with room for its record here
    TwinEntry e;
    e.marker = marker_;
    if (j.is_string()) {
      auto index = reference(j, fail);
      if (!index) return index.error();
      e.tag = EntryTag::token;
      e.index = *index;
    } else if (j.is_number_integer()) {
      e.tag = EntryTag::int_number;
      if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return fail("an integer beyond 64 bits");
      e.integer = j.get<std::int64_t>();
    } else if (j.is_object() && j.size() == 1 && (j.contains("token") || j.contains("quoted"))) {
      const bool quoted = j.contains("quoted");
      const njson& v = quoted ? j["quoted"] : j["token"];
      if (!quoted && !v.is_number_unsigned()) return fail("token: expected a string's index (a word is written as a string)");
      auto index = reference(v, fail);
      if (!index) return index.error();
      e.tag = quoted ? EntryTag::qtoken : EntryTag::token;
      e.index = *index;
    } else if (j.is_object() && j.size() == 1 && j.contains("f32")) {
      float f;
      if (!float_from_json(j["f32"], f)) return fail("f32: expected a float (or \"0x…\" bits)");
      e = TwinEntry::f32_entry(f);
      e.marker = marker_;
    } else if (j.is_object() && j.size() == 1 && j.contains("f64")) {
      double d;
      if (!double_from_json(j["f64"], d)) return fail("f64: expected a number (or \"0x…\" bits)");
      e = TwinEntry::f64_entry(d);
      e.marker = marker_;
    } else if (j.is_object() && j.contains("include")) {
      const auto params = j.find("params");
      if (!j["include"].is_array() || (params != j.end() && !params->is_array()) || j.size() != (params != j.end() ? 2u : 1u))
        return fail("include: expected {\"include\": [files…], \"params\": [words…]}");
      e.tag = EntryTag::include;
      e.index = static_cast<std::uint32_t>(t_.include_strings.size());
      for (const bool files : {true, false}) {
        const njson& list = files ? j["include"] : params != j.end() ? *params : njson::array();
        if (Error g = grow(list.size() * 4, fail)) return g;
        for (const njson& s : list) {
          auto index = reference(s, fail);
          if (!index) return index.error();
          t_.include_strings.push_back(*index);
        }
        (files ? e.files : e.params) = static_cast<std::uint32_t>(list.size());
      }
    } else {
      return fail("expected a word (a string), an integer, or {\"quoted\"|\"token\"|\"f32\"|\"f64\"|\"include\"|\"node\": …}");
    }
    t_.entries.push_back(e);
    return {};
  }

  // A node marker, from what its object says before its entries.
  template <class Fail>
  Error start_marker(const njson& node, const Fail& fail) {
    TwinMarker m;
    const auto cls = node.find("node");
    bool cls_ok = false;
    for (const NodeClass c : {NodeClass::infra, NodeClass::visual, NodeClass::visual_pos})
      if (cls != node.end() && *cls == class_name(c)) m.cls = c, cls_ok = true;
    if (!cls_ok) return fail("node: expected \"infra\", \"visual\" or \"visual_pos\" before its entries");
    // The document's version, which says whether a marker has a position, comes first.
    if (!version_seen_) return fail("the document's \"version\" must come before the entries");
    if (has_position(seen_version_, m.cls)) {
      const auto p = node.find("position");
      if (p == node.end() || !p->is_array() || p->size() != 3 || !float_from_json((*p)[0], m.position[0]) ||
          !float_from_json((*p)[1], m.position[1]) || !float_from_json((*p)[2], m.position[2]))
        return fail("position: expected [x, y, z] before the node's entries");
      m.has_position = true;
    } else if (node.contains("position")) {
      return fail(fmt::format("position: a version {} {} node has none", seen_version_, class_name(m.cls)));
    }
    if (has_range(seen_version_, m.cls)) {
      const auto r = node.find("range");
      if (r == node.end() || !float_from_json(*r, m.range)) return fail("range: expected a float before the node's entries");
    } else if (node.contains("range")) {
      return fail(fmt::format("range: a version {} {} node has none", seen_version_, class_name(m.cls)));
    }
    marker_ = static_cast<std::uint32_t>(t_.markers.size());
    t_.markers.push_back(m);
    return {};
  }

 public:
  // The version as the document says it before its entries.
  void saw_version(const njson& doc) {
    if (version_seen_) return;
    const auto v = doc.find("version");
    if (v != doc.end() && v->is_number_unsigned() && *v >= kTwinOldestVersion && *v <= kTwinVersion) {
      seen_version_ = v->get<std::uint8_t>();
      version_seen_ = true;
    }
  }

 private:
  std::unordered_map<std::string_view, std::uint32_t> first_;  // keys in t_.strings: complete before it is built
  bool first_built_ = false;
  std::uint32_t marker_ = TwinEntry::kNoMarker;
  std::uint64_t size_ = 0;
  std::uint8_t seen_version_ = 0;
  bool version_seen_ = false;
};

}  // namespace

Result<TwinFromJson> read_twin_json(ByteSource& source) {
  TwinReader reader;
  auto doc = parse_json_streamed(source, [&](std::span<const JsonLevel> open, njson& item) -> Result<bool> {
    reader.saw_version(*open[0].value);
    return reader.item(open, item);
  });
  if (!doc) return doc.error();
  if (Error e = reader.finish(*doc)) return e;
  // The bytes it describes, read back: every check of read_twin then holds.
  TwinFromJson out;
  out.bytes = write_twin(reader.t_);
  auto twin = read_twin(out.bytes);
  if (!twin) return twin.error();
  out.twin = std::move(twin).value();
  return out;
}

}  // namespace sceneria::scenery
