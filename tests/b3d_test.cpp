// Hard Truck B3D: the public exporter's sample against the independent reader's counts
// (ks.reference-summary.json), written back byte for byte; files built here for what the sample
// lacks (blocks 11 and 39, vertex format 0), and broken files that stop where they break.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "formats/b3d/b3d.hpp"
#include "formats/b3d/catalogue.hpp"
#include "formats/b3d/json.hpp"
#include "formats/b3d/res.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"
#include "sample_files.hpp"

namespace sceneria::b3d {
namespace {

std::filesystem::path sample(const char* name) { return test::samples_dir() / "hardtruck" / name; }

nlohmann::json reference() {
  const auto bytes = test::read_file(sample("ks.reference-summary.json"));
  return nlohmann::json::parse(bytes.begin(), bytes.end());
}

// The counts the reference summary keeps, from a file as read.
struct Counts {
  std::map<std::string, std::uint64_t> blocks, vertices, vertex_formats, polygons, corners, face_formats, sizes, triangles, mtypes;
  std::uint64_t separators = 0, top = 0, max_depth = 0, collision_polys = 0, collision_points = 0;
  std::set<std::uint32_t> texnums;
};
Counts count(const File& f) {
  Counts c;
  c.top = 0;
  for (const Item& i : f.top) c.top += !i.separator(), c.separators += i.separator();
  for (const Block& b : f.blocks) {
    const std::string t = std::to_string(b.type);
    ++c.blocks[t];
    c.max_depth = std::max<std::uint64_t>(c.max_depth, b.depth + 1);
    for (const Item& i : b.items) c.separators += i.separator();
    if (b.type == 6 || b.type == 7 || b.type == 36 || b.type == 37) {
      c.vertices[t] += b.vertices.count();
      if (b.type == 36 || b.type == 37) ++c.vertex_formats[fmt::format("{}:{}", b.type, b.vertices.format)];
    }
    if (b.type == 8 || b.type == 28 || b.type == 35) {
      c.polygons[t] += b.polygons.size();
      for (const Polygon& p : b.polygons) {
        c.corners[t] += p.count();
        ++c.face_formats[fmt::format("{}:{}", b.type, p.format)];
        ++c.sizes[std::to_string(p.count())];
        const bool strip = corner_layout(p.format, b.type == 28).strip;
        c.triangles[t] += triangulate(p.count(), strip).size();
        c.texnums.insert(p.texnum);
      }
    }
    if (b.type == 35) ++c.mtypes[std::to_string(b.words[4])];
    if (b.type == 23) {
      c.collision_polys += b.collision.size();
      for (const CollisionPolygon& p : b.collision) c.collision_points += p.points.size() / 3;
    }
  }
  return c;
}

std::map<std::string, std::uint64_t> as_map(const nlohmann::json& j) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [k, v] : j.items()) out[k] = v.get<std::uint64_t>();
  return out;
}

TEST(B3d, TheExportersSampleHoldsWhatTheIndependentReaderCounted) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(sample("ks.b3d"));
  auto f = read_b3d(bytes);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_FALSE(f->incomplete) << f->incomplete->describe();
  EXPECT_TRUE(f->warnings.empty());
  const nlohmann::json r = reference();
  EXPECT_EQ(f->header[0], r["header"]["len_file_words"]);
  EXPECT_EQ(f->header[1], r["header"]["ofs_materials_words"]);
  EXPECT_EQ(f->header[2], r["header"]["len_materials_words"]);
  EXPECT_EQ(f->header[3], r["header"]["ofs_data_words"]);
  EXPECT_EQ(f->header[4], r["header"]["len_data_words"]);
  ASSERT_EQ(f->materials.size(), r["material_count"].get<std::size_t>());
  for (std::size_t i = 0; i < f->materials.size(); ++i) EXPECT_EQ(name_text(f->materials[i]), r["materials"][i]) << i;
  const Counts c = count(*f);
  EXPECT_EQ(c.blocks, as_map(r["block_counts"]));
  EXPECT_EQ(f->blocks.size(), r["total_blocks"]);
  EXPECT_EQ(c.top, r["top_level_blocks"]);
  EXPECT_EQ(c.separators, r["markers"]["444"]);
  EXPECT_EQ(c.max_depth, r["max_depth"]);
  EXPECT_EQ(c.vertices, as_map(r["vertex_blocks_vertices"]));
  EXPECT_EQ(c.vertex_formats, as_map(r["vertex_formats"]));
  EXPECT_EQ(c.polygons, as_map(r["polygon_blocks_polygons"]));
  EXPECT_EQ(c.corners, as_map(r["polygon_blocks_corners"]));
  EXPECT_EQ(c.face_formats, as_map(r["face_formats"]));
  EXPECT_EQ(c.sizes, as_map(r["polygon_sizes"]));
  EXPECT_EQ(c.triangles, as_map(r["fan_triangles_by_type"]));
  EXPECT_EQ(c.mtypes, as_map(r["block35_mtypes"]));
  EXPECT_EQ(c.collision_polys, r["collision23"]["polys"]);
  EXPECT_EQ(c.collision_points, r["collision23"]["verts"]);
  std::set<std::uint32_t> texnums;
  for (const auto& t : r["texnums_used"]) texnums.insert(t.get<std::uint32_t>());
  EXPECT_EQ(c.texnums, texnums);
  // Written back byte for byte.
  auto back = write_b3d(*f);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(*back == bytes);
}

