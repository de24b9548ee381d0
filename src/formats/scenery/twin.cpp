#include "formats/scenery/twin.hpp"

#include "core/text.hpp"

#include <cstring>

#include <fmt/format.h>

namespace sceneria::scenery {
namespace {

// One LEB128 varint from `p` (left past what was read). The reader refuses all but `ok`: bits
// past 64 would be dropped and a redundant zero byte lost, so either would write back to other
// bytes.
enum class Varint { ok, truncated, past_64_bits, redundant };
Varint read_varint(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t& v) {
  v = 0;
  for (int shift = 0;; shift += 7) {
    if (p >= end) return Varint::truncated;
    const std::uint8_t byte = *p++;
    // The tenth byte holds bit 63 alone; with a continuation bit, it is past 64 bits too (so the
    // loop ends there).
    if (shift == 63 && byte > 1) return Varint::past_64_bits;
    v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if (!(byte & 0x80)) return byte == 0 && shift > 0 ? Varint::redundant : Varint::ok;
  }
}

// A bounds-checked cursor with varints; the first error sticks.
class Cursor {
 public:
  explicit Cursor(std::span<const std::uint8_t> b) : b_(b) {}
  std::uint64_t varint(std::string_view what) {
    const std::size_t start = at_;
    const std::uint8_t* p = b_.data() + at_;
    std::uint64_t v;
    const Varint r = read_varint(p, b_.data() + b_.size(), v);
    at_ = static_cast<std::size_t>(p - b_.data());
    const char* why = nullptr;
    switch (r) {
      case Varint::ok: return v;
      case Varint::truncated:
        return fail(Errc::truncated, start, fmt::format("{} at {:#x}: the file ends inside a varint", what, start)), 0;
      case Varint::past_64_bits: why = "a varint past 64 bits"; break;
      case Varint::redundant: why = "a varint with redundant bytes"; break;
    }
    return fail(Errc::bad_value, start, fmt::format("{} at {:#x}: {}", what, start, why)), 0;
  }
  template <class T>
  T scalar(std::string_view what) {
    T v{};
    if (b_.size() - at_ < sizeof(T)) return fail(Errc::truncated, at_, fmt::format("{} at {:#x}: {} bytes needed, {} remain", what, at_, sizeof(T), b_.size() - at_)), v;
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string_view bytes(std::uint64_t n, std::string_view what) {
    if (b_.size() - at_ < n) return fail(Errc::truncated, at_, fmt::format("{} at {:#x}: {} bytes claimed, {} remain", what, at_, n, b_.size() - at_)), std::string_view();
    std::string_view s(reinterpret_cast<const char*>(b_.data() + at_), n);
    at_ += n;
    return s;
  }
  void fail(Errc code, std::uint64_t offset, std::string message) {
    if (!error_) error_ = Error{code, offset, std::move(message)};
    at_ = b_.size();
  }
  std::size_t at() const { return at_; }
  std::size_t remaining() const { return b_.size() - at_; }
  bool ok() const { return !error_; }
  Error error() const { return error_; }

 private:
  std::span<const std::uint8_t> b_;
  std::size_t at_ = 0;
  Error error_;
};


template <class T>
void put_scalar(std::vector<std::uint8_t>& out, T v) {
  std::uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

std::uint64_t zigzag(std::int64_t v) { return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63); }
std::int64_t unzigzag(std::uint64_t v) { return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

bool has_position(std::uint8_t version) { return version >= 7; }
int position_floats(std::uint8_t version) { return version >= 9 ? 4 : 3; }

void put_entry(std::vector<std::uint8_t>& out, const Twin& t, const TwinEntry& e) {
  switch (e.tag) {
    case EntryTag::token:
    case EntryTag::qtoken:
      put_twin_token(out, e.index, e.tag == EntryTag::qtoken);
      break;
    case EntryTag::include: {
      const std::span<const std::uint32_t> strings(t.include_strings);
      put_twin_include(out, strings.subspan(e.index, e.files), strings.subspan(e.index + e.files, e.params));
      break;
    }
    case EntryTag::int_number:
      put_twin_int(out, e.integer);
      break;
    case EntryTag::f32:
      put_twin_f32(out, static_cast<std::uint32_t>(e.bits));
      break;
    case EntryTag::f64:
      put_twin_f64(out, e.bits);
      break;
    case EntryTag::node:
      break;  // markers are written around their bodies
  }
}

}  // namespace

void put_twin_header(std::vector<std::uint8_t>& out, std::uint8_t version, TwinKind kind, std::uint32_t flags) {
  out.insert(out.end(), {'e', 'u', '7', version, static_cast<std::uint8_t>(kind)});
  put_scalar(out, flags);
}

void put_twin_string(std::vector<std::uint8_t>& out, std::string_view s) {
  append_varint(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

void put_twin_token(std::vector<std::uint8_t>& out, std::uint32_t string_index, bool quoted) {
  const auto tag = quoted ? EntryTag::qtoken : EntryTag::token;
  append_varint(out, (static_cast<std::uint64_t>(string_index) << 3) | static_cast<std::uint64_t>(tag));
}

void put_twin_include(std::vector<std::uint8_t>& out, std::span<const std::uint32_t> files, std::span<const std::uint32_t> params) {
  append_varint(out, static_cast<std::uint64_t>(EntryTag::include));
  append_varint(out, files.size());
  for (std::uint32_t i : files) append_varint(out, i);
  append_varint(out, params.size());
  for (std::uint32_t i : params) append_varint(out, i);
}

void put_twin_int(std::vector<std::uint8_t>& out, std::int64_t value) {
  append_varint(out, static_cast<std::uint64_t>(EntryTag::int_number));
  append_varint(out, zigzag(value));
}

void put_twin_f32(std::vector<std::uint8_t>& out, std::uint32_t bits) {
  append_varint(out, static_cast<std::uint64_t>(EntryTag::f32));
  put_scalar(out, bits);
}

void put_twin_f64(std::vector<std::uint8_t>& out, std::uint64_t bits) {
  append_varint(out, static_cast<std::uint64_t>(EntryTag::f64));
  put_scalar(out, bits);
}

void put_twin_marker(std::vector<std::uint8_t>& out, std::uint8_t version, NodeClass cls, std::uint64_t body_size,
                     const float (&position)[3], float range) {
  append_varint(out, static_cast<std::uint64_t>(EntryTag::node));
  append_varint(out, static_cast<std::uint64_t>(cls));
  append_varint(out, body_size);
  if (cls != NodeClass::visual_pos || !has_position(version)) return;
  for (float v : position) put_scalar(out, v);
  if (position_floats(version) == 4) put_scalar(out, range);
}

namespace {

// The renumbering's own reading and writing: it runs over a whole part of a big bake, serially
// between the parts and the file, so it works on pointers (a vector grown by the byte, or a
// cursor that formats a message per entry, made it the slowest step of a parallel bake).
class Renumberer {
 public:
  explicit Renumberer(std::span<const std::uint32_t> ids) : ids_(ids) {}

  // All of `in` (entries outside markers, or a marker's body) onto `out` from `at`; `out` grows
  // as needed and `at` ends past what was written. False on bytes the baker does not write.
  bool run(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out, std::size_t& at, bool in_body) {
    const std::uint8_t* p = in.data();
    const std::uint8_t* const end = p + in.size();
    while (p < end) {
      std::uint64_t head;
      if (!varint(p, end, head)) return false;
      const auto tag = static_cast<EntryTag>(head & 7);
      if (tag == EntryTag::token || tag == EntryTag::qtoken) {
        if ((head >> 3) >= ids_.size()) return false;
        put(room(out, at, 10), at, (static_cast<std::uint64_t>(ids_[static_cast<std::size_t>(head >> 3)]) << 3) | (head & 7));
        continue;
      }
      if (head > 7) return false;
      const std::uint8_t* const from = p;  // what follows the tag, copied or rewritten
      switch (tag) {
        case EntryTag::int_number: {
          std::uint64_t v;
          if (!varint(p, end, v)) return false;
          break;
        }
        case EntryTag::f32:
        case EntryTag::f64: {
          const std::size_t n = tag == EntryTag::f32 ? 4 : 8;
          if (static_cast<std::size_t>(end - p) < n) return false;
          p += n;
          break;
        }
        case EntryTag::include: {
          put(room(out, at, 1), at, head);
          for (int list = 0; list < 2; ++list) {  // file names, then parameters
            std::uint64_t n;
            if (!varint(p, end, n) || n > static_cast<std::uint64_t>(end - p)) return false;
            put(room(out, at, 10), at, n);
            for (std::uint64_t i = 0; i < n; ++i) {
              std::uint64_t old;
              if (!varint(p, end, old) || old >= ids_.size()) return false;
              put(room(out, at, 10), at, ids_[static_cast<std::size_t>(old)]);
            }
          }
          continue;
        }
        case EntryTag::node: {
          if (in_body) return false;
          std::uint64_t cls, size;
          if (!varint(p, end, cls) || !varint(p, end, size)) return false;
          const std::size_t position = cls == static_cast<std::uint64_t>(NodeClass::visual_pos) && has_position(kTwinVersion)
                                           ? 4 * static_cast<std::size_t>(position_floats(kTwinVersion)) : 0;
          if (static_cast<std::uint64_t>(end - p) < position || static_cast<std::uint64_t>(end - p) - position < size) return false;
          const std::uint8_t* const block = p;
          p += position;
          std::size_t body_size = 0;
          if (!run({p, static_cast<std::size_t>(size)}, body_, body_size, true)) return false;
          p += size;
          room(out, at, 30 + position + body_size);  // tag, class, size, position, body
          put(out.data() + at, at, head);
          put(out.data() + at, at, cls);
          put(out.data() + at, at, body_size);
          std::memcpy(out.data() + at, block, position);
          at += position;
          std::memcpy(out.data() + at, body_.data(), body_size);
          at += body_size;
          continue;
        }
        default:
          return false;
      }
      // A number: its tag and bytes as they were.
      const auto n = static_cast<std::size_t>(p - from);
      std::uint8_t* w = room(out, at, 1 + n);
      *w = static_cast<std::uint8_t>(head);
      std::memcpy(w + 1, from, n);
      at += 1 + n;
    }
    return true;
  }

 private:
  // The baker's own bytes: a redundant zero byte, which it never writes, is let through as before.
  static bool varint(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t& v) {
    const Varint r = read_varint(p, end, v);
    return r == Varint::ok || r == Varint::redundant;
  }
  // Room for `n` more bytes at `at`, growing by half at a time.
  static std::uint8_t* room(std::vector<std::uint8_t>& out, std::size_t at, std::size_t n) {
    if (out.size() - at < n) out.resize(std::max(out.size() + out.size() / 2, at + n));
    return out.data() + at;
  }
  static void put(std::uint8_t* w, std::size_t& at, std::uint64_t v) {  // LEB128, as append_varint
    std::uint8_t* const start = w;
    for (; v >= 0x80; v >>= 7) *w++ = static_cast<std::uint8_t>(v | 0x80);
    *w++ = static_cast<std::uint8_t>(v);
    at += static_cast<std::size_t>(w - start);
  }

  std::span<const std::uint32_t> ids_;
  std::vector<std::uint8_t> body_;  // a marker's body, renumbered before its length is written
};

}  // namespace

Error renumber_twin_entries(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> entries,
                            std::span<const std::uint32_t> ids) {
  std::size_t at = out.size();
  out.resize(at + entries.size() + entries.size() / 8 + 64);
  Renumberer r(ids);
  const bool ok = r.run(entries, out, at, false);
  out.resize(at);
  if (!ok) return Error{Errc::bad_value, 0, "twin entries to renumber are not as the baker writes them"};
  return {};
}

TwinEntry TwinEntry::f32_entry(float v) {
  TwinEntry e;
  e.tag = EntryTag::f32;
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  e.bits = bits;
  e.number = static_cast<double>(v);
  return e;
}

TwinEntry TwinEntry::f64_entry(double v) {
  TwinEntry e;
  e.tag = EntryTag::f64;
  std::memcpy(&e.bits, &v, 8);
  e.number = v;
  return e;
}

void append_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  do {
    std::uint8_t byte = v & 0x7F;
    v >>= 7;
    if (v) byte |= 0x80;
    out.push_back(byte);
  } while (v);
}

std::string_view Twin::text(const TwinEntry& e) const {
  if (e.tag != EntryTag::token && e.tag != EntryTag::qtoken) return {};
  return e.index < strings.size() ? std::string_view(strings[e.index]) : std::string_view();
}

std::string_view Twin::include_string(const TwinEntry& e, std::uint32_t i) const {
  const std::uint64_t at = static_cast<std::uint64_t>(e.index) + i;
  if (e.tag != EntryTag::include || i >= e.files + e.params || at >= include_strings.size()) return {};
  const std::uint32_t s = include_strings[at];
  return s < strings.size() ? std::string_view(strings[s]) : std::string_view();
}

bool is_twin(std::span<const std::uint8_t> head) {
  return head.size() >= 9 && head[0] == 'e' && head[1] == 'u' && head[2] == '7' && head[3] >= kTwinOldestVersion &&
         head[3] <= kTwinVersion && head[4] <= 2;
}

Result<Twin> read_twin(std::span<const std::uint8_t> bytes) {
  Twin t;
  if (bytes.size() < 9) return Error{Errc::truncated, 0, fmt::format("a twin starts with a 9-byte header; the file has {} bytes", bytes.size())};
  if (bytes[0] != 'e' || bytes[1] != 'u' || bytes[2] != '7') return Error{Errc::bad_magic, 0, "not a scenery twin: the file does not start with \"eu7\""};
  t.version = bytes[3];
  if (t.version < kTwinOldestVersion || t.version > kTwinVersion)
    return Error{Errc::unsupported_version, 3, fmt::format("twin version {} (this reader reads {} to {})", t.version, kTwinOldestVersion, kTwinVersion)};
  if (bytes[4] > 2) return Error{Errc::bad_value, 4, fmt::format("twin kind {} (0 scn, 1 inc, 2 scm)", bytes[4])};
  t.kind = static_cast<TwinKind>(bytes[4]);
  std::memcpy(&t.flags, bytes.data() + 5, 4);

  Cursor c(bytes);
  c.bytes(9, "header");
  t.strings_offset = c.at();
  const std::uint64_t count = c.varint("string count");
  // Every string takes at least its one-byte length.
  if (c.ok() && count > c.remaining())
    return Error{Errc::bad_count, t.strings_offset, fmt::format("string table at {:#x} claims {} strings but only {} bytes remain", t.strings_offset, count, c.remaining())};
  t.strings.reserve(count);
  for (std::uint64_t i = 0; i < count && c.ok(); ++i) {
    const std::size_t at = c.at();
    const std::uint64_t n = c.varint("string length");
    const std::string_view s = c.bytes(n, fmt::format("string {} at {:#x}", i, at));
    if (c.ok()) t.strings.emplace_back(s);
  }
  if (!c.ok()) return c.error();
  t.entries_offset = c.at();

  std::uint64_t body_end = 0;  // end of the current marker's body; 0 outside markers
  const auto string_ok = [&](std::uint64_t index, std::size_t at) {
    if (index < t.strings.size()) return true;
    c.fail(Errc::bad_value, at, fmt::format("entry at {:#x} names string {} of {}", at, index, t.strings.size()));
    return false;
  };
  while (c.ok() && c.remaining() > 0) {
    if (body_end && c.at() >= body_end) {
      if (c.at() > body_end)
        return Error{Errc::bad_value, t.markers.back().offset, fmt::format("node marker at {:#x}: its body of {} bytes ends inside an entry", t.markers.back().offset, t.markers.back().span)};
      body_end = 0;
    }
    TwinEntry e;
    e.offset = c.at();
    e.marker = body_end ? static_cast<std::uint32_t>(t.markers.size() - 1) : TwinEntry::kNoMarker;
    const std::uint64_t head = c.varint("entry");
    const std::uint64_t tag = head & 7;
    if (tag == 6) {
      if (head != 6) return Error{Errc::bad_value, e.offset, fmt::format("node marker at {:#x}: head {} (must be 6)", e.offset, head)};
      if (t.version < 6) return Error{Errc::bad_value, e.offset, fmt::format("node marker at {:#x} in a version {} twin (markers came with 6)", e.offset, t.version)};
      if (body_end) return Error{Errc::bad_value, e.offset, fmt::format("node marker at {:#x} inside the node at {:#x} (nodes do not nest)", e.offset, t.markers.back().offset)};
      TwinMarker m;
      m.offset = e.offset;
      const std::uint64_t cls = c.varint("node class");
      if (c.ok() && cls > 2) return Error{Errc::bad_value, e.offset, fmt::format("node marker at {:#x}: class {} (0 infra, 1 visual, 2 visual with position)", e.offset, cls)};
      m.cls = static_cast<NodeClass>(cls);
      m.span = c.varint("node span");
      if (m.cls == NodeClass::visual_pos && has_position(t.version)) {
        m.has_position = true;
        for (float& v : m.position) v = c.scalar<float>("node position");
        if (position_floats(t.version) == 4) m.range = c.scalar<float>("node range");
      }
      if (!c.ok()) return c.error();
      m.body_offset = c.at();
      if (m.span > c.remaining())
        return Error{Errc::truncated, e.offset, fmt::format("node marker at {:#x}: its body claims {} bytes but only {} remain", e.offset, m.span, c.remaining())};
      if (m.span == 0) return Error{Errc::bad_value, e.offset, fmt::format("node marker at {:#x}: an empty body", e.offset)};
      m.first_entry = static_cast<std::uint32_t>(t.entries.size());
      body_end = m.body_offset + m.span;
      t.markers.push_back(m);
      continue;
    }
    e.tag = static_cast<EntryTag>(tag);
    switch (e.tag) {
      case EntryTag::token:
      case EntryTag::qtoken:
        if (!string_ok(head >> 3, e.offset)) break;
        e.index = static_cast<std::uint32_t>(head >> 3);
        break;
      case EntryTag::include: {
        if (head != 1) return Error{Errc::bad_value, e.offset, fmt::format("include at {:#x}: head {} (must be 1)", e.offset, head)};
        e.index = static_cast<std::uint32_t>(t.include_strings.size());
        for (int part = 0; part < 2 && c.ok(); ++part) {
          const std::uint64_t n = c.varint("include count");
          if (c.ok() && n > c.remaining())
            return Error{Errc::bad_count, e.offset, fmt::format("include at {:#x} claims {} strings but only {} bytes remain", e.offset, n, c.remaining())};
          (part == 0 ? e.files : e.params) = static_cast<std::uint32_t>(n);
          for (std::uint64_t i = 0; i < n && c.ok(); ++i) {
            const std::size_t at = c.at();
            const std::uint64_t s = c.varint("include string");
            if (c.ok() && string_ok(s, at)) t.include_strings.push_back(static_cast<std::uint32_t>(s));
          }
        }
        break;
      }
      case EntryTag::int_number:
        if (head != 2) return Error{Errc::bad_value, e.offset, fmt::format("number at {:#x}: head {} (must be 2)", e.offset, head)};
        e.integer = unzigzag(c.varint("integer"));
        e.number = static_cast<double>(e.integer);
        break;
      case EntryTag::f32: {
        if (head != 3) return Error{Errc::bad_value, e.offset, fmt::format("number at {:#x}: head {} (must be 3)", e.offset, head)};
        const auto bits = c.scalar<std::uint32_t>("f32");
        float f;
        std::memcpy(&f, &bits, 4);
        e.bits = bits;
        e.number = static_cast<double>(f);
        break;
      }
      case EntryTag::f64:
        if (head != 4) return Error{Errc::bad_value, e.offset, fmt::format("number at {:#x}: head {} (must be 4)", e.offset, head)};
        e.bits = c.scalar<std::uint64_t>("f64");
        std::memcpy(&e.number, &e.bits, 8);
        break;
      default:
        return Error{Errc::bad_value, e.offset, fmt::format("entry at {:#x}: unknown tag {}", e.offset, tag)};
    }
    if (!c.ok()) return c.error();
    if (e.marker != TwinEntry::kNoMarker) {
      TwinMarker& m = t.markers[e.marker];
      ++m.entry_count;
      if ((e.tag == EntryTag::token || e.tag == EntryTag::qtoken) && iequals(t.text(e), "node")) ++m.nodes;
    }
    t.entries.push_back(e);
  }
  if (!c.ok()) return c.error();
  if (body_end && c.at() != body_end)
    return Error{Errc::truncated, t.markers.back().offset, fmt::format("node marker at {:#x}: the file ends inside its body", t.markers.back().offset)};
  return t;
}

std::vector<std::uint8_t> write_twin(const Twin& t) {
  std::vector<std::uint8_t> out;
  put_twin_header(out, t.version, t.kind, t.flags);
  append_varint(out, t.strings.size());
  for (const std::string& s : t.strings) put_twin_string(out, s);
  std::vector<std::uint8_t> body;
  for (std::size_t i = 0; i < t.entries.size();) {
    const TwinEntry& e = t.entries[i];
    if (e.marker == TwinEntry::kNoMarker || e.marker >= t.markers.size()) {
      put_entry(out, t, e);
      ++i;
      continue;
    }
    const TwinMarker& m = t.markers[e.marker];
    body.clear();
    std::size_t j = i;
    for (; j < t.entries.size() && t.entries[j].marker == e.marker; ++j) put_entry(body, t, t.entries[j]);
    put_twin_marker(out, t.version, m.cls, body.size(), m.position, m.range);
    out.insert(out.end(), body.begin(), body.end());
    i = j;
  }
  return out;
}

bool served(const Twin& twin, const TwinEntry& entry, LoadPass pass) {
  if (pass == LoadPass::all || entry.marker == TwinEntry::kNoMarker || entry.marker >= twin.markers.size()) return true;
  const bool visual = twin.markers[entry.marker].cls != NodeClass::infra;
  return pass == LoadPass::visual ? visual : !visual;
}

std::string_view tag_name(EntryTag tag) {
  switch (tag) {
    case EntryTag::token: return "token";
    case EntryTag::include: return "include";
    case EntryTag::int_number: return "int";
    case EntryTag::f32: return "f32";
    case EntryTag::f64: return "f64";
    case EntryTag::qtoken: return "qtoken";
    case EntryTag::node: return "node";
  }
  return "?";
}

std::string_view class_name(NodeClass cls) {
  switch (cls) {
    case NodeClass::infra: return "infra";
    case NodeClass::visual: return "visual";
    case NodeClass::visual_pos: return "visual_pos";
  }
  return "?";
}

std::string_view kind_name(TwinKind kind) {
  switch (kind) {
    case TwinKind::scn: return "scn";
    case TwinKind::inc: return "inc";
    case TwinKind::scm: return "scm";
  }
  return "?";
}

}  // namespace sceneria::scenery
