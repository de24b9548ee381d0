// The blocks back to bytes, each payload in its catalogue layout: a file read whole is written
// back byte for byte (its lists hold the words read, and the counts are their sizes).
#include <cstring>

#include <fmt/format.h>

#include "formats/b3d/b3d.hpp"
#include "formats/b3d/catalogue.hpp"

namespace sceneria::b3d {

namespace {

// Where the data section goes: its bytes, or only how many there are (the reader checks the
// header against the size the writer would write, which need not write it).
struct ToBytes {
  std::vector<std::uint8_t>& out;
  void append(const void* p, std::size_t n) {
    if (n == 0) return;
    const std::size_t at = out.size();
    out.resize(at + n);
    std::memcpy(out.data() + at, p, n);
  }
};
struct ToCount {
  std::uint64_t bytes = 0;
  void append(const void*, std::size_t n) { bytes += n; }
};

template <class Sink>
class Writer {
 public:
  Writer(const File& f, Sink& out) : f_(f), out_(out) {}

  // The data section, from its 111 to its 222.
  Error data() {
    put(marker::data_begin);
    if (Error e = items(f_.top, 0)) return e;
    put(marker::data_end);
    return {};
  }

 private:
  void put(std::uint32_t w) { out_.append(&w, 4); }
  void put(const std::vector<std::uint32_t>& words, std::size_t from, std::size_t n) {
    if (n) out_.append(words.data() + from, n * 4);
  }

  Error items(const std::vector<Item>& list, std::uint32_t depth) {
    // Depth-first with a stack of (list, position), so a deep file costs no call stack.
    struct Open {
      const std::vector<Item>* list;
      std::size_t next;
      const Block* block;
    };
    std::vector<Open> stack{{&list, 0, nullptr}};
    (void)depth;
    while (!stack.empty()) {
      Open& top = stack.back();
      if (top.next == top.list->size()) {
        if (top.block) put(marker::block_end);
        stack.pop_back();
        continue;
      }
      const Item item = (*top.list)[top.next++];
      if (item.separator()) {
        put(marker::group);
        continue;
      }
      if (item.block < 0 || static_cast<std::size_t>(item.block) >= f_.blocks.size())
        return Error{Errc::bad_value, 0, fmt::format("an item names block {}, and there are {}", item.block, f_.blocks.size())};
      const Block& b = f_.blocks[static_cast<std::size_t>(item.block)];
      if (Error e = block(b)) return e;
      stack.push_back({&b.items, 0, &b});
    }
    return {};
  }

  Error block(const Block& b) {
    const Layout* layout = layout_of(b.type);
    if (!layout) return Error{Errc::bad_value, b.offset, fmt::format("block \"{}\": type {} has no known layout", name_text(b.name), b.type)};
    put(marker::block_begin);
    out_.append(b.name.data(), 32);
    put(b.type);
    std::size_t w = 0;  // next of b.words
    starts_.clear();  // where each field's words start in b.words
    const auto plain_words = [&](std::size_t n) -> Error {
      if (w + n > b.words.size())
        return Error{Errc::bad_value, b.offset, fmt::format("block {} \"{}\" holds {} words where its layout needs more", b.type, name_text(b.name), b.words.size())};
      put(b.words, w, n);
      w += n;
      return {};
    };
    using K = Field::Kind;
    for (const Field& field : layout->fields) {
      starts_.push_back(w);
      switch (field.kind) {
        case K::plain:
          if (Error e = plain_words(field.words)) return e;
          break;
        case K::counted: {
          const std::size_t c = starts_[static_cast<std::size_t>(field.count_of)];
          if (c >= b.words.size()) return Error{Errc::bad_value, b.offset, fmt::format("block {}: no count for {}", b.type, field.name)};
          if (Error e = plain_words(std::size_t{b.words[c]} * field.words)) return e;
          break;
        }
        case K::vertices:
        case K::formatted_vertices:
          if (field.kind == K::formatted_vertices) put(b.vertices.format);
          put(static_cast<std::uint32_t>(b.vertices.count()));
          put(b.vertices.words, 0, b.vertices.count() * b.vertices.stride);
          break;
        case K::polygons:
        case K::sprites:
          put(static_cast<std::uint32_t>(b.polygons.size()));
          for (const Polygon& p : b.polygons) {
            put(p.format), put(p.unknown_f), put(p.unknown_i), put(p.texnum), put(static_cast<std::uint32_t>(b.corner_count_of(p)));
            put(b.corners, p.first, b.corners_of(p).size());
          }
          break;
        case K::collision:
          put(static_cast<std::uint32_t>(b.collision.size()));
          for (const CollisionPolygon& c : b.collision) {
            put(static_cast<std::uint32_t>(c.points.size() / 3));
            put(c.points, 0, c.points.size() / 3 * 3);
          }
          break;
        case K::extra_word:
          if (b.extra_word)
            if (Error e = plain_words(1)) return e;
          break;
        case K::children: put(b.child_count); break;
      }
    }
    if (w != b.words.size())
      return Error{Errc::bad_value, b.offset, fmt::format("block {} \"{}\" holds {} words where its layout takes {}", b.type, name_text(b.name), b.words.size(), w)};
    return {};
  }

