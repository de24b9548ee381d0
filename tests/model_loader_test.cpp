// Models in sceneries: a model's scene flattened to one instancing mesh, proxies replaced by it
// (and the section bounds that follows), the replacing delta through serialization, and the
// loader that finds a scenery's models by the engine's order, nearest the camera first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <glm/gtc/quaternion.hpp>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/writer.hpp"
#include "io/assets.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"
#include "scene/serialize.hpp"
#include "stream/model_loader.hpp"

namespace sceneria {
namespace {

using scene::Mesh;
using scene::Scene;

Mesh triangle(std::uint32_t material, float size) {
  Mesh m;
  m.positions = {{0, 0, 0}, {size, 0, 0}, {0, size, 0}};
  m.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  m.uvs = {{0, 0}, {1, 0}, {0, 1}};
  m.indices = {0, 1, 2};
  m.parts = {{material, 0, 3}};
  m.bounds_max = {size, size, 0};
  return m;
}

// A model of two meshes: `a` (textured material) at the origin, `b` (two parts: plain, then
// textured) turned 90 degrees about Y, moved 10 m along X and scaled 2.
Scene two_part_model() {
  Scene model;
  scene::Material textured;
  textured.name = "bark";
  textured.texture = model.add_texture("bark");
  model.textures[0].format = scene::Texture::Format::rgba8;
  model.textures[0].width = model.textures[0].height = 1;
  model.textures[0].levels = {{1, 2, 3, 4}};
  scene::Material plain;
  plain.name = "plain";
  plain.color = 0xFF0000FFu;
  const std::uint32_t t = model.add_material(textured), p = model.add_material(plain);
  model.meshes.push_back(triangle(t, 1.0f));
  Mesh b = triangle(p, 1.0f);
  b.positions.insert(b.positions.end(), {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}});
  b.normals.insert(b.normals.end(), 3, glm::vec3(0, 2, 0));
  b.uvs.insert(b.uvs.end(), 3, glm::vec2(0.5f));
  b.indices.insert(b.indices.end(), {3, 4, 5});
  b.parts.push_back({t, 3, 3});
  model.meshes.push_back(b);
  scene::Section& sec = model.section_at({0, 0, 0});
  scene::Instance ia;
  ia.mesh = 0;
  ia.offset = glm::vec3(glm::dvec3(0.0) - sec.origin);
  scene::Instance ib;
  ib.mesh = 1;
  ib.offset = glm::vec3(glm::dvec3(10, 0, 0) - sec.origin);
  ib.rotation = glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 1, 0));
  ib.scale = glm::vec3(2.0f);
  sec.instances = {ia, ib};
  model.finish();
  return model;
}

