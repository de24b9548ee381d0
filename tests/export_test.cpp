// Scene exports (glTF, OBJ): the written bytes read back by hand — GLB chunks, accessors' floats,
// node transforms, sidecars, OBJ lines — and a real module's instances against its reference decode.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <tuple>
#include <sstream>

#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#define STB_IMAGE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "export/export.hpp"
#include "export/walk.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"
#include "registry/registry.hpp"
#include "sample_files.hpp"

namespace sceneria {
namespace {

using Json = nlohmann::json;

std::uint32_t u32(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

// A GLB split into its JSON and BIN chunks, with the container's own lengths checked.
struct Glb {
  Json json;
  std::vector<std::uint8_t> bin;
};
Glb split(const std::vector<std::uint8_t>& b) {
  Glb g;
  EXPECT_GE(b.size(), 20u);
  EXPECT_EQ(u32(b, 0), 0x46546C67u);  // "glTF"
  EXPECT_EQ(u32(b, 4), 2u);
  EXPECT_EQ(u32(b, 8), b.size());
  const std::uint32_t json_length = u32(b, 12);
  EXPECT_EQ(u32(b, 16), 0x4E4F534Au);
  EXPECT_EQ(json_length % 4, 0u);
  g.json = Json::parse(b.begin() + 20, b.begin() + 20 + json_length);
  const std::size_t at = 20 + json_length;
  if (at < b.size()) {
    EXPECT_EQ(u32(b, at + 4), 0x004E4942u);
    g.bin.assign(b.begin() + static_cast<std::ptrdiff_t>(at + 8), b.begin() + static_cast<std::ptrdiff_t>(at + 8 + u32(b, at)));
  }
  return g;
}

// An accessor's floats (tightly packed, as the exporter writes them).
std::vector<float> floats(const Glb& g, int accessor) {
  const Json& a = g.json["accessors"][accessor];
  const Json& v = g.json["bufferViews"][a["bufferView"].get<int>()];
  EXPECT_EQ(a["componentType"], 5126);
  const std::size_t n = a["count"].get<std::size_t>() * (a["type"] == "VEC3" ? 3 : a["type"] == "VEC4" ? 4 : a["type"] == "VEC2" ? 2 : 1);
  EXPECT_EQ(v["byteLength"].get<std::size_t>(), n * 4);
  std::vector<float> out(n);
  std::memcpy(out.data(), g.bin.data() + v.value("byteOffset", 0), n * 4);
  return out;
}

// A section 2 km east, 3 km south of the origin: a textured triangle placed three times (one
// turned and scaled) and a box once, a coloured ground triangle and a wire.
scene::Scene sample_scene(const glm::dvec3& where = {2500.0, 0.0, 3500.0}) {
  scene::Scene s;
  const std::uint32_t kind = s.add_kind("pack_models");
  scene::Texture tex;
  tex.name = "checker";
  tex.format = scene::Texture::Format::rgba8;
  tex.width = tex.height = 2;
  tex.levels = {{255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128}};
  s.textures.push_back(tex);
  scene::Material look;
  look.name = "painted";
  look.texture = 0;
  look.alpha = scene::Material::Alpha::mask;
  const std::uint32_t material = s.add_material(look);
  scene::Mesh tri;
  tri.name = "triangle";
  tri.positions = {{0, 0, 0}, {1, 0, 0}, {0, 2, 0}};
  tri.normals = {{0, 0, 3}, {0, 0, 1}, {0, 0, 1}};  // one not unit length: written unit
  tri.uvs = {{0, 0}, {1, 0}, {0, 1}};
  tri.indices = {0, 1, 2};
  tri.parts = {{material, 0, 3}};
  tri.bounds_max = {1, 2, 0};
  s.meshes.push_back(tri);
  s.meshes.push_back(scene::box_mesh("box", {-1, -1, -1}, {1, 1, 1}, 0));
  scene::Section& sec = s.section_at(where);
  const glm::vec3 offsets[] = {{10, 0, 20}, {30, 1, 40}, {50, 2, 60}};
  for (int i = 0; i < 3; ++i) {
    scene::Instance in;
    in.offset = offsets[i];
    in.mesh = 0;
    if (i == 1) in.rotation = glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 1, 0)), in.scale = glm::vec3(2);
    in.object = s.add_object(kind, static_cast<std::uint64_t>(7 + i), sec.origin + glm::dvec3(in.offset));
    sec.instances.push_back(in);
  }
  scene::Instance box;
  box.offset = {5, 5, 5};
  box.mesh = 1;
  sec.instances.push_back(box);
  scene::Batch ground;
  ground.positions = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}};
  ground.normals = {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}};
  ground.colors = {0xFF0000FFu, 0xFF00FF00u, 0xFFFF0000u};
  scene::Batch wire;
  wire.primitive = scene::Batch::Primitive::lines;
  wire.positions = {{0, 6, 0}, {0, 6, 50}};
  wire.colors = {0xFF000000u, 0xFF000000u};
  sec.batches = {ground, wire};
  s.finish();
  return s;
}

