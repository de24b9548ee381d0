// T3D text models: every sample built as the engine's loader builds it (against the reference
// summaries: counts after normal generation and merging, flags, the E3D order and offsets), the
// four sample pairs converted to the very bytes of the engine's E3D (a difference is named by
// submodel and field), and the loader's rules no sample exercises on models written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/e3d/e3d.hpp"
#include "formats/e3d/record.hpp"
#include "formats/t3d/t3d.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"

namespace sceneria::t3d {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

fs::path models_dir() { return test::samples_dir() / "maszyna/models"; }

json summary_of(const fs::path& p) {
  std::ifstream in(p.string() + ".reference-summary.json");
  return json::parse(in);
}

std::span<const std::uint8_t> text(std::string_view s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

Model read_ok(std::string_view s) {
  auto m = read_model(text(s));
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().describe());
  return m.ok() ? std::move(m).value() : Model{};
}

// The first place two E3D models differ, as "submodel 3 (name) field index_offset" and the like;
// empty when they are the same.
std::string first_difference(const e3d::Model& got, const e3d::Model& want) {
  if (got.submodels.size() != want.submodels.size()) return fmt::format("{} submodels, the engine's file has {}", got.submodels.size(), want.submodels.size());
  for (std::size_t i = 0; i < got.submodels.size(); ++i) {
    struct Field {
      std::size_t at;
      const char* name;
      std::vector<std::uint8_t> bytes;
    };
    std::vector<Field> a, b;
    const auto collect = [](auto& out) {
      return [&out](std::size_t at, const char* name, const auto& field) {
        std::vector<std::uint8_t> bytes(sizeof field);
        std::memcpy(bytes.data(), &field, sizeof field);
        out.push_back({at, name, std::move(bytes)});
      };
    };
    e3d::submodel_fields(got.submodels[i], collect(a));
    e3d::submodel_fields(want.submodels[i], collect(b));
    for (std::size_t f = 0; f < a.size(); ++f)
      if (a[f].bytes != b[f].bytes)
        return fmt::format("submodel {} ({}) field {} at offset {}", i, want.name_of(want.submodels[i]), a[f].name, a[f].at);
  }
  if (got.matrices != want.matrices) return "the matrices (TRA0)";
  if (got.textures != want.textures) return "the texture list (TEX0)";
  if (got.names != want.names) return "the name list (NAM0)";
  if (got.vertex_variant != want.vertex_variant) return fmt::format("the vertex chunk VNT{} (the engine's is VNT{})", got.vertex_variant, want.vertex_variant);
  for (std::size_t i = 0; i < want.submodels.size(); ++i) {
    const e3d::Submodel& s = want.submodels[i];
    const std::size_t stride = want.vertex_stride();
    for (std::int32_t v = 0; v < s.vertex_count; ++v) {
      const std::size_t at = (static_cast<std::size_t>(s.vertex_offset) + static_cast<std::size_t>(v)) * stride;
      if (at + stride > got.vertex_bytes.size() || at + stride > want.vertex_bytes.size()) return fmt::format("submodel {} vertex pool size", i);
      for (std::size_t k = 0; k < stride; k += 4)
        if (std::memcmp(got.vertex_bytes.data() + at + k, want.vertex_bytes.data() + at + k, 4) != 0)
          return fmt::format("submodel {} ({}) vertex {} float {} (position 0-2, normal 3-5, uv 6-7, tangent 8-11)", i, want.name_of(s), v, k / 4);
    }
  }
  if (got.index_bytes != want.index_bytes) return "the index pool";
  return "";
}

TEST(T3d, EverySampleBuildsLikeTheEngine) {
  SCENERIA_REQUIRE_SAMPLES();
  std::vector<fs::path> samples;
  for (const auto& e : fs::directory_iterator(models_dir()))
    if (e.path().extension() == ".t3d") samples.push_back(e.path());
  std::sort(samples.begin(), samples.end());
  ASSERT_EQ(samples.size(), 5u);
  for (const auto& path : samples) {
    SCOPED_TRACE(path.filename().string());
    const json ref = summary_of(path);
    const auto bytes = test::read_file(path);
    auto model = read_model(bytes);
    ASSERT_TRUE(model.ok()) << model.error().describe();
    const Model& m = *model;
    ASSERT_EQ(m.submodels.size(), ref["submodels"].size());
    EXPECT_EQ(m.vertex_total, ref["totals"]["engine_vertices"].get<std::uint32_t>());
    EXPECT_EQ(m.index_total, ref["totals"]["engine_indices"].get<std::uint32_t>());
    for (std::size_t i = 0; i < m.submodels.size(); ++i) {
      const Submodel& s = m.submodels[i];
      const json& r = ref["submodels"][i];
      SCOPED_TRACE(s.name);
      EXPECT_EQ(s.name, r["name"].get<std::string>());
      EXPECT_EQ(s.parent_name, r["parent_token"].get<std::string>());
      EXPECT_EQ(s.parent_found, r["parent_found"].get<bool>());
      if (r["parent_name_resolved"].is_string()) {
        ASSERT_GE(s.parent, 0);
        EXPECT_EQ(m.submodels[static_cast<std::size_t>(s.parent)].name, r["parent_name_resolved"].get<std::string>());
      }
      EXPECT_EQ(s.type, r["type"].get<int>());
      EXPECT_EQ(s.map, r["map"].get<std::string>());
      EXPECT_EQ(s.geometry, r["geometry"].get<std::string>());
      EXPECT_EQ(s.vertices_in_file, r["numverts_in_file"].get<std::uint32_t>());
      EXPECT_EQ(fmt::format("{:#06x}", s.flags & ~0x200u), r["flags"].get<std::string>());
      EXPECT_FLOAT_EQ(s.max_distance_sq, r["max_distance_squared"].get<float>());
      EXPECT_FLOAT_EQ(s.self_illum, r["self_illum"].get<float>());
      EXPECT_EQ(s.vertices.size(), r["engine_vertex_count"].get<std::size_t>());
      EXPECT_EQ(s.indices.size(), r["engine_index_count"].get<std::size_t>());
      if (s.geometry == "legacy") {
        EXPECT_EQ(s.smoothing_masks, r["smoothing_masks_used"].get<std::vector<std::uint32_t>>());
        EXPECT_EQ(s.explicit_normal_vertices, r["explicit_normal_vertices"].get<std::uint32_t>());
        EXPECT_EQ(s.degenerate_dropped, r["degenerate_triangles_dropped"].get<std::uint32_t>());
        EXPECT_EQ(s.oversized_dropped, r["oversized_triangles_dropped"].get<std::uint32_t>());
      }
    }

    // The converted model: the engine's order (with its banana where it adds one) and offsets.
    const e3d::Model e = to_e3d(*model);
    const bool banana = ref["banana_root_if_iConvertModels_4"].get<bool>();
    const json& order = banana ? ref["e3d_order_with_banana"] : ref["e3d_order"];
    ASSERT_EQ(e.submodels.size(), order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      EXPECT_EQ(std::string(e.name_of(e.submodels[i])), order[i].is_null() ? "" : order[i].get<std::string>()) << "E3D submodel " << i;
    if (banana) {
      EXPECT_EQ(e.submodels[0].type, e3d::rotator);
      EXPECT_EQ(e.submodels[0].name, -1);
      EXPECT_EQ(e.submodels[0].texture, 0);
    }
    for (const json& r : ref["submodels"]) {
      const std::size_t at = (banana ? r["e3d_index_with_banana"] : r["e3d_index"]).get<std::size_t>();
      const e3d::Submodel& s = e.submodels.at(at);
      EXPECT_EQ(s.vertex_count, r["engine_vertex_count"].get<int>()) << r["name"];
      EXPECT_EQ(s.index_count, r["engine_index_count"].get<int>()) << r["name"];
      EXPECT_EQ(s.vertex_offset, r["e3d_vertex_offset"].get<int>()) << r["name"];
      EXPECT_EQ(s.index_offset, r["e3d_index_offset"].get<int>()) << r["name"];
      EXPECT_EQ(e.material_of(s), r["material"].get<std::string>()) << r["name"];
    }
    EXPECT_EQ(fmt::format("IDX{}", e.index_size), ref["totals"]["predicted_e3d_index_chunk"].get<std::string>());
  }
}

TEST(T3d, TheFourSamplePairsConvertToTheEngineFilesByteForByte) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const char* stem : {"e6acta_panele_bok", "oslony_syren", "e6acta_kanal_bok", "e6acta_pantograf"}) {
    SCOPED_TRACE(stem);
    const auto source = test::read_file(models_dir() / (std::string(stem) + ".t3d"));
    const auto engine = test::read_file(models_dir() / (std::string(stem) + ".e3d"));
    auto model = read_model(source);
    ASSERT_TRUE(model.ok()) << model.error().describe();
    const e3d::Model converted = to_e3d(*model);
    const auto written = e3d::write_model(converted);
    if (written != engine) {
      auto want = e3d::read_model(engine);
      ASSERT_TRUE(want.ok());
      ADD_FAILURE() << "differs from the engine's E3D at: " << first_difference(converted, *want) << " (" << written.size() << " bytes, the engine's "
                    << engine.size() << ")";
    }
  }
}

