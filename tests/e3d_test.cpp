// E3D models against the reference summaries (made by walking the chunks as the engine's loader
// does): chunks, lists, every submodel's fields, links, blocks, first vertex and indices, totals;
// every sample written back byte for byte; and hostile files refused with the chunk and offset.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "formats/e3d/e3d.hpp"
#include "formats/textures.hpp"
#include "registry/registry.hpp"
#include "fixtures.hpp"
#include "sample_files.hpp"

namespace sceneria::e3d {
namespace {

using json = nlohmann::json;

std::vector<std::filesystem::path> e3d_samples() {
  std::vector<std::filesystem::path> out;
  const auto dir = test::samples_dir() / "maszyna/models";
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".e3d") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

json summary_of(const std::filesystem::path& p) {
  std::ifstream in(p.string() + ".reference-summary.json");
  return json::parse(in);
}

void expect_floats(const json& want, std::span<const float> got, const std::string& what, float tolerance = 1e-5f) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (want[i].is_string()) {  // the summaries write a NaN in the file (kabina_a's tangents) as "nan"
      EXPECT_EQ(want[i].get<std::string>(), "nan") << what << "[" << i << "]";
      EXPECT_TRUE(std::isnan(got[i])) << what << "[" << i << "]";
      continue;
    }
    EXPECT_NEAR(want[i].get<double>(), got[i], tolerance * std::max(1.0, std::fabs(want[i].get<double>()))) << what << "[" << i << "]";
  }
}