TEST(ModelMesh, AModelsSceneFlattensToOneMeshWithOnePartPerMaterial) {
  const Scene model = two_part_model();
  const Scene delta = scene::single_mesh(model, 7, "drzewa/sosna1.t3d");
  ASSERT_EQ(delta.replaces, std::vector<std::uint32_t>{7});
  ASSERT_EQ(delta.meshes.size(), 1u);
  const Mesh& m = delta.meshes[0];
  EXPECT_EQ(m.name, "drzewa/sosna1.t3d");
  EXPECT_FALSE(m.proxy);
  ASSERT_EQ(m.positions.size(), 9u);
  ASSERT_EQ(m.indices.size(), 9u);
  // The textured material first (mesh a uses it first), holding a's triangle and b's second one.
  ASSERT_EQ(m.parts.size(), 2u);
  EXPECT_EQ(m.parts[0].first, 0u);
  EXPECT_EQ(m.parts[0].count, 6u);
  EXPECT_EQ(m.parts[1].first, 6u);
  EXPECT_EQ(m.parts[1].count, 3u);
  ASSERT_EQ(delta.materials.size(), 3u);  // the default, then the two used
  EXPECT_EQ(delta.materials[m.parts[0].material].name, "bark");
  EXPECT_EQ(delta.materials[m.parts[0].material].texture, 0u);
  EXPECT_EQ(delta.materials[m.parts[1].material].name, "plain");
  ASSERT_EQ(delta.textures.size(), 1u);
  EXPECT_EQ(delta.textures[0].levels[0], (std::vector<std::uint8_t>{1, 2, 3, 4}));
  // b's vertex (1, 0, 0): scaled to (2, 0, 0), turned about Y to (0, 0, -2), moved to (10, 0, -2).
  const glm::vec3 moved = m.positions[m.indices[m.parts[1].first + 1]];
  EXPECT_NEAR(moved.x, 10.0f, 1e-4f);
  EXPECT_NEAR(moved.y, 0.0f, 1e-4f);
  EXPECT_NEAR(moved.z, -2.0f, 1e-4f);
  // Normals turn with the mesh and come out unit length; uvs stay.
  const std::uint32_t first_of_b = 3;
  EXPECT_NEAR(m.normals[first_of_b].x, 1.0f, 1e-4f);  // (0, 0, 1) turned 90 degrees about Y
  EXPECT_NEAR(glm::length(m.normals[first_of_b + 3]), 1.0f, 1e-5f);
  EXPECT_EQ(m.uvs[first_of_b + 3], glm::vec2(0.5f));
  EXPECT_NEAR(m.bounds_max.x, 12.0f, 1e-4f);  // b's (0, 0, 1), scaled and turned to (2, 0, 0)
  EXPECT_NEAR(m.bounds_min.z, -2.0f, 1e-4f);
  EXPECT_NEAR(m.bounds_max.y, 2.0f, 1e-4f);
}

TEST(ModelMesh, AReplacingDeltaTakesTheProxysPlaceForEveryInstance) {
  Scene s;
  s.add_material({});
  s.textures.push_back({});  // the scene's own texture keeps id 0
  for (int k = 0; k < 3; ++k) {
    Mesh proxy = scene::box_mesh("p" + std::to_string(k), {-1, 0, -1}, {1, 2, 1}, 0);
    proxy.proxy = true;
    proxy.files = {"models/p.e3d"};
    s.meshes.push_back(proxy);
  }
  for (double x : {100.0, 5100.0}) {
    scene::Section& sec = s.section_at({x, 0, 0});
    scene::Instance i;
    i.mesh = x < 1000 ? 2 : 1;
    i.offset = glm::vec3(glm::dvec3(x, 0, 0) - sec.origin);
    sec.instances.push_back(i);
  }
  s.finish();
  const glm::vec3 before = s.sections[0].bounds_max, other = s.sections[1].bounds_max;
  auto replaced = scene::replace_meshes(s, scene::single_mesh(two_part_model(), 2, "big"));
  ASSERT_TRUE(replaced) << replaced.error().describe();
  EXPECT_EQ(*replaced, std::vector<std::uint32_t>{2});
  EXPECT_EQ(s.meshes.size(), 3u);
  EXPECT_EQ(s.meshes[2].name, "big");
  EXPECT_FALSE(s.meshes[2].proxy);
  ASSERT_EQ(s.meshes[2].parts.size(), 2u);
  // Its materials and textures joined the scene's under new ids.
  ASSERT_EQ(s.textures.size(), 2u);
  EXPECT_EQ(s.materials[s.meshes[2].parts[0].material].texture, 1u);
  EXPECT_EQ(s.materials[s.meshes[2].parts[0].material].name, "bark");
  // The model reaches 10 m, its proxy 2: the section holding it widened, the other did not.
  EXPECT_GT(s.sections[0].bounds_max.x, before.x + 8.0f);
  EXPECT_EQ(s.sections[1].bounds_max, other);
  EXPECT_EQ(s.sections[0].instances[0].mesh, 2u);

  // What a hostile or stale delta cannot do.
  Scene bad = scene::single_mesh(two_part_model(), 3, "x");
  EXPECT_FALSE(scene::replace_meshes(s, std::move(bad)));  // no mesh 3
  Scene two = scene::single_mesh(two_part_model(), 0, "x");
  two.replaces.push_back(1);
  EXPECT_FALSE(scene::replace_meshes(s, std::move(two)));  // one id per mesh
  Scene with_section = scene::single_mesh(two_part_model(), 0, "x");
  with_section.sections.emplace_back();
  EXPECT_FALSE(scene::replace_meshes(s, std::move(with_section)));
  EXPECT_EQ(s.meshes[0].name, "p0");
}

