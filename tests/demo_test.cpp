// The demo and the gallery (registry/railway, registry/examples): made by the core, read back by
// the core's own readers as a user's files are — counts, placements, textures, facing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <glm/glm.hpp>

#include "export/export.hpp"
#include "formats/catalog.hpp"
#include "formats/dds/dds.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"
#include "registry/examples.hpp"
#include "registry/railway.hpp"
#include "registry/registry.hpp"
#include "stream/model_loader.hpp"

namespace sceneria {
namespace {

struct Opened {
  MemoryAssets assets;
  std::unique_ptr<Document> doc;
  nlohmann::ordered_json described;
};

// The files as a dropped folder: the first is the document, the rest what it may refer to.
std::unique_ptr<Opened> open_files(const std::vector<ExampleFile>& files) {
  auto out = std::make_unique<Opened>();
  for (std::size_t i = 1; i < files.size(); ++i) out->assets.add(files[i].path, files[i].bytes);
  MemorySource source(std::span<const std::uint8_t>(files.front().bytes), files.front().path);
  OpenOptions options;
  options.assets = &out->assets;
  auto doc = open_document(source, options);
  EXPECT_TRUE(doc.ok()) << files.front().path << ": " << (doc ? "" : doc.error().describe());
  if (!doc) return nullptr;
  out->doc = std::move(*doc);
  out->described = describe(*out->doc);
  return out;
}

const ExampleFile* file_named(const std::vector<ExampleFile>& files, std::string_view path) {
  for (const ExampleFile& f : files)
    if (f.path == path) return &f;
  return nullptr;
}

TEST(Demo, TheRailwayIsAGameFolderItsSceneryNamesWhole) {
  const auto files = demo::railway_files();
  ASSERT_EQ(files.front().path, "scenery/demo.scn");
  auto opened = open_files(files);
  ASSERT_TRUE(opened);
  const auto& d = opened->described;
  EXPECT_TRUE(d["missingFiles"].empty()) << d["missingFiles"].dump();
  EXPECT_TRUE(d["warnings"].empty()) << d["warnings"].dump();
  const auto& c = d["counts"];
  // Two tracks, six pieces each way out of the station: 24.
  EXPECT_EQ(c["tracks"], 24);
  // A portal every 50 m along 2 × 1,418.9 m (200 + 200 + 2 × 209.4 + 300 + 300): 28 spans each
  // way, two wires a span.
  EXPECT_EQ(c["traction"], 112);
  EXPECT_EQ(c["dynamics"], 4);
  EXPECT_EQ(c["trainsets"], 1);
}

TEST(Demo, EveryModelItPlacesOpensTexturedAndFacesOut) {
  const auto files = demo::railway_files();
  MemoryAssets assets;
  for (const ExampleFile& f : files) assets.add(f.path, f.bytes);
  std::size_t models = 0;
  for (const ExampleFile& f : files) {
    if (!f.path.ends_with(".e3d")) continue;
    ++models;
    MemorySource source(std::span<const std::uint8_t>(f.bytes), f.path);
    const bool vehicle = f.path.starts_with("dynamic/");
    const std::string base = vehicle ? f.path.substr(0, f.path.rfind('/') + 1) : "textures/demo/";
    auto scene = open_model_scene(source, assets, base, vehicle ? std::vector<std::pair<std::string, std::string>>{{"skin-set", f.path.find("ep07") != std::string::npos ? "ep07_blue" : "coach_green"}}
                                                                : std::vector<std::pair<std::string, std::string>>{});
    ASSERT_TRUE(scene.ok()) << f.path << ": " << scene.error().describe();
    EXPECT_TRUE(assets.missing().empty()) << f.path << " misses " << assets.missing().front();
    std::size_t triangles = 0, inward = 0;
    for (const scene::Mesh& mesh : scene->meshes)
      for (const scene::Part& part : mesh.parts) {
        const scene::Material& m = scene->materials.at(part.material);
        if (m.texture != scene::kNoTexture) EXPECT_FALSE(scene->textures.at(m.texture).levels.empty()) << f.path << " " << m.name;
        for (std::uint32_t i = part.first; i + 2 < part.first + part.count; i += 3) {
          const glm::vec3 a = mesh.positions[mesh.indices[i]], b = mesh.positions[mesh.indices[i + 1]], c = mesh.positions[mesh.indices[i + 2]];
          const glm::vec3 n = mesh.normals[mesh.indices[i]];
          ++triangles;
          // Counter-clockwise seen from the side its normal faces: drawn, not culled.
          if (glm::dot(glm::cross(b - a, c - a), n) <= 0) ++inward;
        }
      }
    EXPECT_GT(triangles, 0u) << f.path;
    EXPECT_EQ(inward, 0u) << f.path << ": " << inward << " of " << triangles << " triangles face in";
  }
  EXPECT_EQ(models, 9u);  // ground, platform, station, portal, tree, pine, signal, ep07, coach
}

TEST(Demo, TheTrainStandsAtThePlatformFacingNorth) {
  auto opened = open_files(demo::railway_files());
  ASSERT_TRUE(opened);
  auto scene = opened->doc->scene();
  ASSERT_TRUE(scene.ok());
  const auto kind = std::find(scene->kinds.begin(), scene->kinds.end(), "dynamics") - scene->kinds.begin();
  std::map<std::uint64_t, glm::dvec3> at;  // by record: the vehicle's middle
  for (const scene::Object& o : scene->objects)
    if (static_cast<std::ptrdiff_t>(o.kind) == kind) at[o.index] = o.anchor;
  ASSERT_EQ(at.size(), 4u);
  for (const auto& [index, p] : at) EXPECT_NEAR(p.x, 2.25, 0.01) << index;  // on track 1
  // Front at 110 m along track 1 from the station's middle: the locomotive's middle 8.1 m behind
  // it, each coach 24.5 m further back.
  EXPECT_NEAR(at[0].z, 110 - 8.1, 0.05);
  EXPECT_NEAR(at[1].z, 110 - 16.2 - 12.25, 0.05);
  EXPECT_NEAR(at[3].z, 110 - 16.2 - 2 * 24.5 - 12.25, 0.05);
  const auto first = opened->doc->record("dynamics", 0);
  EXPECT_EQ(first["vehicle"]["skin_set"], "ep07_blue");
  EXPECT_DOUBLE_EQ(first["vehicle"]["length_m"].get<double>(), 16.2);
}

TEST(Demo, TheDxt1WriterKeepsThePicture) {
  std::vector<std::uint8_t> rgba(64 * 64 * 4);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      std::uint8_t* p = &rgba[4 * (y * 64 + x)];
      p[0] = static_cast<std::uint8_t>(x * 4), p[1] = static_cast<std::uint8_t>(y * 4), p[2] = x < 32 ? 200 : 20, p[3] = 255;
    }
  const auto bytes = dds::write_dxt1(64, 64, rgba);
  auto image = dds::read_image(bytes);
  ASSERT_TRUE(image.ok()) << image.error().describe();
  EXPECT_EQ(image->fourcc, "DXT1");
  EXPECT_EQ(image->levels.size(), 7u);  // 64 … 1
  EXPECT_TRUE(image->engine_supported);
  const auto decoded = exports::texture_rgba(dds::to_texture(*image, bytes, "t"));
  ASSERT_EQ(decoded.size(), rgba.size());
  int worst = 0;
  for (std::size_t i = 0; i < rgba.size(); ++i)
    if (i % 4 != 3) worst = std::max(worst, std::abs(int(decoded[i]) - int(rgba[i])));
  EXPECT_LE(worst, 12);  // a 4 × 4 block's gradient between its two ends, in 5-6-5
}

TEST(Gallery, EveryExampleOpensWithNothingMissing) {
  ASSERT_GE(examples().size(), 7u);
  EXPECT_EQ(examples().front().id, "railway");
  for (const Example& e : examples()) {
    auto files = example_files(e.id);
    ASSERT_TRUE(files.ok()) << e.id;
    auto opened = open_files(*files);
    ASSERT_TRUE(opened) << e.id;
    EXPECT_TRUE(opened->described["missingFiles"].empty()) << e.id << ": " << opened->described["missingFiles"].dump();
    EXPECT_TRUE(opened->described["warnings"].empty()) << e.id << ": " << opened->described["warnings"].dump();
    auto scene = opened->doc->scene();
    ASSERT_TRUE(scene.ok()) << e.id;
    EXPECT_FALSE(scene->meshes.empty() && scene->sections.empty()) << e.id << " draws nothing";
  }
  EXPECT_FALSE(example_files("nothing").ok());
}

TEST(Gallery, TheTwinAndTheModuleHoldTheRailwayTheTextHolds) {
  auto text = open_files(demo::railway_files());
  ASSERT_TRUE(text);
  // The text's visuals come in a later pass: read them all for the counts.
  while (text->doc->next_stage(glm::dvec3(0))) {
  }
  const auto counts = describe(*text->doc)["counts"];
  auto twin = example_files("twin");
  ASSERT_TRUE(twin.ok());
  EXPECT_EQ(twin->front().path, "scenery/demo.scnb");
  EXPECT_NE(file_named(*twin, "scenery/demo/trees.incb"), nullptr);
  auto twin_doc = open_files(*twin);
  ASSERT_TRUE(twin_doc);
  while (twin_doc->doc->next_stage(glm::dvec3(0))) {
  }
  EXPECT_EQ(describe(*twin_doc->doc)["counts"], counts);
  auto module = example_files("module");
  ASSERT_TRUE(module.ok());
  auto module_doc = open_files(*module);
  ASSERT_TRUE(module_doc);
  const auto& m = module_doc->described;
  EXPECT_EQ(m["version"], 9);
  EXPECT_GE(m["sections"].size(), 4u);  // its models in 1 km PACK sections
  for (const char* k : {"tracks", "traction", "dynamics", "trainsets"}) EXPECT_EQ(m["counts"][k], counts[k]) << k;
  EXPECT_EQ(m["counts"]["pack_models"].get<std::uint64_t>(), counts["models"].get<std::uint64_t>());
}

}  // namespace
}  // namespace sceneria
