// The benchmark scene (registry/bench_scene): a small one written, then read back by the core's
// own readers as a user's game folder is — the instances and the files they name, every model's
// triangles and textures, every texture's kind and size.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "formats/catalog.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/example.hpp"
#include "formats/textures.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"
#include "registry/bench_scene.hpp"

namespace sceneria {
namespace {

std::vector<ExampleFile> written(const demo::BenchSceneOptions& options) {
  std::vector<ExampleFile> files;
  const Error e = demo::write_bench_scene(options, [&](const demo::BenchSceneFile& f) {
    files.push_back({f.path, {f.bytes.begin(), f.bytes.end()}});
    return Error{};
  });
  EXPECT_FALSE(e) << e.describe();
  return files;
}

demo::BenchSceneOptions small() {
  demo::BenchSceneOptions o;
  o.instances = 3001;
  o.models = 6;
  o.textures = 12;
  o.sections = 4;
  o.seed = 3;
  return o;
}

TEST(BenchScene, TheSceneryPlacesEveryModelFileOverTheSections) {
  const auto files = written(small());
  ASSERT_EQ(files.size(), 1u + 6 + 12);
  ASSERT_EQ(files[0].path, "scenery/bench.eu7");
  MemorySource source(std::span<const std::uint8_t>(files[0].bytes), files[0].path);
  auto m = eu7b::read_module(source, {.load_pack = true, .decode_pack = true});
  ASSERT_TRUE(m.ok()) << m.error().describe();
  ASSERT_TRUE(m->pack());
  std::map<std::string, std::uint64_t> placed;
  std::uint64_t instances = 0;
  const eu7b::PrototypeList* prototypes = m->prototypes();
  for (const auto& section : m->pack()->sections) {
    for (const auto& model : section.solo.models) {
      ++instances;
      ++placed[std::string(m->strings[model.model_file])];
    }
    for (const auto& instance : section.inst) {  // the writer's format 6: models sharing a file and look
      ++instances;
      ASSERT_TRUE(prototypes && instance.proto < prototypes->prototypes.size());
      ++placed[std::string(m->strings[prototypes->prototypes[instance.proto].model_file])];
    }
  }
  EXPECT_EQ(instances, 3001u);
  EXPECT_EQ(m->pack()->sections.size(), 4u);  // 3,001 over 4 sections: 751 at most each
  ASSERT_EQ(placed.size(), 6u);
  for (std::uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(placed.count(demo::bench_model_name(i)), 1u) << demo::bench_model_name(i);
    EXPECT_GT(placed[demo::bench_model_name(i)], 3001u / 6 / 2) << "each file about as likely";
  }
}

TEST(BenchScene, EveryModelOpensWithItsTwoTexturesAndTwoToTwentyThousandTriangles) {
  const auto files = written(small());
  MemoryAssets assets;
  for (const ExampleFile& f : files) assets.add(f.path, f.bytes);
  std::set<std::string> textures_worn;
  for (std::uint32_t i = 0; i < 6; ++i) {
    const ExampleFile& f = files[1 + i];
    ASSERT_EQ(f.path, fmt::format("models/bench/m{:03}.e3d", i));
    MemorySource source(std::span<const std::uint8_t>(f.bytes), f.path);
    auto scene = open_model_scene(source, assets, "textures/bench/", {});
    ASSERT_TRUE(scene.ok()) << f.path << ": " << scene.error().describe();
    EXPECT_TRUE(assets.missing().empty()) << f.path << " misses " << assets.missing().front();
    std::uint64_t triangles = 0;
    for (const scene::Mesh& mesh : scene->meshes)
      for (const scene::Part& part : mesh.parts) {
        triangles += part.count / 3;
        const scene::Material& material = scene->materials.at(part.material);
        ASSERT_NE(material.texture, scene::kNoTexture) << f.path;
        const scene::Texture& t = scene->textures.at(material.texture);
        EXPECT_FALSE(t.levels.empty()) << f.path << " " << t.name;
        textures_worn.insert(t.name);
      }
    EXPECT_GE(triangles, 2000u) << f.path;
    EXPECT_LE(triangles, 20000u) << f.path;
  }
  EXPECT_EQ(textures_worn.size(), 12u) << "two textures a model, none shared";
}

TEST(BenchScene, TexturesAreDdsAndEveryFourthATgaOfTwoHundredFiftySixToTenTwentyFour) {
  const auto files = written(small());
  std::set<std::uint32_t> sizes;
  for (std::uint32_t t = 0; t < 12; ++t) {
    const ExampleFile& f = files[1 + 6 + t];
    const bool tga = t % 4 == 3;
    ASSERT_EQ(f.path, fmt::format("textures/bench/t{:03}.{}", t, tga ? "tga" : "dds"));
    auto texture = decode_texture(f.bytes, f.path);
    ASSERT_TRUE(texture.ok()) << f.path << ": " << texture.error().describe();
    EXPECT_EQ(texture->width, texture->height) << f.path;
    EXPECT_TRUE(texture->width == 256 || texture->width == 512 || texture->width == 1024) << f.path << " " << texture->width;
    sizes.insert(texture->width);
    if (tga) {
      EXPECT_EQ(texture->format, scene::Texture::Format::rgba8) << f.path;
      EXPECT_EQ(f.bytes.size(), 18u + std::size_t{texture->width} * texture->height * 4) << "uncompressed";
    } else {
      EXPECT_NE(texture->format, scene::Texture::Format::rgba8) << f.path << ": kept block-compressed";
      EXPECT_GT(texture->levels.size(), 8u) << f.path << ": with its mip chain";
    }
  }
  EXPECT_GE(sizes.size(), 2u);
}

TEST(BenchScene, TheSameSeedWritesTheSameBytesAndAnotherSeedOthers) {
  const auto a = written(small()), b = written(small());
  auto other = small();
  other.seed = 4;
  const auto c = written(other);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].bytes, b[i].bytes) << a[i].path;
  EXPECT_NE(a[0].bytes, c[0].bytes);
  EXPECT_NE(a[1].bytes, c[1].bytes);
}

TEST(BenchScene, EmptyOrOversizedAsksAreRefused) {
  auto o = small();
  o.models = 0;
  const auto none = [](const demo::BenchSceneFile&) { return Error{}; };
  EXPECT_EQ(demo::write_bench_scene(o, none).code, Errc::bad_value);
  o = small();
  o.textures = 20'001;
  EXPECT_EQ(demo::write_bench_scene(o, none).code, Errc::bad_count);
  o = small();
  int calls = 0;
  const Error stop = demo::write_bench_scene(o, [&](const demo::BenchSceneFile&) {
    ++calls;
    return Error{Errc::io, 0, "disk full"};
  });
  EXPECT_EQ(stop.code, Errc::io);
  EXPECT_EQ(calls, 1) << "stops at the first file that cannot be written";
}

}  // namespace
}  // namespace sceneria