// A one-submodel mesh around `geometry` (after `NumVerts:`), identity transform unless given.
std::string mesh(std::string_view name, std::string_view parent, std::string_view geometry, std::string_view transform = "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1",
                 std::string_view map = "none") {
  return fmt::format(
      "Parent: {}\nType: Mesh\nName: {}\nAnim: false\nAmbient: 255 255 255\nDiffuse: 255 128 0\nSpecular: 0 0 0\nSelfIllum: false\n"
      "Wire: false\nWireSize: 1\nOpacity: 100\nMap: {}\nMaxDistance: -1\nMinDistance: 2\nTransform: {}\n{}\n",
      parent, name, map, transform, geometry);
}

TEST(T3d, SmoothingMasksDecideSharedNormalsAndTheMergedCount) {
  // Two triangles folded along the edge (0,0,0)-(1,0,0): one in the XY plane, one in XZ.
  const auto two = [](int a, int b) {
    return fmt::format("NumVerts: 6\n{}\n0 0 0 0 0\n1 0 0 1 0\n0 1 0 0 1\n{}\n1 0 0 1 0\n0 0 0 0 0\n0 0 -1 0 1\n", a, b);
  };
  const Options not_vehicle{.vehicle = false};
  {
    const Model m = read_ok(mesh("fold", "none", two(1, 1)));
    const Submodel& s = m.submodels[0];
    EXPECT_EQ(s.vertices.size(), 4u);  // the shared edge's two vertices, one normal each
    EXPECT_EQ(s.indices, (std::vector<std::uint32_t>{0, 1, 2, 1, 0, 3}));
    const float h = std::sqrt(0.5f);  // the average of the faces' (0,0,1) and (0,-1,0), normalised
    EXPECT_NEAR(s.vertices[0].normal[1], -h, 1e-6f);
    EXPECT_NEAR(s.vertices[0].normal[2], h, 1e-6f);
    EXPECT_FLOAT_EQ(s.vertices[2].normal[2], 1.0f);  // a vertex of one face only: that face's normal
  }
  for (auto [a, b] : {std::pair{1, 2}, std::pair{0, 0}, std::pair{3, 0}}) {
    SCOPED_TRACE(fmt::format("masks {} {}", a, b));
    const Model m = read_ok(mesh("fold", "none", two(a, b)));
    EXPECT_EQ(m.submodels[0].vertices.size(), 6u);  // no common bit (or a flat face): nothing shared
    EXPECT_FLOAT_EQ(m.submodels[0].vertices[0].normal[2], 1.0f);
  }
  // An explicit normal (mask -1) is kept as written, not normalised (the engine drops the result
  // of its normalize), and rotated into scenery axes with the vertex: (x, y, z) -> (-x, z, y).
  const Model m = read_ok(mesh("explicit", "none", "NumVerts: 3\n-1\n1 2 3 0 0 2 0 0\n4 2 3 0 0 2 1 0\n1 5 3 0 0 2 0 1\n"));
  EXPECT_EQ(m.submodels[0].explicit_normal_vertices, 3u);
  const e3d::Model e = to_e3d(m, not_vehicle);
  const e3d::Vertex v = e.vertex(0);
  EXPECT_EQ(v.position, (std::array<float, 3>{-1, 3, 2}));
  EXPECT_FLOAT_EQ(v.normal[0], 0.0f);
  EXPECT_FLOAT_EQ(v.normal[1], 2.0f);
  EXPECT_FLOAT_EQ(v.normal[2], 0.0f);
}