exports::Target target(std::vector<exports::File>* sidecars = nullptr) {
  exports::Target t;
  t.name = "out/my scene.gltf";
  t.sidecars = sidecars;
  t.fields = [](const scene::Object& o, const std::string& kind) { return nlohmann::ordered_json{{"what", kind}, {"n", o.index}}; };
  t.source = "a test scene";
  return t;
}

Glb export_glb(const scene::Scene& s, const std::map<std::string, std::string>& params = {}) {
  auto options = exports::parse_options(params);
  EXPECT_TRUE(options.ok());
  auto bytes = exports::gltf(s, *options, target(), true);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? split(*bytes) : Glb{};
}

const Json* instanced_node(const Glb& g) {
  for (const Json& n : g.json["nodes"])
    if (n.contains("extensions")) return &n;
  return nullptr;
}

TEST(ExportGltf, InstancesAreOneInstancedNodePerSectionAndMesh) {
  const scene::Scene s = sample_scene();
  const Glb g = export_glb(s);
  EXPECT_EQ(g.json["asset"]["version"], "2.0");
  EXPECT_EQ(g.json["extensionsUsed"], Json::array({"EXT_mesh_gpu_instancing"}));
  const Json* node = instanced_node(g);
  ASSERT_NE(node, nullptr);
  const Json& attributes = (*node)["extensions"]["EXT_mesh_gpu_instancing"]["attributes"];
  const auto t = floats(g, attributes["TRANSLATION"]);
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(std::vector<float>(t.begin(), t.begin() + 6), (std::vector<float>{10, 0, 20, 30, 1, 40}));
  const auto r = floats(g, attributes["ROTATION"]);
  ASSERT_EQ(r.size(), 12u);
  EXPECT_FLOAT_EQ(r[4 + 1], std::sin(glm::radians(45.0f)));  // xyzw: the second instance turns about Y
  EXPECT_FLOAT_EQ(r[4 + 3], std::cos(glm::radians(45.0f)));
  EXPECT_EQ(floats(g, attributes["SCALE"]), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1}));
  // Extras: which records the instances are, with their fields.
  EXPECT_EQ((*node)["extras"]["instances"][2]["index"], 9);
  EXPECT_EQ((*node)["extras"]["fields"][1]["n"], 8);
  // The section node stands at the section origin (no re-centring this close to the origin).
  bool found = false;
  for (const Json& n : g.json["nodes"])
    if (n.value("name", "") == "section 253,252") {
      found = true;
      EXPECT_EQ(n["translation"], Json::array({2000.0, 0.0, 3000.0}));
    }
  EXPECT_TRUE(found);
  // The mesh: unit normals, POSITION bounds, the texture as a PNG that decodes to its pixels.
  const Json& prim = g.json["meshes"][(*node)["mesh"].get<int>()]["primitives"][0];
  const auto n = floats(g, prim["attributes"]["NORMAL"]);
  EXPECT_EQ(std::vector<float>(n.begin(), n.begin() + 3), (std::vector<float>{0, 0, 1}));
  EXPECT_EQ(g.json["accessors"][prim["attributes"]["POSITION"].get<int>()]["max"], Json::array({1.0, 2.0, 0.0}));
  const Json& material = g.json["materials"][prim["material"].get<int>()];
  EXPECT_EQ(material["alphaMode"], "MASK");
  const Json& image = g.json["images"][g.json["textures"][material["pbrMetallicRoughness"]["baseColorTexture"]["index"].get<int>()]["source"].get<int>()];
  EXPECT_EQ(image["mimeType"], "image/png");
  const Json& view = g.json["bufferViews"][image["bufferView"].get<int>()];
  int w = 0, h = 0, c = 0;
  unsigned char* pixels = stbi_load_from_memory(g.bin.data() + view["byteOffset"].get<int>(), view["byteLength"].get<int>(), &w, &h, &c, 4);
  ASSERT_NE(pixels, nullptr);
  EXPECT_EQ(std::vector<std::uint8_t>(pixels, pixels + 16), s.textures[0].levels[0]);
  stbi_image_free(pixels);
}

TEST(ExportGltf, WithoutInstancingEachInstanceIsANode) {
  const Glb g = export_glb(sample_scene(), {{"instancing", "false"}});
  EXPECT_FALSE(g.json.contains("extensionsUsed"));
  EXPECT_EQ(instanced_node(g), nullptr);
  int placed = 0;
  for (const Json& n : g.json["nodes"])
    if (n.contains("mesh") && n.value("name", "") == "triangle") {
      ++placed;
      if (n["translation"] == Json::array({30.0, 1.0, 40.0})) {
        EXPECT_EQ(n["scale"], Json::array({2.0, 2.0, 2.0}));
        EXPECT_EQ(n["extras"]["kind"], "pack_models");
        EXPECT_EQ(n["extras"]["fields"]["n"], 8);
      }
    }
  EXPECT_EQ(placed, 3);
}

