// Hard Truck B3D: the public exporter's sample against the independent reader's counts
// (ks.reference-summary.json), written back byte for byte; files built here for what the sample
// lacks (blocks 11 and 39, vertex format 0), and broken files that stop where they break.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "formats/b3d/b3d.hpp"
#include "formats/b3d/catalogue.hpp"
#include "formats/b3d/document.hpp"
#include "formats/b3d/json.hpp"
#include "formats/b3d/res.hpp"
#include "io/assets.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"
#include "registry/registry.hpp"
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

// The header is checked against the sizes of what was read (which a file read whole writes back):
// a header that disagrees is a warning per word, and the file writes back with it as read.
TEST(B3d, AHeaderTheContentsDisagreeWithIsKeptAndSaidWhere) {
  SCENERIA_REQUIRE_SAMPLES();
  auto bytes = test::read_file(sample("ks.b3d"));
  const nlohmann::json r = reference();
  const std::uint32_t data_words = r["header"]["len_data_words"], file_words = r["header"]["len_file_words"];
  const std::uint32_t wrong_data = data_words - 1, wrong_file = file_words + 3;
  std::memcpy(bytes.data() + 4, &wrong_file, 4);
  std::memcpy(bytes.data() + 20, &wrong_data, 4);
  auto f = read_b3d(bytes);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_EQ(f->warnings.size(), 2u);
  EXPECT_EQ(f->warnings[0].offset, 4u);
  EXPECT_EQ(f->warnings[0].message, fmt::format("the header's file length is {} words where the file's contents make {} (kept as read)", wrong_file, file_words));
  EXPECT_EQ(f->warnings[1].offset, 20u);
  EXPECT_EQ(f->warnings[1].message, fmt::format("the header's data length is {} words where the file's contents make {} (kept as read)", wrong_data, data_words));
  auto back = write_b3d(*f);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == bytes);
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

// ---- files built here: what the sample lacks, and broken ones ----

// A B3D written word by word: header and materials from the list, the data section as added.
struct Builder {
  std::vector<std::string> materials;
  std::vector<std::uint32_t> data;
  Builder& w(std::uint32_t v) { return data.push_back(v), *this; }
  Builder& f(float v) { return w(float_bits(v)); }
  Builder& fs(std::initializer_list<float> v) {
    for (float x : v) f(x);
    return *this;
  }
  Builder& name(std::string_view n) {
    std::uint32_t words[8] = {};
    std::memcpy(words, n.data(), std::min<std::size_t>(n.size(), 32));
    for (std::uint32_t x : words) w(x);
    return *this;
  }
  Builder& begin(std::string_view n, std::uint32_t type) { return w(marker::block_begin).name(n).w(type); }
  Builder& end() { return w(marker::block_end); }
  Builder& group() { return w(marker::group); }
  Builder& bound() { return fs({0, 0, 0, 1}); }
  std::vector<std::uint8_t> bytes() const {
    std::vector<std::uint32_t> all;
    const auto materials_words = static_cast<std::uint32_t>(1 + 8 * materials.size());
    const auto data_words = static_cast<std::uint32_t>(data.size() + 2);
    all.push_back(0);  // magic, patched below
    for (std::uint32_t v : {6 + materials_words + data_words, 6u, materials_words, 6 + materials_words, data_words}) all.push_back(v);
    all.push_back(static_cast<std::uint32_t>(materials.size()));
    for (const std::string& m : materials) {
      std::uint32_t words[8] = {};
      std::memcpy(words, m.data(), std::min<std::size_t>(m.size(), 32));
      all.insert(all.end(), std::begin(words), std::end(words));
    }
    all.push_back(marker::data_begin);
    all.insert(all.end(), data.begin(), data.end());
    all.push_back(marker::data_end);
    std::vector<std::uint8_t> out(all.size() * 4);
    std::memcpy(out.data(), all.data(), out.size());
    std::memcpy(out.data(), "b3d\0", 4);
    return out;
  }
};

TEST(B3dLayouts, BytesPerCornerFollowTheFlagRule) {
  // notes §5.2's table, every raw format it lists.
  const std::map<std::uint32_t, std::uint32_t> bytes = {{0, 4},     {1, 4},     {2, 12},    {3, 12},    {0x30, 16}, {0x31, 8},
                                                        {0x32, 24}, {0x33, 16}, {0x81, 4},  {0x83, 12}, {0xB0, 16}, {0xB1, 8},
                                                        {0xB2, 24}, {0xB3, 16}};
  for (const auto& [format, n] : bytes) EXPECT_EQ(corner_layout(format, false).words() * 4, n) << fmt::format("{:#x}", format);
  EXPECT_EQ(corner_layout(0x102, false).uv_sets, 2u);       // two UV sets
  EXPECT_EQ(corner_layout(0x30, false).normal, 3u);         // raw bit 0 clear: a vector normal
  EXPECT_EQ(corner_layout(0x31, false).normal, 1u);         // set: a scalar
  EXPECT_TRUE(corner_layout(0x80, false).strip);
  EXPECT_EQ(corner_layout(2, true).words(), 4u);            // a sprite: two offsets and a UV
  EXPECT_EQ(corner_layout(3, true).words(), 4u);            // no XOR for sprites
  EXPECT_EQ(vertex_layout(2).stride(), 8u);                 // normal
  EXPECT_EQ(vertex_layout(3).stride(), 6u);                 // scalar
  EXPECT_EQ(vertex_layout(0).stride(), 6u);                 // as the public exporter writes mode 0
  EXPECT_EQ(vertex_layout(0x202).stride(), 12u);            // two extra UV sets and a normal
  EXPECT_EQ(vertex_layout(0x203).stride(), 10u);
}