TEST(E3d, EverySampleDecodesLikeTheEngine) {
  const auto samples = e3d_samples();
  SCENERIA_REQUIRE_SAMPLES();
  ASSERT_EQ(samples.size(), 8u);
  for (const auto& path : samples) {
    SCOPED_TRACE(path.filename().string());
    const json ref = summary_of(path);
    const auto bytes = test::read_file(path);
    auto model = read_model(bytes);
    ASSERT_TRUE(model.ok()) << model.error().describe();
    const Model& m = *model;

    ASSERT_EQ(m.chunks.size(), ref["chunks"].size());
    for (std::size_t i = 0; i < m.chunks.size(); ++i) {
      EXPECT_EQ(std::string(m.chunks[i].id.data(), 4), ref["chunks"][i]["id"].get<std::string>());
      EXPECT_EQ(m.chunks[i].offset, ref["chunks"][i]["offset"].get<std::uint64_t>());
      EXPECT_EQ(m.chunks[i].size, ref["chunks"][i]["size"].get<std::uint64_t>());
    }
    EXPECT_EQ(m.vertex_variant, ref["vertex_chunk"]["variant"].get<int>());
    EXPECT_EQ(m.vertex_stride(), ref["vertex_chunk"]["bytes_per_vertex"].get<std::size_t>());
    EXPECT_EQ(m.vertex_total(), ref["vertex_chunk"]["vertices_in_chunk"].get<std::size_t>());
    EXPECT_EQ(m.index_size, ref["index_chunk"]["bytes_per_index"].get<int>());
    EXPECT_EQ(m.index_total(), ref["index_chunk"]["indices_in_chunk"].get<std::size_t>());
    EXPECT_EQ(m.matrices.size(), ref["matrix_chunk"]["count"].get<std::size_t>());
    EXPECT_EQ(m.textures, ref["textures"].get<std::vector<std::string>>());
    EXPECT_EQ(m.names, ref["names"].get<std::vector<std::string>>());

    ASSERT_EQ(m.submodels.size(), ref["submodels"].size());
    std::uint64_t vertices = 0, indices = 0, triangles = 0;
    for (std::size_t i = 0; i < m.submodels.size(); ++i) {
      const Submodel& s = m.submodels[i];
      const json& r = ref["submodels"][i];
      SCOPED_TRACE(fmt::format("submodel {}", i));
      EXPECT_EQ(std::string(m.name_of(s)), r["name"].is_null() ? std::string() : r["name"].get<std::string>());
      EXPECT_EQ(s.name, r["name_index"].get<int>());
      EXPECT_EQ(s.type, r["type"].get<int>());
      EXPECT_EQ(s.anim, r["anim"].get<int>());
      EXPECT_EQ(fmt::format("{:#06x}", s.flags), r["flags"].get<std::string>());
      EXPECT_EQ(s.next, r["raw_next"].get<int>());
      EXPECT_EQ(s.child, r["raw_child"].get<int>());
      EXPECT_EQ(s.parent, r["parent"].is_null() ? -1 : r["parent"].get<int>());
      EXPECT_EQ(s.matrix, r["matrix_index"].get<int>());
      std::array<float, 16> matrix{};
      for (std::size_t e = 0; e < 16; ++e) matrix[e] = static_cast<float>(m.matrices[static_cast<std::size_t>(s.matrix)][e]);
      expect_floats(r["matrix"], matrix, "matrix");
      EXPECT_EQ(s.vertex_count, r["vertex_count"].get<int>());
      EXPECT_EQ(s.vertex_offset, r["vertex_offset"].get<int>());
      EXPECT_EQ(s.index_count, r["index_count"].get<int>());
      EXPECT_EQ(s.index_offset, r["index_offset"].get<int>());
      EXPECT_EQ(s.texture, r["texture_index"].get<int>());
      EXPECT_EQ(m.material_of(s), r["material"].get<std::string>());
      EXPECT_FLOAT_EQ(s.self_illum, r["self_illum"].get<float>());
      expect_floats(r["ambient"], s.ambient, "ambient");
      expect_floats(r["diffuse"], s.diffuse, "diffuse");
      expect_floats(r["specular"], s.specular, "specular");
      expect_floats(r["emission"], s.emission, "emission");
      EXPECT_FLOAT_EQ(s.wire_size, r["wire_size"].get<float>());
      EXPECT_FLOAT_EQ(s.max_distance_sq, r["max_distance_squared"].get<float>());
      EXPECT_FLOAT_EQ(s.min_distance_sq, r["min_distance_squared"].get<float>());
      EXPECT_FLOAT_EQ(s.light.near_atten_start, r["light"]["near_atten_start"].get<float>());
      EXPECT_FLOAT_EQ(s.light.far_decay_radius, r["light"]["far_decay_radius"].get<float>());
      EXPECT_FLOAT_EQ(s.light.cos_hotspot, r["light"]["cos_hotspot"].get<float>());
      EXPECT_EQ(s.light.use_near_atten != 0, r["light"]["use_near_atten"].get<bool>());
      EXPECT_FLOAT_EQ(s.diffuse_multiplier, r["diffuse_multiplier"].get<float>());
      EXPECT_EQ(m.hidden_by_default(s, false), r["hidden_by_default"]["scenery_model"].get<bool>());
      EXPECT_EQ(m.hidden_by_default(s, true), r["hidden_by_default"]["vehicle_model"].get<bool>());
      vertices += static_cast<std::uint64_t>(s.vertex_count);
      indices += static_cast<std::uint64_t>(s.index_count);
      triangles += static_cast<std::uint64_t>(s.index_count ? s.index_count : s.vertex_count) / 3;
      if (s.vertex_count <= 0) continue;

      std::array<float, 3> lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
      for (std::int32_t v = 0; v < s.vertex_count; ++v) {
        const Vertex x = m.vertex(static_cast<std::size_t>(s.vertex_offset + v));
        for (std::size_t k = 0; k < 3; ++k) lo[k] = std::min(lo[k], x.position[k]), hi[k] = std::max(hi[k], x.position[k]);
      }
      expect_floats(r["vertex_aabb"]["min"], lo, "aabb min");
      expect_floats(r["vertex_aabb"]["max"], hi, "aabb max");
      const Vertex first = m.vertex(static_cast<std::size_t>(s.vertex_offset));
      expect_floats(r["first_vertex"]["position"], first.position, "first position");
      expect_floats(r["first_vertex"]["normal"], first.normal, "first normal");
      expect_floats(r["first_vertex"]["uv"], first.uv, "first uv");
      expect_floats(r["first_vertex"]["tangent"], first.tangent, "first tangent");
      if (s.index_count <= 0) continue;
      std::uint32_t min = UINT32_MAX, max = 0;
      std::vector<std::uint32_t> head;
      for (std::int32_t k = 0; k < s.index_count; ++k) {
        const std::uint32_t x = m.index(static_cast<std::size_t>(s.index_offset + k));
        min = std::min(min, x), max = std::max(max, x);
        if (head.size() < 6) head.push_back(x);
      }
      EXPECT_EQ(min, r["index_range"]["min"].get<std::uint32_t>());
      EXPECT_EQ(max, r["index_range"]["max"].get<std::uint32_t>());
      EXPECT_EQ(head, r["first_indices"].get<std::vector<std::uint32_t>>());
      EXPECT_EQ(static_cast<std::uint64_t>(s.index_count / 3), r["triangles"].get<std::uint64_t>());
    }
    EXPECT_EQ(vertices, ref["totals"]["vertices"].get<std::uint64_t>());
    EXPECT_EQ(indices, ref["totals"]["indices"].get<std::uint64_t>());
    EXPECT_EQ(triangles, ref["totals"]["triangles"].get<std::uint64_t>());
  }
}

