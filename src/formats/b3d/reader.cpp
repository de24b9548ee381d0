// One pass over a B3D's words: the header, the material list, then the data section's markers and
// blocks, each payload read by its catalogue layout with every count checked against the bytes
// left. Nesting is kept on an explicit stack (a hostile file nested a million deep costs memory
// for its blocks, never the call stack).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/text.hpp"
#include "formats/b3d/b3d.hpp"
#include "formats/b3d/catalogue.hpp"

namespace sceneria::b3d {

float as_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

std::string name_text(const Name& name) {
  const auto* end = std::find(name.begin(), name.end(), std::uint8_t{0});
  return display_cp1251(std::string_view(reinterpret_cast<const char*>(name.data()), static_cast<std::size_t>(end - name.begin())));
}

std::string_view type_label(std::uint32_t type) {
  const Layout* l = layout_of(type);
  return l ? l->label : std::string_view("unknown");
}

std::array<std::uint32_t, 3> triangle(std::size_t n, bool strip, std::size_t t) {
  const auto i = static_cast<std::uint32_t>(t);
  if (strip) return t % 2 == 0 ? std::array{i, i + 1, i + 2} : std::array{i, i + 2, i + 1};
  if (t % 2 == 0) return {t == 0 ? static_cast<std::uint32_t>(n - 1) : i - 1, i, i + 1};
  return {i, i + 1, i + 2};
}

std::vector<std::array<std::uint32_t, 3>> triangulate(std::size_t n, bool strip) {
  std::vector<std::array<std::uint32_t, 3>> out;
  for (std::size_t t = 0; t + 2 < n; ++t) out.push_back(triangle(n, strip, t));
  return out;
}

VertexLayout vertex_layout(std::uint32_t format) {
  VertexLayout v;
  v.extra_uvs = (format >> 8) & 0xFFu;
  const std::uint32_t mode = format & 0xFFu;
  // Modes 1 and 2 store a normal; 3 (and 0, as the public exporter writes it) one scalar.
  v.normal = mode == 1 || mode == 2 ? 3 : 1;
  return v;
}

namespace {

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : b_(bytes) {}

  Result<File> read() {
    if (b_.size() < 24 || std::memcmp(b_.data(), "b3d\0", 4) != 0)
      return Error{Errc::bad_magic, 0, "not a B3D file (it does not start with \"b3d\\0\")"};
    at_ = 4;
    for (std::uint32_t& w : f_.header) w = word();
    if (Error e = materials()) return e;
    data();
    if (f_.incomplete) f_.original.assign(b_.begin(), b_.end());
    return std::move(f_);
  }

 private:
  // ---- words ----
  std::uint64_t left() const { return b_.size() - at_; }
  std::uint32_t word() {
    std::uint32_t w = 0;
    std::memcpy(&w, b_.data() + at_, 4);
    at_ += 4;
    return w;
  }
  // What a count is of, for messages: a field, or item `index` of a list. Written out only when
  // a count does not fit, since the polygon lists check every polygon.
  struct What {
    std::string_view name;
    std::int64_t index = -1;
    What(const char* n) : name(n) {}
    What(std::string_view n) : name(n) {}
    What(std::string_view n, std::uint32_t i) : name(n), index(i) {}
    std::string text() const { return index < 0 ? std::string(name) : fmt::format("{} {}", name, index); }
  };
  // Whether `count` items of `words` words each fit in what is left; else the read stops there.
  // Multiplied, not divided: a division per polygon was the read's dearest instruction.
  bool fits(std::uint64_t count, std::uint64_t words, const What& what) {
    std::uint64_t total;
    return (!__builtin_mul_overflow(count, words, &total) && total <= left() / 4) || refuse(count, words, what);
  }
  // Out of line, so that the check above inlines into the loops that make it per polygon.
  [[gnu::noinline]] bool refuse(std::uint64_t count, std::uint64_t words, const What& what) {
    stop(Errc::bad_count, fmt::format("{}{} claims {} {} but only {} bytes remain", where(), what.text(), count, words == 1 ? "words" : "items", left()));
    return false;
  }
  bool take(std::vector<std::uint32_t>& out, std::uint64_t n, const What& what) {
    if (!fits(n, 1, what)) return false;
    if (n == 0) return true;  // memcpy of nothing still wants real pointers, and an empty vector has none
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(n));
    std::memcpy(out.data() + at, b_.data() + at_, static_cast<std::size_t>(n) * 4);
    at_ += n * 4;
    return true;
  }

