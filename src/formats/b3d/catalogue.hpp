#pragma once
// Every B3D block type's payload, field by field (notes b3d.md §4, checked against the bytes the
// public exporter writes): one table that the reader, the writer, the JSON form and the inspector
// all walk, so a field is named and laid out in one place only.
#include <cstdint>
#include <string_view>
#include <vector>

namespace sceneria::b3d {

// A field's words, as a pattern of one letter per value: f (f32), u (u32), i (i32), n (a
// char[32] name: 8 words). Counted fields repeat their pattern `count` times, the count being the
// value of an earlier u32 field.
struct Field {
  enum class Kind : std::uint8_t {
    plain,               // `pattern` once
    counted,             // `pattern` × the value of fields[count_of]
    vertices,            // u32 n, n × (x, y, z, u, v)  (6, 7)
    formatted_vertices,  // u32 vfmt, u32 n, n × vertex of that format  (36, 37)
    polygons,            // u32 n, n × polygon  (8, 35)
    sprites,             // u32 n, n × sprite polygon  (28)
    collision,           // u32 n, n × (u32 k, k × 3 f32)  (23)
    extra_word,          // one u32 a writer may put before the child count (39; see extra_word_follows)
    children,            // u32 child count, then the children up to 555
  };
  std::string_view name;
  Kind kind = Kind::plain;
  std::string_view pattern;
  int count_of = -1;
  std::uint32_t words = 0;  // per repeat of `pattern` (pattern_words), set with the table
};

struct Layout {
  std::uint32_t type = 0;
  std::string_view label;
  std::vector<Field> fields;
  // Grouped containers: 444 divides their children into groups (LOD levels, switch states).
  bool grouped = false;
  std::uint32_t plain_words = 0;  // its plain fields' words together: what every payload has
};

// nullptr for a type no file has shown (32, 38, 41 and above).
const Layout* layout_of(std::uint32_t type);

}  // namespace sceneria::b3d