TEST(ExportGltf, FarSceneriesAreRecentredAndTheOffsetRecorded) {
  const Glb g = export_glb(sample_scene({-120'400.0, 0.0, 80'200.0}));
  const Json offset = g.json["scenes"][0]["extras"]["sceneria"]["offset"];
  ASSERT_EQ(offset.size(), 3u);
  EXPECT_NE(offset[0].get<double>(), 0.0);
  EXPECT_EQ(offset[1].get<double>(), 0.0);
  for (const Json& n : g.json["nodes"])
    if (n.value("name", "").rfind("section", 0) == 0) {
      // section origin (-121000, 0, 80000) less the offset
      EXPECT_DOUBLE_EQ(n["translation"][0].get<double>() + offset[0].get<double>(), -121'000.0);
      EXPECT_DOUBLE_EQ(n["translation"][2].get<double>() + offset[2].get<double>(), 80'000.0);
      EXPECT_LT(std::abs(n["translation"][0].get<double>()), 1000.0);
    }
  const Glb kept = export_glb(sample_scene({-120'400.0, 0.0, 80'200.0}), {{"recentre", "false"}});
  EXPECT_EQ(kept.json["scenes"][0]["extras"]["sceneria"]["offset"], Json::array({0.0, 0.0, 0.0}));
}

TEST(ExportGltf, AnAreaKeepsOnlyTheSectionsInIt) {
  scene::Scene s = sample_scene();
  scene::Section& far = s.section_at({9500.0, 0.0, 9500.0});
  far.instances.push_back({});
  s.finish();
  EXPECT_EQ(exports::sections_in(s, {}).size(), 2u);
  const Glb all = export_glb(s);
  const Glb near = export_glb(s, {{"area", "2500,3500,800"}});
  const Glb box = export_glb(s, {{"area", "9000,-10,9000,9900,10,9900"}});
  const auto sections = [](const Glb& g) {
    std::vector<std::string> out;
    for (const Json& n : g.json["nodes"])
      if (n.value("name", "").rfind("section", 0) == 0 && n.contains("children")) out.push_back(n["name"]);
    return out;
  };
  EXPECT_EQ(sections(all).size(), 2u);
  EXPECT_EQ(sections(near), std::vector<std::string>{"section 253,252"});
  EXPECT_EQ(sections(box), std::vector<std::string>{"section 259,259"});
}

TEST(ExportGltf, LinesAreLinesRibbonsOrLeftOut) {
  const auto modes = [](const Glb& g) {
    std::vector<int> out;
    for (const Json& m : g.json["meshes"])
      if (m["name"].get<std::string>().find("geometry") != std::string::npos)
        for (const Json& p : m["primitives"]) out.push_back(p["mode"]);
    return out;
  };
  EXPECT_EQ(modes(export_glb(sample_scene())), (std::vector<int>{4, 1}));
  const Glb ribbons = export_glb(sample_scene(), {{"lines", "ribbons"}});
  EXPECT_EQ(modes(ribbons), (std::vector<int>{4, 4}));
  for (const Json& m : ribbons.json["meshes"])  // the ribbons' material is two-sided
    if (m["name"].get<std::string>().find("geometry") != std::string::npos)
      EXPECT_EQ(ribbons.json["materials"][m["primitives"][1]["material"].get<std::size_t>()]["doubleSided"], true);
  EXPECT_EQ(modes(export_glb(sample_scene(), {{"lines", "none"}})), (std::vector<int>{4}));
}

TEST(ExportGltf, GltfPutsItsBufferAndImagesBesideItOrInside) {
  const scene::Scene s = sample_scene();
  const auto options = exports::parse_options({});
  const Glb glb = export_glb(s);
  std::vector<exports::File> files;
  auto text = exports::gltf(s, *options, target(&files), false);
  ASSERT_TRUE(text.ok());
  const Json j = Json::parse(text->begin(), text->end());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "my_scene_0.png");
  EXPECT_EQ(files[1].name, "my_scene.bin");
  EXPECT_EQ(j["buffers"][0]["uri"], "my_scene.bin");
  EXPECT_EQ(j["images"][0]["uri"], "my_scene_0.png");
  EXPECT_EQ(j["buffers"][0]["byteLength"].get<std::size_t>(), files[1].bytes.size());
  // Alone, the same buffer (images included) is a data: URI.
  auto alone = exports::gltf(s, *options, target(), false);
  ASSERT_TRUE(alone.ok());
  const std::string uri = Json::parse(alone->begin(), alone->end())["buffers"][0]["uri"];
  const std::string prefix = "data:application/octet-stream;base64,";
  ASSERT_EQ(uri.rfind(prefix, 0), 0u);
  EXPECT_EQ(uri.size() - prefix.size(), (glb.bin.size() + 2) / 3 * 4);
}

TEST(ExportGltf, HostileValuesNeverReachTheFile) {
  scene::Scene s = sample_scene();
  s.meshes[0].positions[1].x = NAN;
  s.meshes[0].normals[2] = glm::vec3(0.0f);
  s.sections[0].instances[0].rotation = glm::quat(NAN, 0, 0, 0);
  s.sections[0].instances[2].scale.y = INFINITY;
  s.meshes[1].parts.push_back({0, 30, 600});  // past the indices: dropped
  s.meshes[1].indices.push_back(9999);        // no such vertex
  s.meshes[1].parts.push_back({0, static_cast<std::uint32_t>(s.meshes[1].indices.size() - 1), 1});
  const auto options = exports::parse_options({});
  auto text = exports::gltf(s, *options, target(), false);
  ASSERT_TRUE(text.ok());
  const std::string json(text->begin(), text->end());
  EXPECT_EQ(json.find("nan"), std::string::npos);
  EXPECT_EQ(json.find("inf"), std::string::npos);
  const Glb g = export_glb(s);
  const auto r = floats(g, (*instanced_node(g))["extensions"]["EXT_mesh_gpu_instancing"]["attributes"]["ROTATION"]);
  EXPECT_EQ(std::vector<float>(r.begin(), r.begin() + 4), (std::vector<float>{0, 0, 0, 1}));
  for (const Json& m : g.json["meshes"])
    if (m["name"] == "box") EXPECT_EQ(m["primitives"].size(), 1u);
}

TEST(ExportOptions, BadOptionsSayWhatIsAllowed) {
  EXPECT_FALSE(exports::parse_options({{"instancing", "maybe"}}).ok());
  EXPECT_FALSE(exports::parse_options({{"area", "1,2"}}).ok());
  EXPECT_FALSE(exports::parse_options({{"area", "1,2,-5"}}).ok());
  const auto unknown = exports::parse_options({{"colour", "red"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("instancing=true|false"), std::string::npos);
  const auto box = exports::parse_options({{"area", "5, 1, 5, 0,0,0"}});
  ASSERT_TRUE(box.ok());
  EXPECT_EQ(box->area.kind, exports::Area::Kind::box);
  EXPECT_EQ(box->area.min, glm::dvec3(0, 0, 0));
  EXPECT_EQ(box->area.max, glm::dvec3(5, 1, 5));
}

TEST(ExportObj, InstancesAreBakedWithMaterialsBeside) {
  const scene::Scene s = sample_scene();
  std::vector<exports::File> files;
  auto bytes = exports::obj(s, *exports::parse_options({}), target(&files));
  ASSERT_TRUE(bytes.ok());
  const std::string text(bytes->begin(), bytes->end());
  std::istringstream lines(text);
  std::map<std::string, int> counts;
  std::vector<std::string> vertices;
  for (std::string line; std::getline(lines, line);) {
    const std::string key = line.substr(0, line.find(' '));
    ++counts[key];
    if (key == "v") vertices.push_back(line);
  }
  // 3 triangles + a 24-vertex box, the ground triangle and the wire's two ends.
  EXPECT_EQ(counts["v"], 3 * 3 + 24 + 3 + 2);
  EXPECT_EQ(counts["f"], 3 + 12 + 1);
  EXPECT_EQ(counts["l"], 1);
  EXPECT_EQ(counts["vt"], 9 + 24);
  EXPECT_EQ(counts["o"], 1 + 4);
  // The ground's first vertex, with its colour; then the first instance's first vertex.
  EXPECT_EQ(vertices[0], "v 2000.0000 0.0000 3000.0000 1 0 0");
  EXPECT_EQ(vertices[5], "v 2010.0000 0.0000 3020.0000");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "my_scene_0.png");
  EXPECT_EQ(files[1].name, "my_scene.mtl");
  const std::string mtl(files[1].bytes.begin(), files[1].bytes.end());
  EXPECT_NE(mtl.find("map_Kd my_scene_0.png"), std::string::npos);
  EXPECT_NE(text.find("mtllib my_scene.mtl"), std::string::npos);
}

// The real module with 77 models in PACK sections: every model of the reference decode is an
// instance in the export, where the reference reader put it.
TEST(ExportGltf, APackModuleExportsEveryModelWhereTheReferenceDecodePutsIt) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto path = test::samples_dir() / "maszyna/eu7/wrapinc_linia053.v9-pack6.eu7";
  MemorySource source(test::read_file(path), path.filename().string());
  auto document = open_document(source);
  ASSERT_TRUE(document.ok()) << document.error().describe();
  const Writer* writer = find_format("eu7b")->writer_for("x.glb");
  ASSERT_NE(writer, nullptr);
  WriteOptions options;
  options.params["recentre"] = "false";
  auto bytes = writer->write(**document, options);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  const Glb g = split(*bytes);
  // World positions of every instance: section node + instance translation.
  std::vector<glm::dvec3> placed;
  std::map<int, glm::dvec3> parent_translation;
  for (const Json& n : g.json["nodes"])
    if (n.contains("children") && n.contains("translation"))
      for (const Json& c : n["children"]) parent_translation[c.get<int>()] = {n["translation"][0], n["translation"][1], n["translation"][2]};
  for (std::size_t k = 0; k < g.json["nodes"].size(); ++k) {
    const Json& n = g.json["nodes"][k];
    const glm::dvec3 base = parent_translation.count(static_cast<int>(k)) ? parent_translation[static_cast<int>(k)] : glm::dvec3(0);
    if (n.contains("extensions")) {
      const auto t = floats(g, n["extensions"]["EXT_mesh_gpu_instancing"]["attributes"]["TRANSLATION"]);
      for (std::size_t i = 0; i < t.size(); i += 3) placed.push_back(base + glm::dvec3(t[i], t[i + 1], t[i + 2]));
    } else if (n.contains("mesh") && n.value("name", "") != "geometry") {
      placed.push_back(base + glm::dvec3(n["translation"][0], n["translation"][1], n["translation"][2]));
    }
  }
  std::ifstream decode(test::samples_dir() / "maszyna/eu7/wrapinc_linia053.v9-pack6.reference-decode.txt");
  const std::regex loc(R"(loc=\(([-0-9.e]+),([-0-9.e]+),([-0-9.e]+)\))");
  std::size_t models = 0;
  for (std::string line; std::getline(decode, line);) {
    std::smatch m;
    if (line.find("    model ") != 0 || !std::regex_search(line, m, loc)) continue;
    ++models;
    const glm::dvec3 want(std::stod(m[1]), std::stod(m[2]), std::stod(m[3]));
    const bool there = std::any_of(placed.begin(), placed.end(), [&](const glm::dvec3& p) { return glm::length(p - want) < 1e-3; });
    EXPECT_TRUE(there) << line;
  }
  EXPECT_EQ(models, 77u);
  EXPECT_EQ(placed.size(), 77u);
}

// An E3D model exports as its submodel tree: a node per submodel under its parent, with the
// submodel's name, own matrix and record, and each drawn submodel's mesh where the viewer draws it.
TEST(ExportGltf, AModelExportsItsSubmodelTreeAsNodes) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto path = test::samples_dir() / "maszyna/models/e6acta_pantograf.e3d";
  MemorySource source(test::read_file(path), path.filename().string());
  auto document = open_document(source);
  ASSERT_TRUE(document.ok()) << document.error().describe();
  auto bytes = find_format("e3d")->writer_for("x.glb")->write(**document, {});
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  const Glb g = split(*bytes);
  const Json& nodes = g.json["nodes"];
  const auto submodels = (*document)->lists().front();
  ASSERT_EQ(submodels.id, "submodels");
  ASSERT_EQ(nodes.size(), submodels.count) << "a node per submodel, and no instance nodes";

  // Parents from the children lists; world matrices composed down the tree.
  std::vector<int> parent(nodes.size(), -1);
  for (std::size_t k = 0; k < nodes.size(); ++k)
    for (const Json& c : nodes[k].value("children", Json::array())) parent[c.get<std::size_t>()] = static_cast<int>(k);
  const auto local = [&](std::size_t k) {
    const Json& n = nodes[k];
    const glm::dvec3 t(n["translation"][0], n["translation"][1], n["translation"][2]), sc(n["scale"][0], n["scale"][1], n["scale"][2]);
    const glm::dquat r(n["rotation"][3].get<double>(), n["rotation"][0].get<double>(), n["rotation"][1].get<double>(), n["rotation"][2].get<double>());
    return glm::translate(glm::dmat4(1.0), t) * glm::mat4_cast(r) * glm::scale(glm::dmat4(1.0), sc);
  };
  const auto world = [&](std::size_t k) {
    glm::dmat4 m = local(k);
    for (int p = parent[k]; p >= 0; p = parent[static_cast<std::size_t>(p)]) m = local(static_cast<std::size_t>(p)) * m;
    return m;
  };
  // The drawn submodels: where the viewer's scene puts them, the exported tree puts them too.
  auto scene = (*document)->scene();
  ASSERT_TRUE(scene.ok());
  std::map<std::uint64_t, glm::dvec3> drawn;  // submodel -> its mesh's origin in the world
  for (const auto& sec : scene->sections)
    for (const auto& in : sec.instances) drawn[scene->objects[in.object].index] = sec.origin + glm::dvec3(in.offset);
  // A submodel without a name is "submodel N" (the outliner's "(unnamed)" says nothing in Blender).
  const auto name_of = [&](std::uint64_t i) -> std::string {
    const std::string row = (*document)->rows("submodels", i, 1)[0]["name"];
    return row == "(unnamed)" ? fmt::format("submodel {}", i) : row;
  };
  std::size_t with_mesh = 0, checked_parents = 0;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const Json& n = nodes[k];
    if (!n.contains("mesh")) continue;
    ++with_mesh;
    ASSERT_TRUE(n.contains("extras")) << n.dump();
    EXPECT_EQ(n["extras"]["kind"], "submodels");
    const std::uint64_t index = n["extras"]["index"];
    ASSERT_TRUE(drawn.count(index)) << index;
    const glm::dvec3 at(world(k)[3]);
    EXPECT_LT(glm::length(at - drawn[index]), 1e-4) << n["name"];
    // Named as the submodel, under its parent submodel's node.
    EXPECT_EQ(n["name"], name_of(index));
    const Json parent_submodel = (*document)->record("submodels", index)["parent"];
    if (parent_submodel.is_null()) {
      EXPECT_EQ(parent[k], -1);
    } else {
      ASSERT_GE(parent[k], 0);
      EXPECT_EQ(nodes[static_cast<std::size_t>(parent[k])]["name"], name_of(parent_submodel.get<std::uint64_t>()));
      ++checked_parents;
    }
  }
  EXPECT_EQ(with_mesh, drawn.size());
  EXPECT_GT(with_mesh, 10u);
  EXPECT_GT(checked_parents, 5u);
}