TEST(B3dLayouts, PolygonsAreCutAsTheReferenceToolsCutThem) {
  using T = std::vector<std::array<std::uint32_t, 3>>;
  EXPECT_EQ(triangulate(3, false), (T{{2, 0, 1}}));
  EXPECT_EQ(triangulate(4, false), (T{{3, 0, 1}, {1, 2, 3}}));  // the v1-v3 diagonal
  EXPECT_EQ(triangulate(5, true), (T{{0, 1, 2}, {1, 3, 2}, {2, 3, 4}}));
  EXPECT_TRUE(triangulate(2, false).empty());
}

// A module with what the sample lacks: a locator holding a vertex block of format 0 (a scalar per
// vertex) and a quad of format 0x32 (per-corner UVs and normals); a trigger (11) of two groups; fog
// (39) in both its forms; a link placing "wheel" at the locator; a LOD (10) of two groups; collision.
Builder synthetic() {
  Builder b;
  b.materials = {"mat_a", "mat_b"};
  // The locator: turned 90 degrees about Z (x -> y), at (10, 20, 30).
  b.begin("loc", 24).fs({0, 1, 0, -1, 0, 0, 0, 0, 1, 10, 20, 30}).w(1).w(1);
  b.begin("verts", 37).bound().name("group").w(0).w(4);
  for (const auto& [x, y] : std::initializer_list<std::pair<float, float>>{{0, 0}, {1, 0}, {1, 1}, {0, 1}}) b.fs({x, y, 0, x, y, 7});
  b.w(1);
  b.begin("quad", 35).bound().w(3).w(1).w(1);
  b.w(0x32).f(1).w(32767).w(0).w(4);
  for (std::uint32_t k = 0; k < 4; ++k) b.w(k).fs({0.5f, 0.5f, 0, 0, 1});
  b.end().end().end();
  b.group();
  b.begin("trigger", 11).bound().fs({1, 2, 3}).fs({4, 5, 6}).w(static_cast<std::uint32_t>(-7)).w(8).w(2);
  b.begin("in group 0", 3).bound().w(0).end().group().begin("in group 1", 3).bound().w(0).end();
  b.end();
  b.begin("fog44", 39).bound().w(0xFF8040).f(0.5f).f(10).f(100).w(3).w(0).w(0).end();
  b.begin("fog40", 39).bound().w(0xFF8040).f(0.5f).f(10).f(100).w(3).w(0).end();
  b.begin("lod", 10).bound().fs({0, 0, 0, 50}).w(2);
  b.begin("near", 7).bound().name("g").w(3).fs({0, 0, 0, 0, 0}).fs({1, 0, 0, 1, 0}).fs({0, 1, 0, 0, 1}).w(1);
  b.begin("near tri", 8).bound().w(1).w(0).f(1).w(32767).w(1).w(3).w(0).w(1).w(2).end().end();
  b.group();
  b.begin("far", 7).bound().name("g").w(3).fs({0, 0, 5, 0, 0}).fs({1, 0, 5, 1, 0}).fs({0, 1, 5, 0, 1}).w(1);
  b.begin("far tri", 8).bound().w(1).w(0).f(1).w(32767).w(0).w(3).w(0).w(1).w(2).end().end();
  b.end();
  b.begin("hit", 23).w(0).w(1).w(0).w(1).w(3).fs({0, 0, 0, 1, 0, 0, 0, 1, 0}).end();
  b.begin("link", 18).bound().name("loc").name("wheel").end();
  b.begin("wheel", 5).bound().name("").w(1);
  b.begin("wv", 7).bound().name("g").w(3).fs({0, 0, 0, 0, 0}).fs({2, 0, 0, 1, 0}).fs({0, 2, 0, 0, 1}).w(1);
  b.begin("wt", 8).bound().w(1).w(0).f(1).w(32767).w(0).w(3).w(0).w(1).w(2).end().end();
  b.end();
  return b;
}

const Block* named(const File& f, std::string_view name) {
  for (const Block& b : f.blocks)
    if (name_text(b.name) == name) return &b;
  return nullptr;
}