TEST(T3d, DegenerateAndOversizedTrianglesAreDroppedAsTheEngineDrops) {
  const std::string good = "0\n0 0 0 0 0\n1 0 0 1 0\n0 1 0 0 1\n";
  const std::string line = "0\n0 0 0 0 0\n1 0 0 1 0\n2 0 0 0 1\n";        // collinear: no area
  const std::string huge = "0\n0 0 0 0 0\n1001 0 0 1 0\n0 1 0 0 1\n";     // an edge over 1000 m
  const Model m = read_ok(mesh("m", "none", "NumVerts: 12\n" + good + line + huge + good));
  const Submodel& s = m.submodels[0];
  EXPECT_EQ(s.degenerate_dropped, 1u);
  EXPECT_EQ(s.oversized_dropped, 1u);
  EXPECT_EQ(s.indices.size(), 6u);
  EXPECT_EQ(s.vertices.size(), 3u);  // the two good triangles are the same three vertices
}

TEST(T3d, VerticesMergeOnlyWithinTheEnginesWindowOf1000) {
  // One flat triangle 400 times: an unbounded merge gives 3 vertices; the engine's window (each
  // vertex claims matches among the next 999) gives 6.
  std::string g = "NumVerts: 1200\n";
  for (int i = 0; i < 400; ++i) g += "0\n0 0 0 0 0\n1 0 0 1 0\n0 1 0 0 1\n";
  const Model m = read_ok(mesh("m", "none", g));
  EXPECT_EQ(m.submodels[0].vertices.size(), 6u);
  EXPECT_EQ(m.submodels[0].indices[1001], 2u);
  EXPECT_EQ(m.submodels[0].indices[1002], 3u);
}