  // The headers of the next polygons into `polygons` (their corners placed one after another
  // from `first`), up to the first that does not fit: how many fit, and the corner words they
  // take. The corners are then sized once and copied (growing them polygon by polygon was a
  // fifth of the read in WebAssembly).
  struct Ahead {
    std::uint32_t fit = 0;
    std::size_t words = 0;
  };
  Ahead polygons_ahead(std::vector<Polygon>& polygons, std::size_t first, bool sprite) const {
    Ahead a;
    std::size_t at = static_cast<std::size_t>(at_);
    for (; a.fit < polygons.size() && b_.size() - at >= kPolygonHead; ++a.fit) {
      const PolygonHead h = polygon_head(at);
      const std::uint64_t each = corner_layout(h.format, sprite).words(), left_words = (b_.size() - at - kPolygonHead) / 4;
      if (h.corners * each > left_words) break;  // at most 2^32 corners of 515 words: no overflow
      Polygon& p = polygons[a.fit];
      p.format = h.format, p.unknown_f = h.unknown_f, p.unknown_i = h.unknown_i, p.texnum = h.texnum;
      p.corner_words = static_cast<std::uint32_t>(each);
      p.first = first + a.words;
      p.corner_count = h.corners;
      a.words += h.corners * each;
      at += kPolygonHead + h.corners * each * 4;
    }
    return a;
  }
  // A polygon's header: format, two unknown words, texture number, corner count.
  static constexpr std::size_t kPolygonHead = 20;
  struct PolygonHead {
    std::uint32_t format, unknown_f, unknown_i, texnum, corners;
  };
  static_assert(sizeof(PolygonHead) == kPolygonHead);
  PolygonHead polygon_head(std::size_t at) const {
    PolygonHead h;
    std::memcpy(&h, b_.data() + at, kPolygonHead);
    return h;
  }

  void stop(Errc code, std::string message) {
    if (!f_.incomplete) f_.incomplete = Error{code, block_at_, std::move(message)};
  }
  // "block 35 "road" at 0x1f2c (in "ks" / "lod"): " — for messages.
  std::string where() const {
    std::string path;
    for (std::int32_t p : open_) path += (path.empty() ? "" : " / ") + fmt::format("\"{}\"", name_text(f_.blocks[static_cast<std::size_t>(p)].name));
    return fmt::format("block {} \"{}\" at {:#x}{}: ", type_, name_text(name_), block_at_, path.empty() ? "" : " (in " + path + ")");
  }

  Error materials() {
    const std::uint64_t at = std::uint64_t{f_.header[1]} * 4;
    if (at < 24 || at + 4 > b_.size())
      return Error{Errc::bad_value, 8, fmt::format("the material list offset ({} words) lies outside the {}-byte file", f_.header[1], b_.size())};
    f_.lead.assign(b_.begin() + 24, b_.begin() + static_cast<std::ptrdiff_t>(at));
    at_ = at;
    const std::uint32_t n = word();
    if (n > left() / 32)
      return Error{Errc::bad_count, at, fmt::format("the material list at {:#x} claims {} names but only {} bytes remain", at, n, left())};
    f_.materials.resize(n);
    for (Name& m : f_.materials) {
      std::memcpy(m.data(), b_.data() + at_, 32);
      at_ += 32;
    }
    const std::uint64_t data_at = std::uint64_t{f_.header[3]} * 4;
    if (data_at < at_ || data_at + 4 > b_.size())
      return Error{Errc::bad_value, 16,
                   fmt::format("the data section offset ({} words, byte {:#x}) does not follow the material list, which ends at {:#x}",
                               f_.header[3], data_at, at_)};
    f_.gap.assign(b_.begin() + static_cast<std::ptrdiff_t>(at_), b_.begin() + static_cast<std::ptrdiff_t>(data_at));
    at_ = data_at_ = data_at;
    if (word() != marker::data_begin) return Error{Errc::bad_value, data_at, fmt::format("the data section at {:#x} does not start with 111", data_at)};
    return {};
  }