TEST(ModelMesh, ReplacingDeltasAndProxyFilesSurviveSerialization) {
  Scene delta = scene::single_mesh(two_part_model(), 5, "m");
  delta.meshes[0].files = {"a.e3d", "models/a.e3d"};
  auto back = scene::deserialize(scene::serialize(delta));
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->replaces, std::vector<std::uint32_t>{5});
  EXPECT_EQ(back->meshes[0].files, delta.meshes[0].files);
  EXPECT_EQ(back->meshes[0].indices, delta.meshes[0].indices);
  // A replacing delta with a section, or one id for two meshes, does not read.
  Scene odd = delta;
  odd.sections.emplace_back();
  EXPECT_FALSE(scene::deserialize(scene::serialize(odd)));
  odd = delta;
  odd.meshes.push_back(odd.meshes[0]);
  EXPECT_FALSE(scene::deserialize(scene::serialize(odd)));
}

// For files fetched first (a URL): which proxy is next, then that one loaded or given up.
TEST(ModelLoader, TheNearestIsNamedThenLoadedOrGivenUp) {
  Scene s;
  s.add_material({});
  for (const char* name : {"near.t3d", "far.t3d", "nowhere"}) {
    Mesh proxy = scene::box_mesh(name, {-1, 0, -1}, {1, 2, 1}, 0);
    proxy.proxy = true;
    if (std::string(name) != "nowhere") proxy.files = {std::string(name).substr(0, std::string(name).size() - 4) + ".e3d"};
    s.meshes.push_back(proxy);
  }
  for (auto [x, mesh] : {std::pair{500.0, 0u}, std::pair{9500.0, 1u}, std::pair{100.0, 2u}}) {
    scene::Section& sec = s.section_at({x, 0, 0});
    scene::Instance i;
    i.mesh = mesh;
    sec.instances.push_back(i);
  }
  stream::ModelLoader loader(open_model_scene);
  loader.track(s);
  EXPECT_EQ(loader.pending(), 2u);  // a proxy without files is nothing to load
  auto next = loader.nearest({0, 0, 0});
  ASSERT_TRUE(next);
  EXPECT_EQ(next->mesh, 0u);
  EXPECT_EQ(next->files, std::vector<std::string>{"near.e3d"});
  loader.give_up(next->mesh, "near.e3d: 70000000 bytes");
  EXPECT_EQ(loader.failed(), std::vector<std::string>{"near.t3d: near.e3d: 70000000 bytes"});
  EXPECT_EQ(loader.nearest({0, 0, 0})->mesh, 1u);
  MemoryAssets none;
  EXPECT_FALSE(loader.load(1, none));
  EXPECT_EQ(none.missing(), std::vector<std::string>{"far.t3d"});
  EXPECT_EQ(loader.pending(), 0u);
  EXPECT_FALSE(loader.nearest({0, 0, 0}));
  EXPECT_FALSE(loader.load(1, none));  // once
  EXPECT_EQ(loader.stats().failed, 2u);
}

// A generated 400-model EU7B module (empty if it could not be made).
std::vector<std::uint8_t> generated_scenery() {
  auto module = eu7b::generate_module({.models = 400, .seed = 3});
  if (!module) return {};
  auto bytes = eu7b::write_module(*module);
  return bytes ? std::move(*bytes) : std::vector<std::uint8_t>{};
}