TEST(T3d, TheTreeOrderTheBananaAndTheAxisRotation) {
  const std::string tri = "NumVerts: 3\n0\n1 2 3 0 0\n2 2 3 1 0\n1 3 3 0 1\n";
  const std::string text = mesh("a", "none", tri) + mesh("b", "none", tri, "1 0 0 0 0 1 0 0 0 0 1 0 5 6 7 1") + mesh("c", "A", tri) + mesh("d", "a", tri, "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1", "Tex\\Brick");
  const Model m = read_ok(text);
  EXPECT_EQ(m.submodels[3].map, "tex/brick");  // lower-cased, '\' as '/'
  EXPECT_EQ(m.submodels[2].parent, 0);         // the parent lookup ignores case
  {
    // A vehicle: b and a are roots (b first, being later), so an empty root goes above them.
    const e3d::Model e = to_e3d(m);
    ASSERT_EQ(e.submodels.size(), 5u);
    std::vector<std::string> names;
    for (const auto& s : e.submodels) names.emplace_back(e.name_of(s));
    EXPECT_EQ(names, (std::vector<std::string>{"", "b", "a", "d", "c"}));
    EXPECT_EQ(e.submodels[0].child, 1);
    EXPECT_EQ(e.submodels[1].next, 2);
    EXPECT_EQ(e.submodels[2].child, 3);
    EXPECT_EQ(e.submodels[3].next, 4);
    // The banana's matrix takes the rotation; everything under it keeps its own axes.
    const auto& banana = e.matrices[static_cast<std::size_t>(e.submodels[0].matrix)];
    EXPECT_EQ(banana[0], -1.0);
    EXPECT_EQ(banana[6], 1.0);
    EXPECT_EQ(banana[9], 1.0);
    EXPECT_EQ(e.vertex(static_cast<std::size_t>(e.submodels[2].vertex_offset)).position, (std::array<float, 3>{1, 2, 3}));
    EXPECT_EQ(e.material_of(e.submodels[3]), "tex/brick");
    EXPECT_EQ(e.textures, (std::vector<std::string>{"", "colored", "tex/brick"}));
    EXPECT_FLOAT_EQ(e.submodels[1].diffuse[1], 128.0f / 255.0f);
    EXPECT_FLOAT_EQ(e.submodels[1].max_distance_sq, 15000.0f * 15000.0f);  // MaxDistance <= 0
    EXPECT_FLOAT_EQ(e.submodels[1].min_distance_sq, 4.0f);
    EXPECT_EQ(e.submodels[0].flags & 0xC000u, 0xC000u);
  }
  {
    // Scenery models get no banana: a, an identity root, has its vertices rotated instead; b's
    // matrix takes the rotation, and being a leaf's, is then multiplied into its vertices.
    const e3d::Model e = to_e3d(m, {.vehicle = false});
    ASSERT_EQ(e.submodels.size(), 4u);
    EXPECT_EQ(e.name_of(e.submodels[0]), "b");
    const e3d::Vertex b0 = e.vertex(static_cast<std::size_t>(e.submodels[0].vertex_offset));
    EXPECT_EQ(b0.position, (std::array<float, 3>{-6, 10, 8}));  // (1,2,3) + (5,6,7), then (x,y,z) -> (-x,z,y)
    EXPECT_EQ(e.submodels[0].flags & 0x8000u, 0u);              // its matrix was multiplied into the vertices
    const e3d::Vertex a0 = e.vertex(static_cast<std::size_t>(e.submodels[1].vertex_offset));
    EXPECT_EQ(a0.position, (std::array<float, 3>{-1, 3, 2}));
  }
}