TEST(E3d, EverySampleIsWrittenBackByteForByte) {
  const auto samples = e3d_samples();
  SCENERIA_REQUIRE_SAMPLES();
  for (const auto& path : samples) {
    const auto bytes = test::read_file(path);
    auto model = read_model(bytes);
    ASSERT_TRUE(model.ok()) << path.filename() << ": " << model.error().describe();
    EXPECT_TRUE(write_model(*model) == bytes) << path.filename();
  }
}

// A model made in code: packed vertices (VNT1), 4-byte indices, f64 matrices, SUB1 records, a
// sibling and a child, a chunk nobody knows. Written, read back, the same fields.
TEST(E3d, VariantsNoSampleHasRoundTrip) {
  Model m;
  for (const char* id : {"SUB1", "TRA1", "IDX4", "VNT1", "TEX0", "NAM0", "XTRA"}) {
    ChunkInfo c;
    std::memcpy(c.id.data(), id, 4);
    if (std::string_view(id) == "XTRA") c.unknown = {1, 2, 3};
    m.chunks.push_back(c);
  }
  m.sub_variant = 1;
  m.matrices_f64 = true;
  m.matrices = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.125, 2.5, -3.0000001, 1}};
  m.textures = {"", "a\\b"};
  m.names = {"Light_On00", "lamp_on", "root"};
  m.vertex_variant = 1;
  // Three packed vertices: halves 1.0 / -2.0 / 0.5, normal +x (511), uv 0.5 / 0.25, tangent w -1.
  const std::uint64_t pos = 0x3C00ull | 0xC000ull << 16 | 0x3800ull << 32;
  const std::uint32_t normal = 511, tangent = 511u << 10 | 3u << 30;
  for (int i = 0; i < 3; ++i) {
    std::uint8_t v[20];
    std::memcpy(v, &pos, 8);
    std::memcpy(v + 8, &normal, 4);
    const std::uint16_t u = 0x3800, w = 0x3400;
    std::memcpy(v + 12, &u, 2);
    std::memcpy(v + 14, &w, 2);
    std::memcpy(v + 16, &tangent, 4);
    m.vertex_bytes.insert(m.vertex_bytes.end(), v, v + 20);
  }
  m.index_size = 4;
  for (std::uint32_t i : {0u, 1u, 2u}) m.index_bytes.insert(m.index_bytes.end(), reinterpret_cast<std::uint8_t*>(&i), reinterpret_cast<std::uint8_t*>(&i) + 4);
  Submodel root, lamp, light;
  root.name = 2, root.next = 1, root.matrix = 0, root.type = rotator;
  light.name = 0, light.child = 2, light.matrix = 0, light.vertex_count = 3, light.index_count = 3, light.texture = 1;
  lamp.name = 1, lamp.matrix = 0, lamp.texture = -3;
  m.submodels = {root, light, lamp};
  const auto bytes = write_model(m);
  auto back = read_model(bytes);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(write_model(*back) == bytes);
  EXPECT_EQ(back->sub_variant, 1);
  ASSERT_EQ(back->submodels.size(), 3u);
  EXPECT_EQ(back->submodels[0].parent, -1);
  EXPECT_EQ(back->submodels[1].parent, -1);  // a root: in 0's next chain
  EXPECT_EQ(back->submodels[2].parent, 1);
  EXPECT_EQ(back->matrices[0][14], -3.0000001);  // f64 kept
  EXPECT_EQ(back->material_of(back->submodels[1]), "a/b");
  EXPECT_EQ(back->material_of(back->submodels[2]), "replaceable skin 3");
  EXPECT_TRUE(back->hidden_by_default(back->submodels[1], false));
  EXPECT_FALSE(back->hidden_by_default(back->submodels[2], false));
  EXPECT_TRUE(back->hidden_by_default(back->submodels[2], true));
  const Vertex v = back->vertex(1);
  EXPECT_EQ(v.position, (std::array<float, 3>{1.0f, -2.0f, 0.5f}));
  EXPECT_EQ(v.normal, (std::array<float, 3>{1.0f, 0.0f, 0.0f}));
  EXPECT_EQ(v.uv, (std::array<float, 2>{0.5f, 0.25f}));
  EXPECT_EQ(v.tangent, (std::array<float, 4>{0.0f, 1.0f, 0.0f, -1.0f}));
  EXPECT_EQ(back->index(2), 2u);
  ASSERT_EQ(back->chunks.back().unknown, (std::vector<std::uint8_t>{1, 2, 3}));
}