  const File& f_;
  Sink& out_;
  std::vector<std::size_t> starts_;  // reused from block to block
};

}  // namespace

std::array<std::uint32_t, 5> header_for(const File& f, std::uint64_t data_bytes) {
  const std::uint64_t materials = 4 + 32 * std::uint64_t{f.materials.size()};
  const std::uint64_t data_at = 24 + f.lead.size() + materials + f.gap.size();
  const std::uint64_t total = data_at + data_bytes + f.trailing.size();
  return {static_cast<std::uint32_t>(total / 4), static_cast<std::uint32_t>((24 + f.lead.size()) / 4), static_cast<std::uint32_t>(materials / 4),
          static_cast<std::uint32_t>(data_at / 4), static_cast<std::uint32_t>(data_bytes / 4)};
}

std::array<std::uint32_t, 5> computed_header(const File& file) {
  ToCount count;
  if (Writer(file, count).data()) return {};
  return header_for(file, count.bytes);
}

Result<std::vector<std::uint8_t>> write_b3d(const File& file) {
  if (file.incomplete) {
    if (file.original.empty())
      return Error{Errc::bad_value, file.incomplete->offset, "the file was not read to its end (" + file.incomplete->message + "), so it cannot be written back"};
    return file.original;
  }
  std::vector<std::uint8_t> data;
  ToBytes to{data};
  if (Error e = Writer(file, to).data()) return e;
  const auto computed = header_for(file, data.size());
  // A header the file's own contents disagreed with is written as it was read.
  const bool as_read = file.header != std::array<std::uint32_t, 5>{} && file.header != computed;
  const auto& header = as_read ? file.header : computed;
  std::vector<std::uint8_t> out;
  out.reserve(24 + 4 + 32 * file.materials.size() + file.gap.size() + data.size() + file.trailing.size());
  const auto put = [&](std::uint32_t w) {
    const std::size_t at = out.size();
    out.resize(at + 4);
    std::memcpy(out.data() + at, &w, 4);
  };
  out.insert(out.end(), {'b', '3', 'd', 0});
  for (std::uint32_t w : header) put(w);
  out.insert(out.end(), file.lead.begin(), file.lead.end());
  put(static_cast<std::uint32_t>(file.materials.size()));
  for (const Name& m : file.materials) out.insert(out.end(), m.begin(), m.end());
  out.insert(out.end(), file.gap.begin(), file.gap.end());
  out.insert(out.end(), data.begin(), data.end());
  out.insert(out.end(), file.trailing.begin(), file.trailing.end());
  return out;
}

}  // namespace sceneria::b3d