TEST(B3dSynthetic, WhatTheSampleLacksReadsAndWritesBack) {
  const auto bytes = synthetic().bytes();
  auto f = read_b3d(bytes);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_FALSE(f->incomplete) << f->incomplete->describe();
  EXPECT_TRUE(f->warnings.empty()) << f->warnings.front().message;
  EXPECT_EQ(f->header, computed_header(*f));  // what the reader saw is what the writer counts
  const Block* verts = named(*f, "verts");
  ASSERT_NE(verts, nullptr);
  EXPECT_EQ(verts->vertices.stride, 6u);  // format 0: position, UV, one scalar
  EXPECT_EQ(verts->vertices.count(), 4u);
  EXPECT_EQ(as_float(verts->vertices.words[5]), 7.0f);
  const Block* quad = named(*f, "quad");
  ASSERT_NE(quad, nullptr);
  ASSERT_EQ(quad->polygons.size(), 1u);
  EXPECT_EQ(quad->polygons[0].corner_words, 6u);
  EXPECT_EQ(quad->polygons[0].count(), 4u);
  const Block* trigger = named(*f, "trigger");
  ASSERT_NE(trigger, nullptr);
  EXPECT_EQ(static_cast<std::int32_t>(trigger->words[10]), -7);
  EXPECT_EQ(trigger->items.size(), 3u);  // two children and the separator between them
  EXPECT_TRUE(named(*f, "fog44")->extra_word);
  EXPECT_FALSE(named(*f, "fog40")->extra_word);
  EXPECT_EQ(named(*f, "hit")->collision.size(), 1u);
  auto back = write_b3d(*f);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(*back == bytes);
  EXPECT_TRUE(through_json(*f, -1) == bytes);
}

TEST(B3dSynthetic, AnUnknownTypeStopsWithWhereAndKeepsWhatCameBefore) {
  Builder b = synthetic();
  const std::size_t at = 24 + 4 + 32 * b.materials.size() + 4 + 4 * b.data.size();
  b.begin("mystery", 32).bound().end();
  auto f = read_b3d(b.bytes());
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->incomplete);
  EXPECT_EQ(f->incomplete->offset, at);
  EXPECT_NE(f->incomplete->message.find(fmt::format("block 32 \"mystery\" at {:#x}", at)), std::string::npos) << f->incomplete->message;
  EXPECT_NE(f->incomplete->message.find("not a known block type"), std::string::npos);
  EXPECT_NE(named(*f, "wheel"), nullptr);  // everything before it
  ASSERT_TRUE(write_b3d(*f).ok());
  EXPECT_TRUE(*write_b3d(*f) == b.bytes());  // written as it was read
  EXPECT_TRUE(through_json(*f, -1) == b.bytes());  // its JSON: the reason and the bytes
  // The document opens and says so.
  B3dDocument doc(std::move(f).value(), 0, "m.b3d", {}, {}, {});
  const auto warnings = doc.warnings();
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings.front().message.find("block 32"), std::string::npos);
  EXPECT_TRUE(doc.scene().ok());
}

TEST(B3dSynthetic, CutFilesAndBadCountsStopWhereTheyBreak) {
  const auto bytes = synthetic().bytes();
  // Cut anywhere: never a crash, always a located reason or a header error.
  for (std::size_t cut = 0; cut < bytes.size(); cut += 3) {
    auto f = read_b3d(std::span(bytes).first(cut));
    if (!f.ok()) {
      EXPECT_FALSE(f.error().message.empty());
      continue;
    }
    ASSERT_TRUE(f->incomplete) << cut;
    EXPECT_FALSE(f->incomplete->message.empty());
  }
  // A vertex block claiming more vertices than the file holds.
  Builder b;
  b.begin("v", 7).bound().name("g").w(1'000'000).fs({0, 0, 0, 0, 0}).w(0).end();
  auto f = read_b3d(b.bytes());
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->incomplete);
  EXPECT_NE(f->incomplete->message.find("its vertex list claims 1000000 items"), std::string::npos) << f->incomplete->message;
  // A polygon whose corners run past the end: the message names that polygon of the list (the
  // name is written only when a count fails, not for every polygon read).
  Builder p;
  p.begin("tris", 8).bound().w(2).w(0).f(1).w(32767).w(1).w(3).w(0).w(1).w(2);
  p.w(0).f(1).w(32767).w(1).w(1000).w(0).end();
  auto q = read_b3d(p.bytes());
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->incomplete);
  EXPECT_NE(q->incomplete->message.find("block 8 \"tris\" at 0x"), std::string::npos) << q->incomplete->message;
  EXPECT_NE(q->incomplete->message.find(": polygon 1 claims 1000 words but only "), std::string::npos) << q->incomplete->message;
  // A child count that does not match the children: a warning, the file still reads.
  Builder c;
  c.begin("box", 3).bound().w(2).begin("only", 3).bound().w(0).end().end();
  auto g = read_b3d(c.bytes());
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(g->incomplete);
  ASSERT_EQ(g->warnings.size(), 1u);
  EXPECT_NE(g->warnings[0].message.find("says 2 children and holds 1"), std::string::npos);
  EXPECT_TRUE(write_b3d(*g).ok() && *write_b3d(*g) == c.bytes());
}

