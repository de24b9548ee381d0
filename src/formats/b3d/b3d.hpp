#pragma once
// Hard Truck B3D scenes (notes b3d.md): a header of word counts, a list of material names, and a
// tree of blocks between the markers 111 and 222 (333 opens a block, 555 closes it, 444 divides
// groups). Blocks carry no length, so every type's payload is read by its layout in the catalogue
// (catalogue.cpp), and everything is kept as the file's own 32-bit words: the writer puts back
// the bytes it read, and nothing is rounded on the way.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "core/error.hpp"

namespace sceneria::b3d {

namespace marker {
constexpr std::uint32_t data_begin = 111, data_end = 222, block_begin = 333, group = 444, block_end = 555;
}

using Name = std::array<std::uint8_t, 32>;  // char[32], CP1251, NUL-padded (bytes after the NUL kept)

// Vertices of a vertex block, each `stride` words: position, UV0, extra UV sets, then the normal
// data the format says (3 floats, 1 float or none).
struct Vertices {
  std::uint32_t format = 0;  // blocks 36/37: the vfmt word (low byte normal mode, next byte extra UV sets)
  std::uint32_t stride = 5;  // words per vertex
  std::vector<std::uint32_t> words;
  std::size_t count() const { return stride ? words.size() / stride : 0; }
};

// A polygon of a polygon block (8, 35) or a sprite block (28): its 5-word header and its corners,
// each corner `corner_words` words (notes §5.2/§5.3). The corners' words lie in the block's
// `corners`, one polygon's after another's (Block::corners_of): a vector per polygon was most of
// a module's allocations.
struct Polygon {
  std::uint32_t format = 0;
  std::uint32_t unknown_f = 0;  // f32 bits (about 1.0)
  std::uint32_t unknown_i = 0;  // (about 32767)
  std::uint32_t texnum = 0;     // into the material list
  std::uint32_t corner_words = 1;
  std::size_t first = 0;         // its first word in Block::corners
  std::uint32_t corner_count = 0;
  std::size_t count() const { return corner_count; }
};

// What a corner of a polygon carries, from its format (the flag rule of notes §5.2; sprites
// §5.3 take no XOR and no normals, and carry two offsets in place of the vertex index).
struct CornerLayout {
  bool sprite = false;
  std::uint32_t uv_sets = 0;  // per-corner UV sets (0: from the vertex block)
  std::uint32_t normal = 0;   // per-corner normal words: 0, 1 (a scalar) or 3
  bool strip = false;         // strip triangulation
  std::uint32_t words() const { return (sprite ? 2 : 1) + 2 * uv_sets + normal; }
};
// Inline: the reader asks it of every polygon header it meets.
inline CornerLayout corner_layout(std::uint32_t format, bool sprite) {
  CornerLayout c;
  c.sprite = sprite;
  // The flag rule of every reference reader: polygons test `format ^ 1`; sprites test the format
  // as stored and carry no normals.
  const std::uint32_t f = sprite ? format : format ^ 1u;
  if (f & 0x02) c.uv_sets = ((f & 0xFF00u) >> 8) + 1;
  if (!sprite && (f & 0x10) && (f & 0x20)) c.normal = (f & 0x01) ? 3 : 1;
  c.strip = (f & 0x80) != 0;
  return c;
}
// Triangles of an n-gon as corner indices, as the reference tools cut them (notes §5.2):
// triangle t of the corners - 2, and all of them.
std::array<std::uint32_t, 3> triangle(std::size_t corners, bool strip, std::size_t t);
std::vector<std::array<std::uint32_t, 3>> triangulate(std::size_t corners, bool strip);
// Words per vertex of a formatted vertex block (36/37) and how many of them are normal data.
struct VertexLayout {
  std::uint32_t extra_uvs = 0;
  std::uint32_t normal = 0;  // 3 (normal modes 1, 2), else 1 (a scalar)
  std::uint32_t stride() const { return 5 + 2 * extra_uvs + normal; }
};
VertexLayout vertex_layout(std::uint32_t format);

// A polygon of a 3D collision mesh (block 23): its points, 3 words each.
struct CollisionPolygon {
  std::vector<std::uint32_t> points;
};

struct Block;
// What a container holds, in file order: child blocks, and the 444 separators between groups.
struct Item {
  std::int32_t block = -1;  // into File::blocks; -1: a 444 separator
  bool separator() const { return block < 0; }
};

struct Block {
  Name name{};
  std::uint32_t type = 0;
  std::uint64_t offset = 0;  // of its 333
  std::int32_t parent = -1;  // into File::blocks
  std::uint32_t depth = 0;
  // The payload's plain words in file order, laid out by the type's catalogue entry; the lists
  // below are the ones with structure of their own.
  std::vector<std::uint32_t> words;
  Vertices vertices;                       // 6, 7, 36, 37
  std::vector<Polygon> polygons;           // 8, 28, 35
  std::vector<std::uint32_t> corners;      // the polygons' corner words
  std::vector<CollisionPolygon> collision; // 23
  bool has_children = false;
  std::uint32_t child_count = 0;  // as stored (the children are what lies between 333 and 555)
  std::vector<Item> items;
  // Where a layout could be read two ways (block 39's word before its child count), which way.
  bool extra_word = false;

  // A polygon's corner words (none if the polygon does not fit in `corners`, which a File the
  // readers make never has), and how many corners they are: what writers and the scene walk.
  std::span<const std::uint32_t> corners_of(const Polygon& p) const {
    const std::size_t n = std::size_t{p.corner_count} * p.corner_words;
    if (p.first > corners.size() || n > corners.size() - p.first) return {};
    return {corners.data() + p.first, n};
  }
  std::size_t corner_count_of(const Polygon& p) const { return p.corner_words ? corners_of(p).size() / p.corner_words : 0; }
};

struct File {
  std::array<std::uint32_t, 5> header{};  // as read: file length, material offset and length, data offset and length (words)
  std::vector<std::uint8_t> lead;  // bytes between the header and the material list (none: it starts at word 6)
  std::vector<Name> materials;
  std::vector<std::uint8_t> gap;  // bytes between the material list and the data section
  std::vector<Block> blocks;      // every block, parents before children
  std::vector<Item> top;          // the data section's own items
  std::vector<std::uint8_t> trailing;  // after 222
  // Set when the file stopped being readable (an unknown block type, a cut): what came before
  // it is kept and viewable, and the file's bytes too, which is what it writes back as.
  std::optional<Error> incomplete;
  std::vector<std::uint8_t> original;  // only when incomplete
  std::vector<Warning> warnings;
};

// Reads a B3D. A file that breaks off (an unknown block type, a payload past the end) gives what
// was read before the break, with `incomplete` saying where and why; a file that is not a B3D
// at all is an error.
Result<File> read_b3d(std::span<const std::uint8_t> bytes);
// Writes the blocks back: the same bytes for a file read whole. Header words are recomputed,
// and the ones read kept where the file's own disagreed (they are written as read). A file read
// up to a break is written as it was read (its bytes).
Result<std::vector<std::uint8_t>> write_b3d(const File& file);
// The header a file of these contents has (word counts).
std::array<std::uint32_t, 5> computed_header(const File& file);
// The same, given the size of the data section from its 111 to its 222 (what the reader saw, which
// a file read whole writes back).
std::array<std::uint32_t, 5> header_for(const File& file, std::uint64_t data_bytes);

// Names as text: cut at the first NUL, decoded as CP1251.
std::string name_text(const Name& name);
std::string_view type_label(std::uint32_t type);
float as_float(std::uint32_t bits);
std::uint32_t float_bits(float value);

}  // namespace sceneria::b3d