TEST(ExportZip, StoredEntriesWithTheirCrcAndADirectory) {
  const std::vector<std::uint8_t> hello{'h', 'e', 'l', 'l', 'o'};
  auto archive = exports::zip({{"a.txt", hello}, {"b/c.bin", {1, 2, 3}}});
  ASSERT_TRUE(archive.ok());
  const auto& z = *archive;
  const auto u16 = [&](std::size_t at) { return static_cast<std::uint32_t>(z[at] | z[at + 1] << 8); };
  EXPECT_EQ(u32(z, 0), 0x04034B50u);
  EXPECT_EQ(u16(8), 0u);                 // stored
  EXPECT_EQ(u32(z, 14), 0x3610A686u);    // CRC-32 of "hello"
  EXPECT_EQ(u32(z, 18), 5u);
  EXPECT_EQ(u32(z, 22), 5u);
  EXPECT_EQ(std::string(z.begin() + 30, z.begin() + 35), "a.txt");
  EXPECT_EQ(std::vector<std::uint8_t>(z.begin() + 35, z.begin() + 40), hello);
  const std::size_t second = 40;
  EXPECT_EQ(u32(z, second), 0x04034B50u);
  EXPECT_EQ(std::string(z.begin() + second + 30, z.begin() + second + 37), "b/c.bin");
  // The end record: two entries, the directory right after the data.
  const std::size_t end = z.size() - 22;
  EXPECT_EQ(u32(z, end), 0x06054B50u);
  EXPECT_EQ(u16(end + 10), 2u);
  const std::uint32_t directory = u32(z, end + 16);
  EXPECT_EQ(directory, second + 30 + 7 + 3);
  EXPECT_EQ(u32(z, directory), 0x02014B50u);
  EXPECT_EQ(u32(z, directory + 42), 0u);  // the first entry's local header
  const std::size_t next = directory + 46 + 5;
  EXPECT_EQ(u32(z, next + 42), second);
  EXPECT_EQ(u32(z, end + 12), z.size() - 22 - directory);
}