// The generated scenery names its models as MaSzyna sceneries do ("drzewa/sosna1.t3d"); the
// files given here are sample models under those names, found by the engine's order.
TEST(ModelLoader, AScenerysModelsLoadNearestFirstTexturedAndOnceEach) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto models = test::samples_dir() / "maszyna" / "models";
  const auto bytes = generated_scenery();
  ASSERT_FALSE(bytes.empty());
  MemoryAssets assets;
  // An E3D under models/ (the second candidate), with its texture where the engine looks first
  // for a model in drzewa/: textures/drzewa/.
  assets.add("models/drzewa/sosna1.e3d", test::read_file(models / "e6acta_detale_dual_power.e3d"));
  assets.add("textures/drzewa/components/kratka.dds", test::read_file(models / "kratka.dds"));
  // A T3D beside the scenery (the third candidate): converted as the engine converts it.
  assets.add("krzaki/krzak1.t3d", test::read_file(models / "oslony_syren.t3d"));
  // A file that is there but is no model: it stays a proxy and says why.
  assets.add("models/budynki/dom1.e3d", std::vector<std::uint8_t>(64, 0x41));
  // The scenery itself under a model's name (a server answering every path with it): read as
  // what its name says, an E3D, and refused; never opened as a scenery again.
  assets.add("models/budynki/dom2.e3d", bytes);
  MemorySource source(bytes, "generated.eu7");
  auto doc = open_document(source, {.assets = &assets, .staged = false});
  ASSERT_TRUE(doc) << doc.error().describe();
  auto scene = (*doc)->scene();
  ASSERT_TRUE(scene);
  std::map<std::string, std::uint32_t> mesh_of;
  for (std::uint32_t k = 0; k < scene->meshes.size(); ++k) mesh_of[scene->meshes[k].name] = k;
  ASSERT_TRUE(mesh_of.count("drzewa/sosna1.t3d") && mesh_of.count("krzaki/krzak1.t3d") && mesh_of.count("budynki/dom1.t3d") &&
              mesh_of.count("budynki/dom2.t3d"));
  const Mesh& proxy = scene->meshes[mesh_of["drzewa/sosna1.t3d"]];
  EXPECT_TRUE(proxy.proxy);
  EXPECT_EQ(proxy.files, (std::vector<std::string>{"drzewa/sosna1.e3d", "models/drzewa/sosna1.e3d", "drzewa/sosna1.t3d", "models/drzewa/sosna1.t3d"}));

  // Each proxy's distance from the camera: the middle of its nearest section.
  const glm::dvec3 camera = scene->sections.back().origin;
  std::map<std::uint32_t, double> distance;
  for (const scene::Section& sec : scene->sections)
    for (const scene::Instance& i : sec.instances) {
      const glm::dvec3 d = scene->grid.middle(sec.row, sec.col) - camera;
      const double d2 = d.x * d.x + d.z * d.z;
      auto [it, fresh] = distance.try_emplace(i.mesh, d2);
      if (!fresh) it->second = std::min(it->second, d2);
    }

  stream::ModelLoader loader(open_model_scene);
  loader.track(*scene);
  std::size_t proxies_with_files = 0;
  for (const Mesh& m : scene->meshes) proxies_with_files += m.proxy && !m.files.empty();
  EXPECT_EQ(loader.pending(), proxies_with_files);
  std::vector<Scene> loaded;
  std::size_t calls = 0;
  while (loader.pending() > 0 && calls++ < 1000)
    if (auto delta = loader.load_next(camera, assets)) loaded.push_back(std::move(*delta));
  EXPECT_FALSE(loader.load_next(camera, assets));  // each file once
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loader.stats().loaded, 2u);
  EXPECT_EQ(loader.stats().failed, proxies_with_files - 2);
  // Nearest first.
  EXPECT_LE(distance[loaded[0].replaces[0]], distance[loaded[1].replaces[0]]);

  // The E3D: every drawn submodel's triangles, as the model opened alone draws them, and its
  // texture found in textures/drzewa/.
  const Scene& sosna = loaded[0].replaces[0] == mesh_of["drzewa/sosna1.t3d"] ? loaded[0] : loaded[1];
  ASSERT_EQ(sosna.replaces[0], mesh_of["drzewa/sosna1.t3d"]);
  MemorySource alone_source(test::read_file(models / "e6acta_detale_dual_power.e3d"), "x.e3d");
  auto alone = open_document(alone_source, {});
  ASSERT_TRUE(alone);
  auto alone_scene = (*alone)->scene();
  std::size_t vertices = 0, indices = 0;
  for (const Mesh& m : alone_scene->meshes) vertices += m.positions.size(), indices += m.indices.size();
  EXPECT_EQ(sosna.meshes[0].positions.size(), vertices);
  EXPECT_EQ(sosna.meshes[0].indices.size(), indices);
  EXPECT_EQ(vertices, 2276u);  // the reference summary's vertex count: both submodels drawn
  ASSERT_EQ(sosna.textures.size(), 1u);
  EXPECT_EQ(sosna.textures[0].format, scene::Texture::Format::bc3);  // kratka.dds: DXT5, 512 x 512, 10 levels
  EXPECT_EQ(sosna.textures[0].width, 512u);
  EXPECT_EQ(sosna.textures[0].levels.size(), 10u);
  // One part wears it (the grille), the other is the skin's, untextured in a scenery.
  ASSERT_EQ(sosna.meshes[0].parts.size(), 2u);
  std::size_t textured_parts = 0;
  for (const scene::Part& p : sosna.meshes[0].parts) textured_parts += sosna.materials.at(p.material).texture == 0;
  EXPECT_EQ(textured_parts, 1u);
  // The T3D: converted, flattened, drawn.
  const Scene& krzak = &sosna == &loaded[0] ? loaded[1] : loaded[0];
  EXPECT_EQ(krzak.replaces[0], mesh_of["krzaki/krzak1.t3d"]);
  EXPECT_EQ(krzak.meshes[0].positions.size(), 128u);  // oslony_syren.e3d's vertex count

  // What did not load: not found (the resolver's list, under the name the scenery gives) or
  // found and unreadable (the loader's, with why).
  const auto& missing = assets.missing();
  EXPECT_NE(std::find(missing.begin(), missing.end(), "drzewa/sosna2.t3d"), missing.end());
  EXPECT_EQ(std::find(missing.begin(), missing.end(), "drzewa/sosna1.t3d"), missing.end());
  ASSERT_EQ(loader.failed().size(), 2u);
  std::vector<std::string> failed = loader.failed();
  std::sort(failed.begin(), failed.end());
  EXPECT_EQ(failed[0].rfind("budynki/dom1.t3d: ", 0), 0u) << failed[0];
  EXPECT_EQ(failed[1].rfind("budynki/dom2.t3d: bad_magic", 0), 0u) << failed[1];

  // Into the scene: every instance of the file now draws the model.
  std::size_t instances = 0;
  for (const scene::Section& sec : scene->sections)
    for (const scene::Instance& i : sec.instances) instances += i.mesh == sosna.replaces[0];
  EXPECT_GT(instances, 1u);
  for (Scene& d : loaded) ASSERT_TRUE(scene::replace_meshes(*scene, std::move(d)));
  EXPECT_FALSE(scene->meshes[mesh_of["drzewa/sosna1.t3d"]].proxy);
  EXPECT_EQ(scene->meshes[mesh_of["drzewa/sosna1.t3d"]].positions.size(), 2276u);
  EXPECT_TRUE(scene->meshes[mesh_of["budynki/dom1.t3d"]].proxy);
}