// A polygon whose corners its block's pool cannot hold (a File made in memory; the readers never
// make one) is written, put in JSON and drawn with the corners there are: none, and no read past
// the pool.
TEST(B3dSynthetic, APolygonPastItsBlocksCornersHasNone) {
  SCENERIA_REQUIRE_SAMPLES();
  auto f = read_b3d(test::read_file(sample("ks.b3d")));
  ASSERT_TRUE(f.ok());
  Block* with = nullptr;
  for (Block& b : f->blocks)
    if (b.type == 8 && b.polygons.size() >= 2) with = &b;
  ASSERT_NE(with, nullptr);
  const std::size_t last = with->polygons.size() - 1;
  with->polygons[last].corner_count = 1'000'000;
  EXPECT_TRUE(with->corners_of(with->polygons[last]).empty());
  EXPECT_EQ(with->corner_count_of(with->polygons[last]), 0u);
  EXPECT_EQ(with->corner_count_of(with->polygons[0]), with->polygons[0].count());
  auto bytes = write_b3d(*f);
  ASSERT_TRUE(bytes.ok());
  auto back = read_b3d(*bytes);
  ASSERT_TRUE(back.ok());
  ASSERT_FALSE(back->incomplete) << back->incomplete->describe();
  const Block& again = back->blocks[static_cast<std::size_t>(with - f->blocks.data())];
  EXPECT_EQ(again.polygons[last].count(), 0u);
  EXPECT_EQ(again.polygons[0].count(), with->polygons[0].count());
  EXPECT_EQ(through_json(*f, -1), *bytes);
  B3dDocument doc(std::move(f).value(), bytes->size(), "ks.b3d", {}, {}, {});
  auto scene = doc.scene();
  ASSERT_TRUE(scene.ok()) << scene.error().describe();
  EXPECT_FALSE(scene->meshes.empty());
}

// format_b3d_fuzzer: a list of no items read into an empty vector copied from its null data
// pointer (undefined behaviour under UBSan, though nothing was copied).
TEST(B3dSynthetic, EmptyListsReadAndWriteBack) {
  Builder b;
  b.begin("v", 7).bound().name("g").w(0).w(0).end();
  auto f = read_b3d(b.bytes());
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_FALSE(f->incomplete) << f->incomplete->describe();
  ASSERT_EQ(f->blocks.size(), 1u);
  EXPECT_EQ(f->blocks[0].vertices.count(), 0u);
  EXPECT_TRUE(write_b3d(*f).ok() && *write_b3d(*f) == b.bytes());
  EXPECT_TRUE(through_json(*f, -1) == b.bytes());
}

// ---- the scene ----

std::vector<glm::vec3> world_positions(const scene::Scene& s, std::string_view mesh_name) {
  std::vector<glm::vec3> out;
  for (const scene::Section& sec : s.sections)
    for (const scene::Instance& in : sec.instances) {
      const scene::Mesh& m = s.meshes[in.mesh];
      if (m.name != mesh_name) continue;
      for (const glm::vec3& p : m.positions)
        out.push_back(glm::vec3(sec.origin) + in.offset + in.rotation * (in.scale * p));
    }
  return out;
}
bool near(const glm::vec3& a, const glm::vec3& b) { return glm::length(a - b) < 1e-4f; }

TEST(B3dScene, LocatorsPlaceTheirChildrenAndLinksPlaceCopies) {
  auto f = read_b3d(synthetic().bytes());
  ASSERT_TRUE(f.ok());
  B3dDocument doc(std::move(f).value(), 0, "m.b3d", {}, {}, {});
  auto s = doc.scene();
  ASSERT_TRUE(s.ok()) << s.error().describe();
  // The quad's corner (1, 0, 0) through the locator (x -> y, then + (10, 20, 30)): (10, 21, 30) in
  // B3D, (10, 30, -21) in the scene (x, z, -y).
  const auto quad = world_positions(*s, "quad");
  ASSERT_EQ(quad.size(), 4u);
  EXPECT_TRUE(std::any_of(quad.begin(), quad.end(), [](const glm::vec3& p) { return near(p, {10, 30, -21}); }));
  EXPECT_TRUE(std::any_of(quad.begin(), quad.end(), [](const glm::vec3& p) { return near(p, {10, 30, -20}); }));
  // The wheel drawn where it stands, and its copy at the locator: (2, 0, 0) -> (10, 22, 30).
  const auto wheel = world_positions(*s, "wt");
  ASSERT_EQ(wheel.size(), 6u);
  EXPECT_TRUE(std::any_of(wheel.begin(), wheel.end(), [](const glm::vec3& p) { return near(p, {2, 0, 0}); }));
  EXPECT_TRUE(std::any_of(wheel.begin(), wheel.end(), [](const glm::vec3& p) { return near(p, {10, 30, -22}); }));
  // Triangles wound as stored: the quad's normal, +Z in B3D, is +Y in the scene.
  for (const scene::Mesh& m : s->meshes)
    if (m.name == "quad") {
      const glm::vec3 n = glm::normalize(glm::cross(m.positions[m.indices[1]] - m.positions[m.indices[0]], m.positions[m.indices[2]] - m.positions[m.indices[0]]));
      EXPECT_TRUE(near(n, {0, 1, 0})) << n.x << " " << n.y << " " << n.z;
      EXPECT_EQ(m.uvs[0], glm::vec2(0.5f, 0.5f));  // the corner's own UVs, not the vertex block's
    }
}