// ---- streamed exports: the document's scene in pieces (scene::Pieces), the output to a sink ----

// A generated module opened for a conversion (PACK kept encoded, sections decoded as walked).
std::unique_ptr<Document> generated_document(std::uint64_t models, std::vector<std::uint8_t>& bytes) {
  auto made = find_format("eu7b")->generate({.models = models, .seed = 3, .params = {}});
  EXPECT_TRUE(made.ok());
  bytes = std::move(made).value();
  static std::vector<std::unique_ptr<MemorySource>> sources;  // the documents read from them
  sources.push_back(std::make_unique<MemorySource>(std::span<const std::uint8_t>(bytes), "gen.eu7"));
  auto document = open_document(*sources.back(), {.deferred = true});
  EXPECT_TRUE(document.ok());
  return document.ok() ? std::move(document).value() : nullptr;
}

// Every placement an export holds: its record and where it stands (world, rounded to the mm).
std::multiset<std::tuple<std::string, std::uint64_t, long, long, long>> placements(const Glb& g) {
  std::multiset<std::tuple<std::string, std::uint64_t, long, long, long>> out;
  const Json& offset = g.json["scenes"][0]["extras"]["sceneria"]["offset"];
  const auto mm = [](double v) { return std::lround(v * 1000.0); };
  for (const Json& section : g.json["nodes"]) {
    if (!section.contains("children") || !section.contains("translation") || !section["extras"].contains("row")) continue;
    const glm::dvec3 origin(section["translation"][0].get<double>() + offset[0].get<double>(), section["translation"][1].get<double>() + offset[1].get<double>(),
                            section["translation"][2].get<double>() + offset[2].get<double>());
    for (const Json& k : section["children"]) {
      const Json& n = g.json["nodes"][k.get<std::size_t>()];
      if (!n.contains("extensions")) {  // one placement of its mesh: a plain node
        if (!n.contains("mesh") || !n.contains("extras") || !n["extras"].contains("kind")) continue;
        const Json& t = n["translation"];
        out.insert({n["extras"]["kind"], n["extras"]["index"], mm(origin.x + t[0].get<double>()), mm(origin.y + t[1].get<double>()),
                    mm(origin.z + t[2].get<double>())});
        continue;
      }
      const Json& e = n["extras"]["instances"];
      const std::vector<float> t = floats(g, n["extensions"]["EXT_mesh_gpu_instancing"]["attributes"]["TRANSLATION"].get<int>());
      for (std::size_t i = 0; i < e.size(); ++i)
        out.insert({e[i]["kind"], e[i]["index"], mm(origin.x + t[3 * i]), mm(origin.y + t[3 * i + 1]), mm(origin.z + t[3 * i + 2])});
    }
  }
  return out;
}