  std::vector<Item>& items() { return open_.empty() ? f_.top : f_.blocks[static_cast<std::size_t>(open_.back())].items; }

  void data() {
    for (;;) {
      block_at_ = at_, type_ = 0, name_ = {};
      if (left() < 4) {
        stop(Errc::truncated, fmt::format("the data section ends at {:#x} without 222{}", at_,
                                          open_.empty() ? "" : fmt::format(", {} block{} still open", open_.size(), open_.size() == 1 ? "" : "s")));
        return;
      }
      const std::uint32_t w = word();
      if (w == marker::group) {
        items().push_back({});
      } else if (w == marker::block_begin) {
        if (!block()) return;
      } else if (w == marker::block_end) {
        if (open_.empty()) return stop(Errc::bad_value, fmt::format("555 at {:#x} closes no block", block_at_));
        const Block& b = f_.blocks[static_cast<std::size_t>(open_.back())];
        std::size_t children = 0;
        for (const Item& i : b.items) children += !i.separator();
        if (b.has_children && children != b.child_count)
          f_.warnings.push_back({{}, b.offset, 0, 0,
                                 fmt::format("block {} \"{}\" at {:#x} says {} children and holds {}", b.type, name_text(b.name), b.offset,
                                             b.child_count, children)});
        if (!b.has_children && children > 0)
          f_.warnings.push_back({{}, b.offset, 0, 0, fmt::format("block {} \"{}\" at {:#x} takes no children but holds {}", b.type, name_text(b.name), b.offset, children)});
        open_.pop_back();
      } else if (w == marker::data_end) {
        if (!open_.empty()) {
          const Block& b = f_.blocks[static_cast<std::size_t>(open_.back())];
          return stop(Errc::bad_value, fmt::format("222 at {:#x} ends the data section with block {} \"{}\" at {:#x} still open", block_at_, b.type,
                                                   name_text(b.name), b.offset));
        }
        f_.trailing.assign(b_.begin() + static_cast<std::ptrdiff_t>(at_), b_.end());
        check_header(at_ - data_at_);
        return;
      } else {
        std::string inside;
        if (!open_.empty()) {
          const Block& b = f_.blocks[static_cast<std::size_t>(open_.back())];
          inside = fmt::format(" (in block {} \"{}\" at {:#x}: a payload of another size?)", b.type, name_text(b.name), b.offset);
        }
        return stop(Errc::bad_value, fmt::format("expected a marker (333, 444, 555 or 222) at {:#x}, found {}{}", block_at_, w, inside));
      }
    }
  }

  bool block() {
    if (left() < 36) {
      stop(Errc::truncated, fmt::format("block at {:#x} is cut off by the end of the file", block_at_));
      return false;
    }
    Block b;
    b.offset = block_at_;
    std::memcpy(b.name.data(), b_.data() + at_, 32);
    at_ += 32;
    b.type = word();
    name_ = b.name, type_ = b.type;
    b.parent = open_.empty() ? -1 : open_.back();
    b.depth = static_cast<std::uint32_t>(open_.size());
    const Layout* layout = layout_of(b.type);
    if (!layout) {
      stop(Errc::bad_value, fmt::format("{}not a known block type; blocks carry no length, so nothing after it can be read", where()));
      return false;
    }
    b.words.reserve(layout->plain_words);
    // The words each field begins at, for counted fields to find their counts (one vector for
    // every block).
    starts_.clear();
    for (const Field& field : layout->fields) {
      starts_.push_back(b.words.size());
      if (!payload(b, field, starts_)) return false;
    }
    const auto index = static_cast<std::int32_t>(f_.blocks.size());
    items().push_back({index});
    f_.blocks.push_back(std::move(b));
    open_.push_back(index);
    return true;
  }