TEST(E3d, HostileFilesAreRefusedWithTheChunkAndOffset) {
  const auto samples = e3d_samples();
  SCENERIA_REQUIRE_SAMPLES();
  const auto bytes = test::read_file(test::samples_dir() / "maszyna/models/oslony_syren.e3d");
  // Every cut refuses the file: the E3D0 size no longer fits.
  for (std::size_t n = 0; n < bytes.size(); n += 7) {
    auto m = read_model(std::span(bytes).first(n));
    ASSERT_FALSE(m.ok()) << n;
  }
  auto with = [&](std::size_t at, std::uint32_t v) {
    auto b = bytes;
    std::memcpy(b.data() + at, &v, 4);
    return read_model(b);
  };
  // SUB0 at 8: its one record's fields from 16.
  auto cycle = with(16 + 0, 0);  // next = 0 is "none"; a child pointing back at itself:
  EXPECT_TRUE(cycle.ok());
  auto child = with(16 + 4, 0);
  EXPECT_TRUE(child.ok());  // 0 is "none" too
  auto far = with(16 + 32, 100);  // vertex offset past the pool
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.error().message.find("submodel 0 at 0x10: vertices 100..228 but the pool has 128"), std::string::npos) << far.error().message;
  auto index = with(344 + 8, 0xFFFF);  // IDX2 at 344: the first index
  ASSERT_FALSE(index.ok());
  EXPECT_NE(index.error().message.find("index 0 is 65535 but the submodel has 128 vertices"), std::string::npos) << index.error().message;
  auto size = with(1024 + 4, 0x7FFFFFFF);  // VNT2's size
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.error().message, "chunk VNT2 at 0x400 claims 2147483647 bytes but only 6182 remain in E3D0");
  auto texture = with(16 + 36, 5);
  ASSERT_FALSE(texture.ok());
  EXPECT_NE(texture.error().message.find("texture 5 but TEX0 has 1 entries"), std::string::npos);
  // Vertices before the submodels: the chunks swapped.
  auto swapped = bytes;
  std::memcpy(swapped.data() + 8, "VNT2", 4);
  ASSERT_FALSE(read_model(swapped).ok());
}

// Two submodels whose links loop: refused, not followed for ever.
TEST(E3d, ALinkCycleIsRefused) {
  Model m;
  for (const char* id : {"SUB0", "TRA0"}) {
    ChunkInfo c;
    std::memcpy(c.id.data(), id, 4);
    m.chunks.push_back(c);
  }
  Submodel a, b;
  a.child = 1, b.child = 1;
  m.submodels = {a, b};
  auto back = read_model(write_model(m));
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("linked twice"), std::string::npos) << back.error().message;
}

}  // namespace
}  // namespace sceneria::e3d