TEST(ExportStreamed, AModuleInPiecesExportsWhatItsWholeSceneHolds) {
  // Two documents of one module: the whole scene decodes the first one's PACK; the second keeps
  // it encoded, as a conversion opens it, and its pieces decode a section at a time.
  std::vector<std::uint8_t> bytes, same;
  auto decoded = generated_document(30000, bytes), document = generated_document(30000, same);
  ASSERT_NE(decoded, nullptr);
  ASSERT_NE(document, nullptr);
  auto whole = decoded->scene();
  ASSERT_TRUE(whole.ok());
  std::uint64_t instances = 0;
  for (const scene::Section& s : whole->sections) instances += s.instances.size();
  // Everything, and an area (the pieces outside it passed by undecoded).
  const glm::dvec3 middle = (whole->bounds_min + whole->bounds_max) * 0.5;
  for (const std::string& area : {std::string(), fmt::format("{},{},400", middle.x, middle.z)}) {
    SCOPED_TRACE(area);
    auto options = exports::parse_options(area.empty() ? std::map<std::string, std::string>{} : std::map<std::string, std::string>{{"area", area}});
    ASSERT_TRUE(options.ok());
    options->extras = false;
    exports::Target t;
    t.name = "gen.glb";
    // The whole scene at once (every section decoded) against the pieces, a PACK section each.
    auto from_scene = exports::gltf(*whole, *options, t, true);
    ASSERT_TRUE(from_scene.ok());
    std::vector<std::uint8_t> streamed;
    VectorByteSink sink(streamed);
    const exports::Source pieces{[&] { return document->scene_pieces(); }, nullptr};
    ASSERT_FALSE(exports::gltf(pieces, *options, t, true, sink));
    const auto a = placements(split(*from_scene)), b = placements(split(streamed));
    if (area.empty()) EXPECT_EQ(a.size(), instances);
    else EXPECT_LT(a.size(), instances / 2);
    EXPECT_GT(a.size(), 1000u);
    EXPECT_EQ(a, b);
  }
}