TEST(T3d, LightsStarsAnimationsUserDataAndIncludes) {
  const std::string light =
      "Parent: none\nType: FreeSpotLight\nName: lamp\nAnim: seconds_jump\nDiffuse: 255 255 200\nSelfIllum: true\n"
      "NearAttenStart: 1 NearAttenEnd: 2 UseNearAtten: 1 FarAttenDecayType: 2 FarDecayRadius: 50 FalloffAngle: 60 HotspotAngle: 0.5\n"
      "HotspotPower: 150\nMaxDistance: 100\nMinDistance: 0\nTransform: 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\n";
  const std::string stars =
      "Parent: none\nType: Stars\nName: sky\nAnim: rotate\nDiffuse: 255 255 255\nSelfIllum: 0.5\nMaxDistance: 0\nMinDistance: 0\n"
      "Transform: 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\nNumVerts: 3\n0\n1 2 3 16711935 0\n4 5 6 255 0\n7 8 9 65280 0\n";
  const std::string user = mesh("u", "none", "UserData: true\nNumVerts: 3\n0\n0 0 0 0 0\n1 0 0 1 0\n0 1 0 0 1\n1 2 3 4 5 6 7 8 9 10 11 12");
  const std::string include = "include parts.t3d 1 2 end\n";
  Model m = read_ok(include + light + stars + user);
  ASSERT_EQ(m.submodels.size(), 3u);
  EXPECT_EQ(m.includes, (std::vector<std::string>{"parts.t3d"}));
  const Submodel& l = m.submodels[0];
  EXPECT_EQ(l.type, e3d::free_spotlight);
  EXPECT_EQ(l.anim, 4);
  EXPECT_FLOAT_EQ(l.self_illum, 2.0f);
  EXPECT_FLOAT_EQ(l.light.far_decay_radius, 50.0f);
  EXPECT_NEAR(l.light.cos_falloff, std::cos(30.0 * 3.14159265358979 / 180.0), 1e-6);  // degrees, halved
  EXPECT_FLOAT_EQ(l.light.cos_hotspot, 0.5f);                                          // a cosine already
  EXPECT_FLOAT_EQ(l.diffuse_multiplier, 1.5f);
  EXPECT_EQ(l.vertices.size(), 1u);
  EXPECT_EQ(l.flags & 0x4030u, 0x4030u);
  const Submodel& s = m.submodels[1];
  EXPECT_EQ(s.type, e3d::stars);
  EXPECT_EQ(s.anim, 17);  // rotate: "undefined"
  ASSERT_EQ(s.vertices.size(), 3u);
  EXPECT_EQ(s.vertices[0].normal, (std::array<float, 3>{1, 0, 1}));  // 0xFF00FF: red and blue
  const Submodel& u = m.submodels[2];
  ASSERT_EQ(u.user_data.size(), 3u);
  EXPECT_EQ(u.user_data[2], (std::array<float, 4>{9, 10, 11, 12}));
  const e3d::Model e = to_e3d(m, {.vehicle = false});
  EXPECT_EQ(e.vertex_variant, 6);  // float vertices with tangents and user data
  bool found = false;
  for (const auto& sub : e.submodels)
    if (e.name_of(sub) == "u") {
      EXPECT_EQ(e.vertex(static_cast<std::size_t>(sub.vertex_offset) + 1).user, (std::array<float, 4>{5, 6, 7, 8}));
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(T3d, BrokenTextsAreRefusedWithLineAndColumn) {
  const std::string head = "Parent: none\nType: Mesh\nName: m\nAnim: false\nAmbient: 1 1 1\nDiffuse: 1 1 1\nSpecular: 1 1 1\nSelfIllum: 0\n"
                           "Wire: false\nWireSize: 1\nOpacity: 1\nMap: none\nMaxDistance: 1\nMinDistance: 0\nTransform: 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\n";
  struct Case {
    std::string text;
    std::uint32_t line, column;
    std::string says;
  };
  for (const Case& c : {Case{head + "NumVerts: 4\n", 16, 1, "not a whole number of triangles"},
                        Case{head + "NumIndices: 3 0 1 7\nNumVerts: 2\n0 0 0 0 0 1 0 0 1 0 0 1\n0 0 0 0 0 1 0 0 1 0 0 1\n", 17, 1, "index 7 but only 2 vertices"},
                        Case{head + "NumVerts: 3\n0\n1 2 3 0 0\n", 18, 9, "ends where"},
                        Case{"Parent: none\nKind: Mesh\n", 2, 1, "expected Type:"}}) {
    SCOPED_TRACE(c.says);
    auto m = read_model(text(c.text));
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().line, c.line);
    EXPECT_EQ(m.error().column, c.column);
    EXPECT_NE(m.error().message.find(c.says), std::string::npos) << m.error().message;
  }
}

}  // namespace
}  // namespace sceneria::t3d