// A texture file named by several models is one texture: read, decoded and sent with the first
// model that names it; later ones name it without pixels, and the scene takes it by its source.
// The same name under another model's folder is another file, and another texture.
TEST(ModelLoader, ATextureFileNamedByManyModelsIsOneTexture) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto models = test::samples_dir() / "maszyna" / "models";
  const auto bytes = generated_scenery();
  ASSERT_FALSE(bytes.empty());
  MemoryAssets assets;
  const auto e3d = test::read_file(models / "e6acta_detale_dual_power.e3d");
  const auto dds = test::read_file(models / "kratka.dds");
  assets.add("models/drzewa/sosna1.e3d", e3d);
  assets.add("models/drzewa/sosna2.e3d", e3d);
  assets.add("models/budynki/dom1.e3d", e3d);
  assets.add("textures/drzewa/components/kratka.dds", dds);
  assets.add("textures/budynki/components/kratka.dds", dds);  // the same bytes, another file
  MemorySource source(bytes, "generated.eu7");
  auto doc = open_document(source, {.assets = &assets, .staged = false});
  ASSERT_TRUE(doc) << doc.error().describe();
  auto scene = (*doc)->scene();
  ASSERT_TRUE(scene);
  const std::size_t textures_before = scene->textures.size();
  stream::ModelLoader loader(open_model_scene);
  loader.track(*scene);
  std::vector<Scene> loaded;
  const std::string drzewa = "textures/drzewa/components/kratka.dds";
  bool spoiled = false;
  for (std::size_t calls = 0; loader.pending() > 0 && calls < 1000; ++calls)
    if (auto delta = loader.load_next(scene->sections.front().origin, assets)) {
      loaded.push_back(std::move(*delta));
      // Once a model has brought it, the file is never read again: spoiled, it would not decode.
      if (!spoiled && !loaded.back().textures.empty() && loaded.back().textures[0].source == drzewa)
        assets.add(drzewa, std::vector<std::uint8_t>(64, 0x5A)), spoiled = true;
    }
  ASSERT_TRUE(spoiled);
  ASSERT_EQ(loaded.size(), 3u);
  EXPECT_EQ(loader.stats().textures_shared, 1u);
  std::map<std::string, std::size_t> with_pixels, without;
  for (const Scene& d : loaded) {
    ASSERT_EQ(d.textures.size(), 1u);
    (d.textures[0].levels.empty() ? without : with_pixels)[d.textures[0].source]++;
  }
  EXPECT_EQ(with_pixels, (std::map<std::string, std::size_t>{{"textures/budynki/components/kratka.dds", 1}, {"textures/drzewa/components/kratka.dds", 1}}));
  EXPECT_EQ(without, (std::map<std::string, std::size_t>{{"textures/drzewa/components/kratka.dds", 1}}));

  std::vector<std::uint32_t> replaced;
  for (Scene& d : loaded) {
    replaced.push_back(d.replaces[0]);
    ASSERT_TRUE(scene::replace_meshes(*scene, std::move(d)));
  }
  // Two textures joined the scene, one per file, with their pixels; each model's grille wears its
  // folder's.
  ASSERT_EQ(scene->textures.size(), textures_before + 2);
  std::map<std::string, std::set<std::uint32_t>> worn;  // mesh name's folder -> textures its parts wear
  for (std::uint32_t id : replaced)
    for (const scene::Part& p : scene->meshes[id].parts)
      if (const std::uint32_t t = scene->materials.at(p.material).texture; t != scene::kNoTexture) {
        ASSERT_LT(t, scene->textures.size());
        EXPECT_EQ(scene->textures[t].levels.size(), 10u);
        worn[scene->meshes[id].name.substr(0, scene->meshes[id].name.find('/'))].insert(t);
      }
  ASSERT_EQ(worn.size(), 2u);
  ASSERT_EQ(worn["drzewa"].size(), 1u);  // sosna1 and sosna2: the same texture
  ASSERT_EQ(worn["budynki"].size(), 1u);
  EXPECT_NE(*worn["drzewa"].begin(), *worn["budynki"].begin());
  EXPECT_EQ(scene->textures[*worn["drzewa"].begin()].source, "textures/drzewa/components/kratka.dds");
}

}  // namespace
}  // namespace sceneria