// The JSON form, compact and indented, reads back to the file's bytes.
std::vector<std::uint8_t> through_json(const File& f, int indent) {
  std::vector<std::uint8_t> text;
  VectorByteSink sink(text);
  const Error e = write_b3d_json(f, sink, indent);
  EXPECT_FALSE(e) << e.describe();
  MemorySource source(std::move(text), "x.json");
  auto back = read_b3d_json(source);
  EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().describe());
  if (!back.ok()) return {};
  auto bytes = write_b3d(*back);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::vector<std::uint8_t>{};
}

TEST(B3dJson, TheSampleReadsBackFromItsJsonToItsBytes) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(sample("ks.b3d"));
  auto f = read_b3d(bytes);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(through_json(*f, -1) == bytes);
  EXPECT_TRUE(through_json(*f, 1) == bytes);
}

TEST(B3dRes, TheSamplesResourcesAreWhatTheReaderCountedAndWriteBackByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(sample("ks.res"));
  auto res = read_res(bytes);
  ASSERT_TRUE(res.ok()) << res.error().describe();
  EXPECT_TRUE(res->trailing.empty());
  const nlohmann::json r = reference()["res"];
  ASSERT_EQ(res->sections.size(), r["sections"].size());
  for (std::size_t k = 0; k < res->sections.size(); ++k) {
    const ResSection& s = res->sections[k];
    SCOPED_TRACE(s.name);
    EXPECT_EQ(s.name, r["sections"][k]["name"]);
    EXPECT_EQ(s.count, r["sections"][k]["count"]);
    if (r["sections"][k].contains("entries"))
      for (std::size_t e = 0; e < s.entries.size(); ++e) EXPECT_EQ(s.entries[e].path(), r["sections"][k]["entries"][e]);
    if (s.name == "MATERIALS")
      for (const ResEntry& e : s.entries) {
        const ResMaterial m = parse_material(e.text);
        // The reference joins the tokens with single spaces; the file has two here and there.
        std::string tokens;
        for (char c : m.params)
          if (c != ' ' || (!tokens.empty() && tokens.back() != ' ')) tokens += c;
        EXPECT_EQ(tokens, r["sections"][k]["materials"][m.name]);
      }
  }
  EXPECT_TRUE(write_res(*res) == bytes);
  // Every texture decodes, a palette has 256 colours, and materials name their textures as the
  // summary says (ks_mat04: "ttx 5 col 3").
  const ResSection* textures = res->section("TEXTUREFILES");
  ASSERT_NE(textures, nullptr);
  std::set<std::string> formats;
  for (const ResEntry& e : textures->entries) {
    auto im = decode_txr(e.data);
    ASSERT_TRUE(im.ok()) << e.text << ": " << im.error().describe();
    EXPECT_GT(im->width, 0u);
    EXPECT_EQ(im->rgba.size(), std::size_t{im->width} * im->height * 4);
    formats.insert(im->format);
  }
  EXPECT_TRUE(formats.count("565")) << fmt::format("{}", fmt::join(formats, " "));
  EXPECT_TRUE(formats.count("4444")) << fmt::format("{}", fmt::join(formats, " "));
  auto palette = decode_plm(res->section("PALETTEFILES")->entries.at(0).data);
  ASSERT_TRUE(palette.ok()) << palette.error().describe();
  EXPECT_EQ(palette->size(), 256u);
  for (const ResEntry& e : res->section("MATERIALS")->entries)
    if (parse_material(e.text).name == "ks_mat04") {
      const ResMaterial m = parse_material(e.text);
      EXPECT_EQ(m.use, ResMaterial::Use::ttx);
      EXPECT_EQ(m.texture, 5u);
      EXPECT_EQ(m.colour, 3u);
      EXPECT_FLOAT_EQ(m.transparency, 0.25f);
      EXPECT_TRUE(m.no_z);
    }
}

}  // namespace
}  // namespace sceneria::b3d