namespace sceneria::t3d {
namespace {

// The converter's other vertex chunks, read back by the E3D reader: packed (VNT1), packed with
// user data (VNT5), and VNT0 for a model with nothing indexed (stars and a light).
TEST(T3d, EveryVertexChunkTheConverterWritesReadsBack) {
  const std::string tri = "NumVerts: 3\n0\n1 2 3 0 0.5\n2 2 3 1 0\n1 3 3 0 1\n";
  const Options packed{.vehicle = false, .float_vertices = false};
  {
    const e3d::Model e = to_e3d(read_ok(mesh("m", "none", tri)), packed);
    EXPECT_EQ(e.vertex_variant, 1);
    const auto back = e3d::read_model(e3d::write_model(e));
    ASSERT_TRUE(back.ok());
    const e3d::Vertex v = back->vertex(0);
    EXPECT_EQ(v.position, (std::array<float, 3>{-1, 3, 2}));  // halves hold small integers exactly
    EXPECT_EQ(v.uv, (std::array<float, 2>{0, 0.5f}));
    EXPECT_NEAR(v.normal[1], 1.0f, 1.0f / 511);  // the face normal (0,0,1) rotated: (0,1,0)
  }
  {
    const std::string user = mesh("u", "none", "UserData: true\n" + tri + "1 2 3 4 5 6 7 8 9 10 11 12");
    const e3d::Model e = to_e3d(read_ok(user), packed);
    EXPECT_EQ(e.vertex_variant, 5);
    EXPECT_EQ(e.vertex_stride(), 28u);
    EXPECT_EQ(e.vertex(2).user, (std::array<float, 4>{9, 10, 11, 12}));
    const e3d::Model f = to_e3d(read_ok(user), {.vehicle = false});  // floats with user data: VNT6
    EXPECT_EQ(f.vertex_variant, 6);
    EXPECT_EQ(f.vertex_stride(), 64u);
    EXPECT_EQ(f.vertex(2).user, (std::array<float, 4>{9, 10, 11, 12}));
    EXPECT_EQ(f.vertex(2).uv, (std::array<float, 2>{0, 1}));
    EXPECT_EQ(f.vertex(1).position, (std::array<float, 3>{-2, 3, 2}));
  }
  {
    const std::string sky =
        "Parent: none\nType: Stars\nName: sky\nAnim: false\nDiffuse: 255 255 255\nSelfIllum: 0\nMaxDistance: 0\nMinDistance: 0\n"
        "Transform: 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\nNumVerts: 3\n0\n1 2 3 255 0\n4 5 6 65280 0\n7 8 9 16711680 0\n";
    const e3d::Model e = to_e3d(read_ok(sky), {.vehicle = false});
    EXPECT_EQ(e.vertex_variant, 0);
    EXPECT_EQ(e.index_size, 0);
    ASSERT_EQ(e.submodels.size(), 1u);
    EXPECT_EQ(e.submodels[0].type, e3d::stars);
    EXPECT_EQ(e.vertex(1).position, (std::array<float, 3>{-4, 6, 5}));
    EXPECT_EQ(e.vertex(1).normal, (std::array<float, 3>{0, 1, 0}));  // the colour, green, not rotated
  }
}

}  // namespace
}  // namespace sceneria::t3d