namespace sceneria::e3d {
namespace {

TEST(E3d, TexturesAndSkinsAreFoundAsTheEngineFindsThem) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto dir = test::samples_dir() / "maszyna/models";
  const auto model = test::read_file(dir / "e6acta_detale_dual_power.e3d");
  MemoryAssets assets;
  assets.add("Vehicle/Kratka.DDS", test::read_file(dir / "kratka.dds"));  // named by the file name alone, any case
  assets.add("Vehicle/blue,1.mat", {'t', 'e', 'x', 't', 'u', 'r', 'e', '1', ':', ' ', 's', 'k', 'i', 'n', 's', '/', 'b', 'l', 'u', 'e'});
  assets.add("Vehicle/skins/blue.dds", test::solid_dds(0x001F));
  assets.add("Vehicle/red,1.dds", test::solid_dds(0xF800));
  MemorySource source(model, "Vehicle/e6acta_detale_dual_power.e3d");
  for (const auto& [set, want] : {std::pair<std::string, std::uint32_t>{"", 0x001F}, {"red", 0xF800}}) {
    SCOPED_TRACE(set);
    OpenOptions options{.assets = &assets};
    if (!set.empty()) options.params["skin-set"] = set;
    auto doc = open_document(source, options);
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    const auto summary = (*doc)->summary(0);
    EXPECT_EQ(summary["textures_loaded"].get<int>(), 2);
    EXPECT_EQ(summary["skin_sets"], nlohmann::ordered_json::array({"vehicle/blue", "vehicle/red"}));
    // The choice a host renders: the sets among the files, the one in use.
    const auto choices = describe(**doc)["choices"];
    ASSERT_EQ(choices.size(), 1u);  // no submodel of it waits for lights
    EXPECT_EQ(choices[0]["param"], "skin-set");
    EXPECT_EQ(choices[0]["values"], nlohmann::ordered_json::parse(R"([{"value":"vehicle/blue","label":"vehicle/blue"},{"value":"vehicle/red","label":"vehicle/red"}])"));
    EXPECT_EQ(choices[0]["value"], set.empty() ? "vehicle/blue" : "vehicle/red");
    EXPECT_TRUE((*doc)->missing_assets().empty());
    auto scene = (*doc)->scene();
    ASSERT_TRUE(scene.ok());
    // Submodel 0 wears skin 1, submodel 1 kratka (DXT5, 512x512 with its 10 levels).
    ASSERT_EQ(scene->meshes.size(), 2u);
    const auto& skin = scene->textures.at(scene->materials.at(scene->meshes[0].parts[0].material).texture);
    ASSERT_EQ(skin.format, scene::Texture::Format::bc1);
    std::uint16_t c0 = 0;
    std::memcpy(&c0, skin.levels[0].data(), 2);
    EXPECT_EQ(c0, want);
    const auto& kratka = scene->textures.at(scene->materials.at(scene->meshes[1].parts[0].material).texture);
    EXPECT_EQ(kratka.format, scene::Texture::Format::bc3);
    EXPECT_EQ(kratka.width, 512u);
    EXPECT_EQ(kratka.levels.size(), 10u);
  }
  // Without the files: each named once in the missing list.
  MemoryAssets none;
  auto doc = open_document(source, {.assets = &none});
  ASSERT_TRUE(doc.ok());
  const auto missing = (*doc)->missing_assets();
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_NE(missing[0].find("components/kratka"), std::string::npos);
  EXPECT_NE(missing[1].find("skin set"), std::string::npos);
}

// The scene carries every vertex's UV as the file holds it, checked against the engine's first
// vertex of each submodel in the reference summaries (a UV lost between the records and the
// scene would draw every texture as one texel).
TEST(E3d, EverySamplesSceneCarriesTheEnginesUvs) {
  const auto samples = e3d_samples();
  SCENERIA_REQUIRE_SAMPLES();
  ASSERT_EQ(samples.size(), 8u);
  std::size_t checked = 0;
  for (const auto& path : samples) {
    SCOPED_TRACE(path.filename().string());
    const json ref = summary_of(path);
    const auto bytes = test::read_file(path);
    const auto model = read_model(bytes);
    ASSERT_TRUE(model.ok());
    MemorySource source(bytes, path.filename().string());
    auto doc = open_document(source);
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    auto scene = (*doc)->scene();
    ASSERT_TRUE(scene.ok());
    // Meshes come in submodel order, named after their submodels; hidden ones are left out.
    std::size_t next = 0;
    for (std::size_t i = 0; i < model->submodels.size(); ++i) {
      const Submodel& sub = model->submodels[i];
      const json& r = ref["submodels"][i];
      if (r["type_name"] != "GL_TRIANGLES" || sub.vertex_count <= 0) continue;
      std::size_t k = next;
      while (k < scene->meshes.size() && scene->meshes[k].name != r["name"].get<std::string>()) ++k;
      if (k == scene->meshes.size()) continue;  // hidden by default
      next = k + 1;
      const scene::Mesh& mesh = scene->meshes[k];
      SCOPED_TRACE(mesh.name);
      ASSERT_EQ(mesh.uvs.size(), static_cast<std::size_t>(sub.vertex_count));
      expect_floats(r["first_vertex"]["uv"], std::array<float, 2>{mesh.uvs[0].x, mesh.uvs[0].y}, "scene's first uv");
      for (std::int32_t v = 0; v < sub.vertex_count; ++v) {
        const Vertex x = model->vertex(static_cast<std::size_t>(sub.vertex_offset + v));
        ASSERT_EQ(mesh.uvs[static_cast<std::size_t>(v)], glm::vec2(x.uv[0], x.uv[1])) << "vertex " << v;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 20u);
}

// A TGA, PNG, BMP or JPEG is kept bottom row first, as the engine keeps it (v = 0 samples the
// picture's foot); a DDS as stored. A TGA says where its rows start (descriptor bit 5).
TEST(E3d, PicturesKeepTheEnginesRowOrder) {
  // 1 x 2, 32-bit: stored rows red then blue.
  const auto tga = [](bool top_left) {
    std::vector<std::uint8_t> b(18, 0);
    b[2] = 2, b[12] = 1, b[14] = 2, b[16] = 32, b[17] = static_cast<std::uint8_t>(8 | (top_left ? 0x20 : 0));
    for (std::uint8_t c : {0, 0, 255, 255, 255, 0, 0, 255}) b.push_back(c);  // BGRA red, BGRA blue
    return b;
  };
  const auto first_row = [](const scene::Texture& t) { return std::array<std::uint8_t, 3>{t.levels[0][0], t.levels[0][1], t.levels[0][2]}; };
  const std::array<std::uint8_t, 3> red{255, 0, 0}, blue{0, 0, 255};
  // Bottom-left origin (TGA's default): the first stored row is the foot, and stays first.
  EXPECT_EQ(first_row(decode_texture(tga(false), "a", ImageRows::bottom_first).value()), red);
  EXPECT_EQ(first_row(decode_texture(tga(false), "a", ImageRows::top_first).value()), blue);
  // Top-left origin: the first stored row is the top, so the last one comes first.
  EXPECT_EQ(first_row(decode_texture(tga(true), "a", ImageRows::bottom_first).value()), blue);
  EXPECT_EQ(first_row(decode_texture(tga(true), "a", ImageRows::top_first).value()), red);
  // A model's textures are read the engine's way.
  MemoryAssets assets;
  assets.add("m/kratka.tga", tga(true));
  const auto dir = test::samples_dir() / "maszyna/models";
  SCENERIA_REQUIRE_SAMPLES();
  MemorySource source(test::read_file(dir / "e6acta_detale_dual_power.e3d"), "m/e6acta_detale_dual_power.e3d");
  auto doc = open_document(source, {.assets = &assets});
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  auto scene = (*doc)->scene();
  ASSERT_TRUE(scene.ok());
  const auto& look = scene->materials.at(scene->meshes.at(1).parts.at(0).material);
  ASSERT_NE(look.texture, scene::kNoTexture);
  const scene::Texture& t = scene->textures.at(look.texture);
  ASSERT_EQ(t.format, scene::Texture::Format::rgba8);
  EXPECT_EQ(first_row(t), blue);
}

}  // namespace
}  // namespace sceneria::e3d

namespace sceneria::e3d {
namespace {

// The submodels lights switch on (`*_on` in a vehicle) are left out of the scene until asked for.
TEST(E3d, HiddenSubmodelsAreDrawnWhenAskedFor) {
  SCENERIA_REQUIRE_SAMPLES();
  for (const char* name : {"interior_maszynownia.e3d", "kabina_a.e3d"}) {
    SCOPED_TRACE(name);
    const auto path = test::samples_dir() / "maszyna/models" / name;
    const json ref = summary_of(path);
    std::uint64_t hidden = 0;
    for (const json& s : ref["submodels"]) hidden += s["hidden_by_default"]["vehicle_model"].get<bool>() && s["type"] != 256 && s["vertex_count"].get<int>() > 0;
    ASSERT_GT(hidden, 0u);
    const auto bytes = test::read_file(path);
    MemorySource source(bytes, name);
    auto plain = open_document(source);
    auto shown = open_document(source, {.params = {{"hidden", "true"}}});
    ASSERT_TRUE(plain.ok() && shown.ok());
    EXPECT_EQ((*plain)->summary(0)["hidden_submodels"].get<std::uint64_t>(), hidden);
    // The toggle a host renders, with the count in its label, off until asked for.
    const auto choices = (*plain)->choices();
    const auto toggle = std::find_if(choices.begin(), choices.end(), [](const Choice& c) { return c.param == "hidden"; });
    ASSERT_NE(toggle, choices.end());
    EXPECT_TRUE(toggle->toggle);
    EXPECT_EQ(toggle->label, fmt::format("Show {} submodel{} lights switch on", hidden, hidden == 1 ? "" : "s"));
    EXPECT_EQ(toggle->value, "false");
    const auto on = (*shown)->choices();
    EXPECT_EQ(std::find_if(on.begin(), on.end(), [](const Choice& c) { return c.param == "hidden"; })->value, "true");
    EXPECT_EQ((*shown)->scene()->objects.size(), (*plain)->scene()->objects.size() + hidden);
  }
}

// The outliner shows the submodel tree: each row's depth is its parent chain in the reference.
// A model placed by a scenery is no vehicle: it hides only Light_On* (its textures' folder is
// ModelLoader's test).
TEST(E3d, RowsCarryTheTreeAndAPlacedModelIsNoVehicle) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto path = test::samples_dir() / "maszyna/models/e6acta_pantograf.e3d";
  const json ref = summary_of(path);
  const auto bytes = test::read_file(path);
  MemorySource source(bytes, "e6acta_pantograf.e3d");
  auto doc = open_document(source);
  ASSERT_TRUE(doc);
  const auto rows = (*doc)->rows("submodels", 0, 100);
  ASSERT_EQ(rows.size(), ref["submodels"].size());
  int deepest = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    int depth = 0;
    for (json p = ref["submodels"][i]["parent"]; !p.is_null(); p = ref["submodels"][p.get<std::size_t>()]["parent"]) ++depth;
    EXPECT_EQ(rows[i]["depth"].get<int>(), depth) << "submodel " << i;
    deepest = std::max(deepest, depth);
  }
  EXPECT_EQ(deepest, 4);  // root, pantograph, lower arm, upper arm, pan head

