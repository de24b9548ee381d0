#include "formats/b3d/catalogue.hpp"

#include <array>

namespace sceneria::b3d {

namespace {

using K = Field::Kind;

// Words a pattern takes per repeat: a name is 8, every other letter 1.
std::uint32_t pattern_words(std::string_view pattern) {
  std::uint32_t n = 0;
  for (char c : pattern) n += c == 'n' ? 8 : 1;
  return n;
}

// The bounding sphere most blocks start with: a culling aid, not a transform (notes §6).
constexpr Field kBound{"bound", K::plain, "ffff"};
constexpr Field kChildren{"children", K::children, ""};
Field plain(std::string_view name, std::string_view pattern) { return {name, K::plain, pattern}; }
Field counted(std::string_view name, std::string_view pattern, int count_of) { return {name, K::counted, pattern, count_of}; }

std::array<Layout, 41> make() {
  std::array<Layout, 41> t{};
  const auto set = [&](std::uint32_t type, std::string_view label, std::vector<Field> fields, bool grouped = false) {
    t[type] = Layout{type, label, std::move(fields), grouped};
  };
  set(0, "background", {plain("content", "fffffffffff")});
  set(1, "viewer start", {plain("start_space", "n"), plain("start_room", "n")});
  set(2, "grouped container", {kBound, plain("unknown", "ffff"), kChildren}, true);
  set(3, "container", {kBound, kChildren});
  set(4, "container on a locator", {kBound, plain("space", "n"), plain("object", "n"), kChildren});
  set(5, "container", {kBound, plain("object", "n"), kChildren});
  set(6, "vertices (HT1)", {kBound, plain("name1", "n"), plain("name2", "n"), {"vertices", K::vertices, ""}, kChildren});
  set(7, "vertices", {kBound, plain("group", "n"), {"vertices", K::vertices, ""}, kChildren});
  set(8, "polygons", {kBound, {"polygons", K::polygons, ""}});
  set(9, "trigger", {kBound, plain("unknown", "ffff"), kChildren}, true);
  set(10, "LOD", {kBound, plain("lod", "ffff"), kChildren}, true);
  set(11, "trigger", {kBound, plain("point1", "fff"), plain("point2", "fff"), plain("unknown1", "i"), plain("unknown2", "i"), kChildren}, true);
  set(12, "collision plane", {kBound, plain("plane", "ffff"), plain("unknown1", "u"), plain("unknown2", "u"), plain("count", "u"), counted("params", "u", 4)});
  set(13, "trigger (loader, radar)", {kBound, plain("unknown1", "u"), plain("unknown2", "u"), plain("count", "u"), counted("params", "u", 3)});
  set(14, "car trigger", {kBound, plain("unknown", "ffff"), plain("unknown1", "u"), plain("unknown2", "u"), plain("count", "u"), counted("params", "u", 4)});
  set(15, "unknown 15", {kBound, plain("unknown1", "u"), plain("unknown2", "u"), plain("count", "u"), counted("params", "u", 3)});
  for (std::uint32_t type : {16u, 17u})
    set(type, "trigger", {kBound, plain("point1", "fff"), plain("point2", "fff"), plain("unknown_f1", "f"), plain("unknown_f2", "f"),
                          plain("unknown1", "u"), plain("unknown2", "u"), plain("count", "u"), counted("params", "u", 7)});
  set(18, "link", {kBound, plain("space", "n"), plain("object", "n")});
  set(19, "room", {kChildren});
  set(20, "flat collision", {kBound, plain("point_count", "u"), plain("unknown1", "u"), plain("unknown2", "u"), plain("count", "u"),
                             counted("params", "f", 4), counted("points", "fff", 1)});
  set(21, "switch", {kBound, plain("groups", "u"), plain("state", "u"), kChildren}, true);
  set(22, "locator?", {kBound, plain("unknown", "ffff"), kChildren});
  set(23, "collision mesh", {plain("unknown", "u"), plain("surface", "u"), plain("count", "u"), counted("params", "u", 2),
                             {"polygons", K::collision, ""}});
  set(24, "locator", {plain("row1", "fff"), plain("row2", "fff"), plain("row3", "fff"), plain("position", "fff"), plain("flag", "u"), kChildren});
  set(25, "sound", {plain("unknown1", "u"), plain("unknown2", "u"), plain("unknown3", "u"), plain("sound", "n"), plain("point1", "fff"),
                    plain("point2", "fff"), plain("values", "fffff")});
  set(26, "locator?", {kBound, plain("point1", "fff"), plain("point2", "fff"), plain("point3", "fff"), kChildren});
  set(27, "locator?", {kBound, plain("flag", "u"), plain("point", "fff"), plain("material", "u")});
  set(28, "sprites", {kBound, plain("centre", "fff"), {"polygons", K::sprites, ""}});
  set(29, "LOD with distances", {kBound, plain("groups", "u"), plain("state", "u"), plain("lod", "ffff"), counted("distances", "f", 1), kChildren},
      true);
  set(30, "portal", {kBound, plain("room", "n"), plain("low", "fff"), plain("high", "fff")});
  set(31, "unknown 31", {kBound, plain("count", "u"), plain("unknown", "ffff"), plain("unknown1", "u"), plain("point", "fff"),
                         counted("values", "fu", 1)});
  set(33, "light", {kBound, plain("use_lights", "u"), plain("light_type", "u"), plain("flag", "u"), plain("position", "fff"),
                    plain("direction", "fff"), plain("values", "ffffff"), plain("rgb", "fff"), kChildren});
  set(34, "points", {kBound, plain("unknown1", "u"), plain("count", "u"), counted("points", "fffu", 2)});
  set(35, "polygons", {kBound, plain("mtype", "u"), plain("texnum", "u"), {"polygons", K::polygons, ""}});
  set(36, "vertices with format (HT1)", {kBound, plain("name1", "n"), plain("name2", "n"), {"vertices", K::formatted_vertices, ""}, kChildren});
  set(37, "vertices with format", {kBound, plain("group", "n"), {"vertices", K::formatted_vertices, ""}, kChildren});
  set(39, "fog", {kBound, plain("colour", "u"), plain("unknown", "f"), plain("start", "f"), plain("end", "f"), plain("colour_id", "u"),
                  {"extra", K::extra_word, "u"}, kChildren});
  set(40, "generator", {kBound, plain("name1", "n"), plain("name2", "n"), plain("unknown1", "u"), plain("unknown2", "u"), plain("count", "u"),
                        counted("params", "u", 5)});
  for (Layout& layout : t)
    for (Field& field : layout.fields) {
      field.words = pattern_words(field.pattern);
      if (field.kind == K::plain) layout.plain_words += field.words;
    }
  return t;
}

}  // namespace

const Layout* layout_of(std::uint32_t type) {
  static const std::array<Layout, 41> table = make();
  if (type >= table.size() || table[type].label.empty()) return nullptr;
  return &table[type];
}

}  // namespace sceneria::b3d