TEST(B3dScene, ALinkFindsItsObjectInAnotherModuleOpenedWithIt) {
  // The module: a locator and two links, one to a tyre it lacks, one to a name no module has.
  Builder a;
  a.materials = {"mat_a"};
  a.begin("loc", 24).fs({0, 1, 0, -1, 0, 0, 0, 0, 1, 10, 20, 30}).w(1).w(0).end();
  a.begin("link", 18).bound().name("loc").name("tyre").end();
  a.begin("ghost link", 18).bound().name("loc").name("ghost").end();
  // Another module without it (read and passed by), and the one holding it.
  Builder other;
  other.begin("nothing", 3).bound().w(0).end();
  Builder trucks;
  trucks.materials = {"rubber"};
  trucks.begin("tyre", 5).bound().name("").w(1);
  trucks.begin("tv", 7).bound().name("g").w(3).fs({0, 0, 0, 0, 0}).fs({2, 0, 0, 1, 0}).fs({0, 2, 0, 0, 1}).w(1);
  trucks.begin("tt", 8).bound().w(1).w(0).f(1).w(32767).w(0).w(3).w(0).w(1).w(2).end().end();
  trucks.end();
  MemoryAssets assets;
  assets.add("game/a.b3d", a.bytes());
  assets.add("game/other.b3d", other.bytes());
  assets.add("trucks.b3d", trucks.bytes());
  const auto bytes = a.bytes();
  MemorySource source(bytes, "game/a.b3d");
  auto doc = open_document(source, {.assets = &assets});
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  const auto summary = (*doc)->summary(0);
  ASSERT_TRUE(summary.contains("linked_modules"));
  EXPECT_EQ(summary["linked_modules"], nlohmann::ordered_json::array({"trucks.b3d"}));
  auto s = (*doc)->scene();
  ASSERT_TRUE(s.ok()) << s.error().describe();
  // The tyre's (2, 0, 0) at the locator: (10, 22, 30) in B3D, (10, 30, -22) in the scene.
  const auto tyre = world_positions(*s, "tt");
  ASSERT_EQ(tyre.size(), 3u);
  EXPECT_TRUE(std::any_of(tyre.begin(), tyre.end(), [](const glm::vec3& p) { return near(p, {10, 30, -22}); }));
  // Picked, the copy is the link that placed it (block 1 of this module), and its node says whence.
  for (const scene::Section& sec : s->sections)
    for (const scene::Instance& in : sec.instances)
      if (s->meshes[in.mesh].name == "tt") EXPECT_EQ(s->objects[in.object].index, 1u);
  EXPECT_TRUE(std::any_of(s->nodes.begin(), s->nodes.end(), [](const scene::Node& n) { return n.name == "trucks.b3d: tyre at loc"; }));
  // Its material is the linked module's own.
  EXPECT_TRUE(std::any_of(s->materials.begin(), s->materials.end(), [](const scene::Material& m) { return m.name == "rubber"; }));
  const auto warnings = (*doc)->warnings();
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [](const Warning& w) {
    return w.message.find("inserts \"ghost\", which is in none of the modules opened") != std::string::npos;
  }));
}