namespace sceneria::t3d {
namespace {

// Opened as a document, a model's lights and stars are drawn as markers: an octahedron at each
// point, in the light's colour; each one a record.
TEST(T3d, LightsAndStarsAreDrawnAsMarkers) {
  const std::string text =
      "Parent: none\nType: FreeSpotLight\nName: lamp\nAnim: false\nDiffuse: 255 128 0\nSelfIllum: true\n"
      "NearAttenStart: 1 a: 2 b: 0 c: 0 d: 50 e: 60 f: 30\nMaxDistance: 100\nMinDistance: 0\nTransform: 1 0 0 0 0 1 0 0 0 0 1 0 5 0 0 1\n"
      "Parent: none\nType: Stars\nName: sky\nAnim: false\nDiffuse: 255 255 255\nSelfIllum: 0\nMaxDistance: 0\nMinDistance: 0\n"
      "Transform: 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\nNumVerts: 3\n0\n1 2 3 255 0\n4 5 6 65280 0\n7 8 9 16711680 0\n";
  MemorySource source(sceneria::t3d::text(text), "markers.t3d");
  auto doc = open_document(source);
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  EXPECT_EQ((*doc)->format_id(), "t3d");
  auto scene = (*doc)->scene();
  ASSERT_TRUE(scene.ok());
  ASSERT_EQ(scene->meshes.size(), 2u);
  std::map<std::string, const scene::Mesh*> by_name;
  for (const auto& m : scene->meshes) by_name[m.name] = &m;
  ASSERT_TRUE(by_name.count("lamp") && by_name.count("sky"));
  EXPECT_EQ(by_name["lamp"]->positions.size(), 6u);
  EXPECT_EQ(by_name["sky"]->positions.size(), 18u);
  EXPECT_EQ(by_name["sky"]->indices.size(), 72u);
  EXPECT_EQ(scene->materials.at(by_name["lamp"]->parts[0].material).color, 0xFF0080FFu);  // RGBA8 little-endian: r 255, g 128, b 0
  EXPECT_EQ(scene->objects.size(), 2u);
}

}  // namespace
}  // namespace sceneria::t3d