  const auto cab = test::samples_dir() / "maszyna/models/interior_maszynownia.e3d";
  const json cab_ref = summary_of(cab);
  std::uint64_t scenery_hidden = 0, vehicle_hidden = 0;
  for (const json& s : cab_ref["submodels"]) {
    if (s["type"] == 256 || s["vertex_count"].get<int>() <= 0 || s["type"] != 4) continue;
    scenery_hidden += s["hidden_by_default"]["scenery_model"].get<bool>();
    vehicle_hidden += s["hidden_by_default"]["vehicle_model"].get<bool>();
  }
  ASSERT_GT(vehicle_hidden, scenery_hidden);
  const auto cab_bytes = test::read_file(cab);
  MemorySource cab_source(cab_bytes, "interior_maszynownia.e3d");
  MemoryAssets none;
  auto vehicle = open_document(cab_source);
  auto placed = open_document(cab_source, {.assets = &none, .staged = false, .deferred = false, .texture_base = "textures/x/"});
  ASSERT_TRUE(vehicle && placed);
  EXPECT_EQ((*placed)->scene()->meshes.size(), (*vehicle)->scene()->meshes.size() + vehicle_hidden - scenery_hidden);
}

// The converters' last step: a built model read back from its bytes, its pools moved rather than
// copied; a model whose bytes do not read keeps its pools.
TEST(E3d, ARereadModelIsTheReadOfItsBytesWithItsPoolsMoved) {
  const auto bytes = test::read_file(test::samples_dir() / "maszyna/models/oslony_syren.e3d");
  auto built = read_model(bytes);
  ASSERT_TRUE(built);
  const std::size_t vertex_bytes = built->vertex_bytes.size(), index_bytes = built->index_bytes.size();
  ASSERT_GT(vertex_bytes, 0u);
  auto back = reread_model(*built);
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(write_model(*back), bytes);
  EXPECT_EQ(back->vertex_bytes.size(), vertex_bytes);
  EXPECT_EQ(back->index_bytes.size(), index_bytes);
  EXPECT_TRUE(built->vertex_bytes.empty());  // moved, not copied

  auto broken = read_model(bytes);
  ASSERT_TRUE(broken);
  std::size_t with_indices = 0;
  while (with_indices < broken->submodels.size() && broken->submodels[with_indices].index_count <= 0) ++with_indices;
  ASSERT_LT(with_indices, broken->submodels.size());
  broken->submodels[with_indices].vertex_count = 1;  // its indices now point past its vertices
  EXPECT_FALSE(reread_model(*broken));
  EXPECT_EQ(broken->vertex_bytes.size(), vertex_bytes);
  EXPECT_EQ(broken->index_bytes.size(), index_bytes);
}

}  // namespace
}  // namespace sceneria::e3d