// A sink that takes no rewrite (a pipe): a .glb's header is then measured by a first pass.
class PipeSink final : public ByteSink {
 public:
  explicit PipeSink(std::vector<std::uint8_t>& out) : out_(out) {}
  Error put(std::span<const std::uint8_t> bytes) override {
    out_.insert(out_.end(), bytes.begin(), bytes.end());
    written_ += bytes.size();
    return {};
  }
  using ByteSink::put;

 private:
  std::vector<std::uint8_t>& out_;
};

TEST(ExportStreamed, EveryLayoutOfTheBufferHoldsTheSameBytes) {
  std::vector<std::uint8_t> bytes;
  auto document = generated_document(8000, bytes);
  ASSERT_NE(document, nullptr);
  const Writer* glb = find_format("eu7b")->writer_for("glb");
  const Writer* gltf = find_format("eu7b")->writer_for("gltf");
  WriteOptions options;
  options.name = "gen.glb";
  std::vector<std::uint8_t> patched, piped;
  VectorByteSink to_vector(patched);
  PipeSink to_pipe(piped);
  ASSERT_FALSE(glb->stream(*document, options, to_vector));
  ASSERT_FALSE(glb->stream(*document, options, to_pipe));
  EXPECT_TRUE(patched == piped);
  const Glb g = split(patched);
  ASSERT_FALSE(g.bin.empty());
  // A .gltf with its .bin given apart, the .bin as a file written as it goes, and inside.
  options.name = "gen.gltf";
  std::vector<exports::File> files;
  options.sidecars = &files;
  auto apart = gltf->write(*document, options);
  ASSERT_TRUE(apart.ok());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].name, "gen.bin");
  EXPECT_TRUE(files[0].bytes == g.bin);
  std::vector<std::uint8_t> streamed_bin;
  options.sidecar_sink = [&](const std::string& name) -> Result<std::unique_ptr<ByteSink>> {
    EXPECT_EQ(name, "gen.bin");
    return std::unique_ptr<ByteSink>(std::make_unique<VectorByteSink>(streamed_bin));
  };
  files.clear();
  auto beside = gltf->write(*document, options);
  ASSERT_TRUE(beside.ok());
  EXPECT_TRUE(files.empty());
  EXPECT_TRUE(streamed_bin == g.bin);
  EXPECT_TRUE(*beside == *apart);
  options.sidecars = nullptr;
  options.sidecar_sink = {};
  auto inside = gltf->write(*document, options);
  ASSERT_TRUE(inside.ok());
  const Json j = Json::parse(inside->begin(), inside->end());
  const std::string uri = j["buffers"][0]["uri"];
  const std::string prefix = "data:application/octet-stream;base64,";
  ASSERT_EQ(uri.rfind(prefix, 0), 0u);
  EXPECT_EQ(j["buffers"][0]["byteLength"], g.bin.size());
  // base64 decoded by hand
  std::vector<std::uint8_t> decoded;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : uri.substr(prefix.size())) {
    const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (c == '=') break;
    acc = (acc << 6) | static_cast<std::uint32_t>(std::strchr(k, c) - k), bits += 6;
    if (bits >= 8) bits -= 8, decoded.push_back(static_cast<std::uint8_t>(acc >> bits));
  }
  EXPECT_TRUE(decoded == g.bin);
  // And the JSON of each says the same apart from where its buffer is.
  Json a = Json::parse(apart->begin(), apart->end()), b = j;
  a["buffers"][0].erase("uri"), b["buffers"][0].erase("uri");
  EXPECT_EQ(a, b);
  Json c = g.json;
  EXPECT_EQ(c, a);
}