// The same, as a host asks for it: the module's declared choices, passed by param.
TEST(B3dScene, TheGroupAndHiddenBlocksAreOpenChoices) {
  const auto bytes = synthetic().bytes();
  MemorySource source(bytes, "m.b3d");
  const auto names = [](const Document& doc) {
    auto s = doc.scene();
    std::set<std::string> out;
    for (const scene::Section& sec : s->sections)
      for (const scene::Instance& in : sec.instances) out.insert(s->meshes[in.mesh].name);
    return out;
  };
  auto doc = open_document(source, {.params = {{"group", "1"}, {"hidden", "true"}}});
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  EXPECT_TRUE(names(**doc).count("far tri"));
  EXPECT_FALSE(names(**doc).count("near tri"));
  EXPECT_TRUE(names(**doc).count("collision"));
  const auto summary = describe(**doc);
  const auto& choices = summary["choices"];
  ASSERT_EQ(choices.size(), 2u);
  EXPECT_EQ(choices[0]["param"], "group");
  EXPECT_EQ(choices[0]["values"].size(), summary["group_count"].get<std::size_t>());
  EXPECT_EQ(choices[0]["values"][0], nlohmann::ordered_json::parse(R"j({"value":"0","label":"group 0 (the default)"})j"));
  EXPECT_EQ(choices[0]["value"], "1");
  EXPECT_EQ(choices[1]["param"], "hidden");
  EXPECT_EQ(choices[1]["toggle"], true);
  EXPECT_EQ(choices[1]["label"], fmt::format("Show {} collision, trigger and portal block{}", summary["hidden_blocks"].get<int>(),
                                             summary["hidden_blocks"].get<int>() == 1 ? "" : "s"));
  EXPECT_EQ(choices[1]["value"], "true");
  // A group past the module's last is its last (the value shown is the one drawn).
  auto past = open_document(source, {.params = {{"group", "7"}}});
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(describe(**past)["choices"][0]["value"], std::to_string(summary["group_count"].get<int>() - 1));
  // Not a number, or a toggle that is neither false nor true: refused, saying what was wrong.
  auto word = open_document(source, {.params = {{"group", "far"}}});
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(word.error().message, "group: 'far' is not a group number (0, 1, …)");
  auto yes = open_document(source, {.params = {{"hidden", "yes"}}});
  ASSERT_FALSE(yes.ok());
  EXPECT_EQ(yes.error().message, "hidden: 'yes' is not one of 'false', 'true'");
}

TEST(B3dScene, GroupZeroIsDrawnByDefaultAndHiddenBlocksOnAsk) {
  const auto bytes = synthetic().bytes();
  const auto drawn = [&](ViewOptions v) {
    auto f = read_b3d(bytes);
    B3dDocument doc(std::move(f).value(), 0, "m.b3d", {}, v, {});
    auto s = doc.scene();
    std::set<std::string> names;
    for (const scene::Section& sec : s->sections)
      for (const scene::Instance& in : sec.instances) names.insert(s->meshes[in.mesh].name);
    return names;
  };
  const auto first = drawn({});
  EXPECT_TRUE(first.count("near tri"));
  EXPECT_FALSE(first.count("far tri"));
  EXPECT_FALSE(first.count("collision"));
  const auto second = drawn({.group = 1, .show_hidden = false});
  EXPECT_FALSE(second.count("near tri"));
  EXPECT_TRUE(second.count("far tri"));
  EXPECT_TRUE(drawn({.group = 7, .show_hidden = false}).count("far tri"));  // past the last group: the last
  EXPECT_TRUE(drawn({.group = 0, .show_hidden = true}).count("collision"));
}