  bool payload(Block& b, const Field& field, const std::vector<std::size_t>& starts) {
    using K = Field::Kind;
    switch (field.kind) {
      case K::plain: return take(b.words, field.words, field.name);
      case K::counted: {
        const std::uint32_t n = b.words[starts[static_cast<std::size_t>(field.count_of)]];
        return fits(n, field.words, field.name) && take(b.words, std::uint64_t{n} * field.words, field.name);
      }
      case K::vertices:
      case K::formatted_vertices: {
        const bool formatted = field.kind == K::formatted_vertices;
        if (!fits(formatted ? 2 : 1, 1, "its vertex count")) return false;
        if (formatted) b.vertices.format = word();
        b.vertices.stride = formatted ? vertex_layout(b.vertices.format).stride() : 5;
        const std::uint32_t n = word();
        return fits(n, b.vertices.stride, "its vertex list") && take(b.vertices.words, std::uint64_t{n} * b.vertices.stride, "its vertex list");
      }
      case K::polygons:
      case K::sprites: {
        if (!fits(1, 1, "its polygon count")) return false;
        const std::uint32_t n = word();
        if (!fits(n, kPolygonHead / 4, "its polygon list")) return false;
        b.polygons.resize(n);
        const Ahead a = polygons_ahead(b.polygons, b.corners.size(), field.kind == K::sprites);
        b.corners.resize(b.corners.size() + a.words);
        for (std::uint32_t k = 0; k < a.fit; ++k) {
          const Polygon& p = b.polygons[k];
          const std::size_t words = std::size_t{p.corner_count} * p.corner_words;
          if (words) std::memcpy(b.corners.data() + p.first, b_.data() + at_ + kPolygonHead, words * 4);
          at_ += kPolygonHead + words * 4;
        }
        if (a.fit == n) return true;
        // The polygon that does not fit, read as far as it goes for the message.
        const What polygon{"polygon", a.fit};
        if (!fits(kPolygonHead / 4, 1, polygon)) return false;
        const PolygonHead h = polygon_head(static_cast<std::size_t>(at_));
        at_ += kPolygonHead;
        if (!fits(h.corners, corner_layout(h.format, field.kind == K::sprites).words(), polygon)) return false;
        stop(Errc::bad_count, fmt::format("{}{} was read ahead and did not fit, and does now (a bug)", where(), polygon.text()));
        return false;
      }
      case K::collision: {
        if (!fits(1, 1, "its polygon count")) return false;
        const std::uint32_t n = word();
        if (!fits(n, 1, "its polygon list")) return false;
        b.collision.resize(n);
        for (std::uint32_t k = 0; k < n; ++k) {
          const What polygon{"collision polygon", k};
          if (!fits(1, 1, polygon)) return false;
          const std::uint32_t points = word();
          if (!fits(points, 3, polygon) || !take(b.collision[k].points, std::uint64_t{points} * 3, polygon))
            return false;
        }
        return true;
      }
      case K::extra_word: {
        // Block 39 as the public exporter writes it has one word more before its child count than
        // the other readers expect: the child count is the word a marker follows.
        if (!fits(2, 1, "its child count")) return false;
        std::uint32_t after = 0;
        std::memcpy(&after, b_.data() + at_ + 4, 4);
        b.extra_word = after != marker::block_begin && after != marker::group && after != marker::block_end;
        if (b.extra_word) b.words.push_back(word());
        return true;
      }
      case K::children:
        if (!fits(1, 1, "its child count")) return false;
        b.has_children = true;
        b.child_count = word();
        return true;
    }
    return false;
  }

  // A file read whole writes back the bytes it was read from (tests/b3d_test.cpp compares them),
  // so the header its contents make is the one of the data section as read: counting what the
  // writer would write (computed_header) came to a tenth of the read.
  void check_header(std::uint64_t data_bytes) {
    const auto computed = header_for(f_, data_bytes);
    if (computed == f_.header) return;
    static constexpr const char* kWhat[] = {"file length", "material list offset", "material list length", "data offset", "data length"};
    for (std::size_t i = 0; i < 5; ++i)
      if (computed[i] != f_.header[i])
        f_.warnings.push_back({{}, 4 + 4 * i, 0, 0,
                               fmt::format("the header's {} is {} words where the file's contents make {} (kept as read)", kWhat[i],
                                           f_.header[i], computed[i])});
  }

  std::span<const std::uint8_t> b_;
  std::uint64_t at_ = 0, data_at_ = 0;
  File f_;
  std::vector<std::int32_t> open_;
  std::vector<std::size_t> starts_;
  // The block being read, for messages.
  std::uint64_t block_at_ = 0;
  std::uint32_t type_ = 0;
  Name name_{};
};

}  // namespace

Result<File> read_b3d(std::span<const std::uint8_t> bytes) { return Reader(bytes).read(); }

}  // namespace sceneria::b3d