// Pieces made in code: a first piece with one section of its own, then `n` later pieces of one
// section each (one joining the first piece's cell), every one with new meshes and objects.
class CountedPieces final : public scene::Pieces {
 public:
  explicit CountedPieces(int n) : n_(n) {}
  Result<scene::Scene> base() override {
    scene::Scene s;
    s.add_material({});
    const std::uint32_t kind = s.add_kind("base");
    s.meshes.push_back(scene::box_mesh("base box", {-1, -1, -1}, {1, 1, 1}, 0));
    scene::Section& sec = s.section_at({500.0, 0.0, 500.0});
    scene::Instance in;
    in.offset = {1, 2, 3};
    in.object = s.add_object(kind, 0, sec.origin + glm::dvec3(in.offset));
    sec.instances.push_back(in);
    s.finish();
    meshes_ = 1, objects_ = 1;
    return s;
  }
  std::vector<exports::Bounds> later_bounds() const override { return std::vector<exports::Bounds>(static_cast<std::size_t>(n_)); }
  Result<std::optional<scene::Scene>> next() override {
    if (given_ == n_) return std::optional<scene::Scene>();
    scene::Scene d;
    d.mesh_base = meshes_, d.object_base = objects_;
    const std::uint32_t kind = d.add_kind("later");
    d.add_material({});
    d.meshes.push_back(scene::box_mesh(fmt::format("box {}", given_), {0, 0, 0}, {1, 1, 1}, 0));
    // The first later piece joins the first piece's cell; the others have cells of their own.
    scene::Section& sec = d.section_at({500.0 + 1000.0 * given_, 0.0, 500.0});
    for (int k = 0; k < 100; ++k) {
      scene::Instance in;
      in.mesh = meshes_;
      in.offset = {static_cast<float>(k), 0, 0};
      in.object = d.object_base + d.add_object(kind, static_cast<std::uint64_t>(given_ * 100 + k), sec.origin + glm::dvec3(in.offset));
      sec.instances.push_back(in);
    }
    d.finish();
    ++given_, ++meshes_, objects_ += 100;
    return std::optional<scene::Scene>(std::move(d));
  }
  nlohmann::ordered_json fields(const scene::Object& o, const std::string& kind) override { return {{"kind", kind}, {"i", o.index}}; }

 private:
  int n_, given_ = 0;
  std::uint32_t meshes_ = 0, objects_ = 0;
};

TEST(ExportStreamed, TheWalkHoldsOnePieceOfPlacementsAtATime) {
  CountedPieces pieces(50);
  exports::Options options;
  exports::SceneWalk walk(pieces, options, nullptr);
  ASSERT_FALSE(walk.start());
  EXPECT_EQ(walk.total(), 51u);
  std::size_t sections = 0, instances = 0;
  for (;;) {
    auto sec = walk.next();
    ASSERT_TRUE(sec.ok());
    if (!*sec) break;
    ++sections;
    instances += (*sec)->instances.size();
    // The world keeps meshes, not placements: no later piece's objects, no section's instances
    // once handed out.
    EXPECT_EQ(walk.world().objects.size(), 1u);
    std::size_t kept = 0;
    for (const scene::Section& s : walk.world().sections) kept += s.instances.size();
    EXPECT_EQ(kept, 0u);
    // The first later piece joined the first piece's cell: one section, its instance and theirs.
    if (sections == 1) {
      EXPECT_EQ((*sec)->instances.size(), 101u);
      const auto ref = walk.object((*sec)->instances.front().object);
      ASSERT_NE(ref.object, nullptr);
      EXPECT_EQ(*ref.kind, "base");
      const auto later = walk.object((*sec)->instances.back().object);
      ASSERT_NE(later.object, nullptr);
      EXPECT_EQ(*later.kind, "later");
      EXPECT_EQ(later.object->index, 99u);
    }
  }
  EXPECT_EQ(sections, 50u);
  EXPECT_EQ(instances, 50u * 100u + 1u);
  EXPECT_EQ(walk.world().meshes.size(), 51u);
  // Exported, every placement is there with its fields, the fields asked of the pieces.
  std::vector<std::uint8_t> out;
  VectorByteSink sink(out);
  exports::Target t;
  const exports::Source source{[] { return std::make_unique<CountedPieces>(50); }, nullptr};
  ASSERT_FALSE(exports::gltf(source, options, t, true, sink));
  const Glb g = split(out);
  std::size_t placed = 0, with_fields = 0;
  for (const Json& n : g.json["nodes"])
    if (n.contains("extensions")) {
      placed += n["extras"]["instances"].size();
      for (const Json& f : n["extras"]["fields"]) with_fields += f.contains("i");
    } else if (n.contains("mesh") && n.contains("extras") && n["extras"].contains("kind")) {
      ++placed, with_fields += n["extras"]["fields"].contains("i");
    }
  EXPECT_EQ(placed, 5001u);
  EXPECT_EQ(with_fields, 5001u);
}

}  // namespace
}  // namespace sceneria