TEST(B3dScene, TheSampleIsTexturedFromItsResources) {
  SCENERIA_REQUIRE_SAMPLES();
  auto f = read_b3d(test::read_file(sample("ks.b3d")));
  auto res = read_res(test::read_file(sample("ks.res")));
  ASSERT_TRUE(f.ok() && res.ok());
  Resources r{"ks.res", std::move(res).value(), {}};
  r.palette = *decode_plm(r.res.section("PALETTEFILES")->entries[0].data);
  std::vector<Resources> all;
  all.push_back(std::move(r));
  B3dDocument doc(std::move(f).value(), 40740, "ks.b3d", std::move(all), {}, {});
  auto s = doc.scene();
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(doc.warnings().empty()) << doc.warnings().front().message;
  std::size_t textured = 0, masked = 0, blended = 0, triangles = 0;
  for (const scene::Material& m : s->materials) {
    textured += m.texture != scene::kNoTexture;
    masked += m.alpha == scene::Material::Alpha::mask;
    blended += m.alpha == scene::Material::Alpha::blend;
  }
  for (const scene::Section& sec : s->sections)
    for (const scene::Instance& in : sec.instances) triangles += s->meshes[in.mesh].indices.size() / 3;
  EXPECT_GE(textured, 11u);
  // Each material wears the TEXTUREFILES entry its MATERIALS line names ("tex 3": the third),
  // by the independent reader's listing of ks.res.
  const nlohmann::json res_ref = reference()["res"]["sections"];
  std::vector<std::string> files;
  std::map<std::string, std::string> lines;
  for (const auto& sec : res_ref) {
    if (sec["name"] == "TEXTUREFILES") files = sec["entries"].get<std::vector<std::string>>();
    if (sec["name"] == "MATERIALS") lines = sec["materials"].get<std::map<std::string, std::string>>();
  }
  ASSERT_EQ(files.size(), 12u);
  std::size_t bound = 0;
  for (const scene::Material& m : s->materials) {
    const auto line = lines.find(m.name);
    if (line == lines.end() || m.texture == scene::kNoTexture) continue;
    const std::size_t number = std::stoul(line->second.substr(4));  // "tex N ..." or "ttx N ..."
    ASSERT_GE(number, 1u);
    std::string want = files.at(number - 1);
    want = want.substr(want.find('\\') + 1);  // "txr\t02_ks.txr" → "t02_ks.txr"
    EXPECT_NE(s->textures.at(m.texture).name.find(want), std::string::npos) << m.name << " wears " << s->textures.at(m.texture).name << ", not " << want;
    ++bound;
  }
  EXPECT_GE(bound, 11u);
  EXPECT_GE(masked, 1u);   // ttx: colour-keyed
  EXPECT_GE(blended, 1u);  // transp 0.25
  EXPECT_GT(triangles, 300u);
  // The coordinate change is a rotation, so the stored windings stay: each triangle's face normal
  // (counter-clockwise front, as glTF) points the way the file's own vertex normals do. A
  // reflection such as (x, z, y) without reversing the windings turns every one of them round.
  std::size_t agree = 0, checked = 0;
  for (const scene::Mesh& m : s->meshes) {
    if (m.normals.size() != m.positions.size()) continue;
    for (std::size_t k = 0; k + 2 < m.indices.size(); k += 3) {
      const glm::vec3 a = m.positions[m.indices[k]], b = m.positions[m.indices[k + 1]], c = m.positions[m.indices[k + 2]];
      const glm::vec3 face = glm::cross(b - a, c - a);
      if (glm::length(face) < 1e-6f) continue;
      const glm::vec3 stored = m.normals[m.indices[k]] + m.normals[m.indices[k + 1]] + m.normals[m.indices[k + 2]];
      agree += glm::dot(face, stored) > 0, ++checked;
    }
  }
  // All but three: the quads flagged as strips (0x80: formats 144 and 176) whose corners the
  // exporter wrote around the quad, where the strip rule (the reference tools') turns the second
  // triangle round.
  EXPECT_EQ(checked, 346u);
  EXPECT_EQ(checked - agree, 3u);
  for (const scene::Texture& t : s->textures) {
    EXPECT_EQ(t.format, scene::Texture::Format::rgba8);
    EXPECT_EQ(t.levels.at(0).size(), std::size_t{t.width} * t.height * 4);
  }
  // Records: a polygon block's fields by the catalogue, and its material.
  const auto rows = doc.rows("blocks", 0, 200);
  std::size_t polygons35 = 0;
  for (const auto& row : rows)
    if (row["detail"].get<std::string>().rfind("35 ", 0) == 0) {
      const auto rec = doc.record("blocks", row["i"].get<std::uint64_t>());
      EXPECT_TRUE(rec.contains("mtype"));
      EXPECT_TRUE(rec.contains("texnum"));
      EXPECT_EQ(rec["materials_used"].size(), 1u);
      ++polygons35;
    }
  EXPECT_EQ(polygons35, 14u);
}

// ---- images the sample lacks ----

std::vector<std::uint8_t> tga(std::uint8_t id_length, std::uint8_t cmap, std::uint8_t type, std::uint16_t cmap_length, std::uint8_t cmap_bits,
                              std::uint16_t w, std::uint16_t h, std::uint8_t bpp, std::uint8_t descriptor) {
  std::vector<std::uint8_t> b(18, 0);
  b[0] = id_length, b[1] = cmap, b[2] = type;
  std::memcpy(&b[5], &cmap_length, 2);
  b[7] = cmap_bits;
  std::memcpy(&b[12], &w, 2);
  std::memcpy(&b[14], &h, 2);
  b[16] = bpp, b[17] = descriptor;
  return b;
}
void put32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) b.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}
void put4cc(std::vector<std::uint8_t>& b, const char* id) { b.insert(b.end(), id, id + 4); }

TEST(B3dImages, A565TxrWithA28BytePfrmAndMipsDecodesTopRowFirst) {
  std::vector<std::uint8_t> b = tga(12, 0, 2, 0, 0, 4, 4, 16, 32);
  put4cc(b, "LOFF");
  put32(b, 4);
  put32(b, 0);  // the footer's offset, patched below
  for (std::uint16_t y = 0; y < 4; ++y)
    for (std::uint16_t x = 0; x < 4; ++x) {
      const std::uint16_t px = y == 0 ? 0xF800 : y == 1 ? 0x07E0 : y == 2 ? 0x001F : 0x0000;  // red, green, blue, black rows
      b.push_back(static_cast<std::uint8_t>(px)), b.push_back(static_cast<std::uint8_t>(px >> 8));
    }
  const auto footer = static_cast<std::uint32_t>(b.size());
  std::memcpy(&b[26], &footer, 4);
  put4cc(b, "LVMP");
  put32(b, 16 + 2 * 2 * 2);
  put32(b, 1), put32(b, 2), put32(b, 2), put32(b, 2);
  b.insert(b.end(), 8, 0);
  b.insert(b.end(), 2, 0);  // the two bytes after LVMP
  put4cc(b, "PFRM");
  put32(b, 28);
  put32(b, 0xF800), put32(b, 0x07E0), put32(b, 0x001F), put32(b, 0);
  b.insert(b.end(), 12, 0);
  put4cc(b, "ENDR");
  put32(b, 0);
  auto im = decode_txr(b);
  ASSERT_TRUE(im.ok()) << im.error().describe();
  EXPECT_EQ(im->format, "565");
  EXPECT_EQ(im->mips, 2u);
  const auto px = [&](int x, int y) { return std::vector<std::uint8_t>(im->rgba.begin() + (y * 4 + x) * 4, im->rgba.begin() + (y * 4 + x) * 4 + 4); };
  EXPECT_EQ(px(0, 0), (std::vector<std::uint8_t>{255, 0, 0, 255}));
  EXPECT_EQ(px(3, 1), (std::vector<std::uint8_t>{0, 255, 0, 255}));
  EXPECT_EQ(px(2, 2), (std::vector<std::uint8_t>{0, 0, 255, 255}));
  // Black made transparent (ttx with key colour 0).
  auto keyed = decode_txr(b, 0x000000u);
  EXPECT_EQ(keyed->rgba[(3 * 4 + 0) * 4 + 3], 0);
  EXPECT_EQ(keyed->rgba[3], 255);
  // Bottom-left origin: the rows come the other way.
  b[17] = 0;
  auto flipped = decode_txr(b);
  EXPECT_EQ(flipped->rgba[0], 0);  // black now on top
  EXPECT_EQ(flipped->rgba[(3 * 4) * 4], 255);
}

TEST(B3dImages, AnEightBitPalettedTxrAnMskAndAPalette) {
  std::vector<std::uint8_t> b = tga(0, 1, 1, 2, 24, 2, 1, 8, 32);
  b.insert(b.end(), {10, 20, 30, 200, 100, 50});  // two RGB colours
  b.insert(b.end(), {1, 0});
  auto im = decode_txr(b);
  ASSERT_TRUE(im.ok()) << im.error().describe();
  EXPECT_EQ(im->format, "8-bit paletted");
  EXPECT_EQ(im->rgba, (std::vector<std::uint8_t>{200, 100, 50, 255, 10, 20, 30, 255}));
  // MSK, 8-bit: 2 transparent, then 3 literal pixels; 16-bit with a PFRM after its data.
  std::vector<std::uint8_t> m;
  put4cc(m, "MSK8");
  m.insert(m.end(), {5, 0, 1, 0});
  std::vector<std::uint8_t> palette(768, 0);
  palette[3] = 255, palette[7] = 255;  // colour 1 red, colour 2 green
  m.insert(m.end(), palette.begin(), palette.end());
  m.insert(m.end(), {128 + 2, 3, 1, 2, 1});
  auto mask = decode_msk(m);
  ASSERT_TRUE(mask.ok()) << mask.error().describe();
  EXPECT_EQ(mask->rgba, (std::vector<std::uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 255, 0, 255, 0, 255, 255, 0, 0, 255}));
  std::vector<std::uint8_t> m16;
  put4cc(m16, "MS16");
  m16.insert(m16.end(), {2, 0, 1, 0});
  m16.insert(m16.end(), palette.begin(), palette.end());
  m16.insert(m16.end(), {1, 0x00, 0x7C, 128 + 1});  // one 555 red pixel, one skipped
  put4cc(m16, "PFRM");
  put32(m16, 16), put32(m16, 0x7C00), put32(m16, 0x03E0), put32(m16, 0x001F), put32(m16, 0);
  put4cc(m16, "ENDR");
  put32(m16, 0);
  auto wide = decode_msk(m16);
  ASSERT_TRUE(wide.ok()) << wide.error().describe();
  EXPECT_EQ(wide->rgba, (std::vector<std::uint8_t>{255, 0, 0, 255, 0, 0, 0, 0}));
  // A run past the image is refused, not read past.
  std::vector<std::uint8_t> bad = m;
  bad.resize(8 + 768);
  bad.push_back(100);
  EXPECT_FALSE(decode_msk(bad).ok());
  // PLM: a header, then PALT.
  std::vector<std::uint8_t> plm;
  put4cc(plm, "PLM\0");
  put32(plm, 8 + 768);
  put4cc(plm, "PALT");
  put32(plm, 768);
  plm.insert(plm.end(), palette.begin(), palette.end());
  auto colours = decode_plm(plm);
  ASSERT_TRUE(colours.ok());
  ASSERT_EQ(colours->size(), 256u);
  EXPECT_EQ((*colours)[1], 0xFF0000u);
  EXPECT_EQ((*colours)[2], 0x00FF00u);
}

}  // namespace
}  // namespace sceneria::b3d
