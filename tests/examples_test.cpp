// The gallery's generated examples, opened as the page opens them (their files dropped as a
// folder, found through the asset resolver), read without a warning, written back byte for byte,
// and drawn textured in the colours they were made with: the Hard Truck roadside module with its
// .res, and the X-Ray robot arm with its skeleton, motion and DDS textures.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "formats/b3d/b3d.hpp"
#include "formats/b3d/example.hpp"
#include "formats/b3d/res.hpp"
#include "formats/dds/dds.hpp"
#include "formats/xray/example.hpp"
#include "formats/xray/xray.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"
#include "registry/registry.hpp"

namespace sceneria {
namespace {

// The files as a dropped folder: the resolver the page builds over what the browser hands it.
class Dropped {
 public:
  explicit Dropped(std::vector<ExampleFile> files) : files_(std::move(files)) {
    std::vector<std::string> paths;
    for (const ExampleFile& f : files_) paths.push_back(f.path);
    assets_ = std::make_unique<ListedAssets>(paths, [this](std::size_t i) -> std::unique_ptr<ByteSource> {
      return std::make_unique<MemorySource>(std::span<const std::uint8_t>(files_.at(i).bytes), files_.at(i).path);
    });
  }
  Dropped(const Dropped&) = delete;
  Dropped& operator=(const Dropped&) = delete;

  // The first file (the one the gallery opens), with `params` as the page's choices.
  Result<std::unique_ptr<Document>> open(std::map<std::string, std::string> params = {}) {
    source_ = std::make_unique<MemorySource>(std::span<const std::uint8_t>(files_.front().bytes), files_.front().path);
    OpenOptions options;
    options.assets = assets_.get();
    options.params = std::move(params);
    return open_document(*source_, options);
  }
  const std::vector<ExampleFile>& files() const { return files_; }
  // Opened as the gallery opens it, with nothing missing and no warning, and its scene (none
  // where it failed, said by the test's failures).
  struct Opened {
    std::unique_ptr<Document> doc;
    std::optional<scene::Scene> scene;
  };
  Opened open_clean() {
    Opened out;
    auto doc = open();
    EXPECT_TRUE(doc.ok()) << doc.error().describe();
    if (!doc) return out;
    out.doc = std::move(*doc);
    EXPECT_TRUE(out.doc->missing_assets().empty()) << out.doc->missing_assets().front();
    const auto warnings = out.doc->warnings();
    EXPECT_TRUE(warnings.empty()) << warnings.front().message;
    auto s = out.doc->scene();
    EXPECT_TRUE(s.ok()) << s.error().describe();
    if (s) out.scene = std::move(*s);
    return out;
  }

 private:
  std::vector<ExampleFile> files_;
  std::unique_ptr<ListedAssets> assets_;
  std::unique_ptr<MemorySource> source_;
};

glm::vec3 mean_rgb(std::span<const std::uint8_t> rgba) {
  glm::dvec3 sum(0.0);
  for (std::size_t i = 0; i + 3 < rgba.size(); i += 4) sum += glm::dvec3(rgba[i], rgba[i + 1], rgba[i + 2]);
  return glm::vec3(sum / static_cast<double>(std::max<std::size_t>(1, rgba.size() / 4)));
}
glm::ivec3 pixel(const scene::Texture& t, const std::vector<std::uint8_t>& rgba, std::uint32_t x, std::uint32_t y) {
  const std::size_t at = (std::size_t{y} * t.width + x) * 4;
  return {rgba.at(at), rgba.at(at + 1), rgba.at(at + 2)};
}

// How many instances draw each mesh, by its name.
std::map<std::string, int> drawn(const scene::Scene& s) {
  std::map<std::string, int> out;
  for (const scene::Section& sec : s.sections)
    for (const scene::Instance& in : sec.instances) ++out[s.meshes.at(in.mesh).name];
  return out;
}

// Each drawn triangle of the meshes of a name, in world coordinates.
std::vector<std::array<glm::vec3, 3>> world_triangles(const scene::Scene& s, std::string_view name) {
  std::vector<std::array<glm::vec3, 3>> out;
  for (const scene::Section& sec : s.sections)
    for (const scene::Instance& in : sec.instances) {
      const scene::Mesh& m = s.meshes.at(in.mesh);
      if (m.name != name) continue;
      const auto world = [&](std::uint32_t i) { return glm::vec3(sec.origin) + in.offset + in.rotation * (in.scale * m.positions.at(i)); };
      for (std::size_t k = 0; k + 2 < m.indices.size(); k += 3) out.push_back({world(m.indices[k]), world(m.indices[k + 1]), world(m.indices[k + 2])});
    }
  return out;
}
glm::vec3 facing(const std::array<glm::vec3, 3>& t) { return glm::normalize(glm::cross(t[1] - t[0], t[2] - t[0])); }

// ---- Hard Truck ----

TEST(ExampleB3d, TheModuleAndItsResourcesReadCleanAndWriteBackByteForByte) {
  const auto files = b3d::example_files();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "example.b3d");
  EXPECT_EQ(files[1].path, "example.res");
  // Made by code alone: the same bytes every time.
  const auto again = b3d::example_files();
  EXPECT_TRUE(again[0].bytes == files[0].bytes && again[1].bytes == files[1].bytes);

  auto f = b3d::read_b3d(files[0].bytes);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_FALSE(f->incomplete) << f->incomplete->describe();
  EXPECT_TRUE(f->warnings.empty()) << f->warnings.front().message;
  EXPECT_EQ(f->header, b3d::computed_header(*f));
  ASSERT_EQ(f->materials.size(), 10u);
  const std::vector<std::string> names = {"road", "grass", "brick", "roof", "door", "window", "window_lit", "bark", "needles", "post"};
  for (std::size_t k = 0; k < names.size(); ++k) EXPECT_EQ(b3d::name_text(f->materials[k]), names[k]);
  std::map<std::uint32_t, int> types;
  for (const b3d::Block& b : f->blocks) ++types[b.type];
  // Containers 5, vertex blocks 37 (the fields) and 7, polygon blocks 35, locators 24 (the house,
  // six trees, eight posts), links 18 (five trees, seven posts), one switch 21 and one LOD 10.
  EXPECT_EQ(types, (std::map<std::uint32_t, int>{{5, 5}, {7, 4}, {10, 1}, {18, 12}, {21, 1}, {24, 15}, {35, 12}, {37, 2}}));
  EXPECT_EQ(f->blocks.size(), 52u);
  auto back = b3d::write_b3d(*f);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_TRUE(*back == files[0].bytes);

  auto res = b3d::read_res(files[1].bytes);
  ASSERT_TRUE(res.ok()) << res.error().describe();
  EXPECT_TRUE(res->trailing.empty());
  EXPECT_TRUE(b3d::write_res(*res) == files[1].bytes);
  const b3d::ResSection* textures = res->section("TEXTUREFILES");
  const b3d::ResSection* materials = res->section("MATERIALS");
  ASSERT_NE(textures, nullptr);
  ASSERT_NE(materials, nullptr);
  ASSERT_EQ(textures->entries.size(), 10u);
  ASSERT_EQ(materials->entries.size(), 10u);
  for (std::size_t k = 0; k < names.size(); ++k) {
    SCOPED_TRACE(names[k]);
    EXPECT_EQ(textures->entries[k].path(), "txr\\" + names[k] + ".txr");
    const b3d::ResMaterial m = b3d::parse_material(materials->entries[k].text);
    EXPECT_EQ(m.name, names[k]);
    EXPECT_EQ(m.use, b3d::ResMaterial::Use::tex);
    EXPECT_EQ(m.texture, k + 1);
    auto im = b3d::decode_txr(textures->entries[k].data);
    ASSERT_TRUE(im.ok()) << im.error().describe();
    EXPECT_EQ(im->format, "565");
    EXPECT_EQ(im->width, k == 0 ? 128u : 64u);
    EXPECT_EQ(im->height, im->width);
  }
}

TEST(ExampleB3d, OpensFromItsFolderTexturedInItsColours) {
  Dropped folder(b3d::example_files());
  auto opened = folder.open_clean();
  ASSERT_TRUE(opened.scene);
  const auto& s = opened.scene;
  const auto& doc = opened.doc;
  const auto summary = describe(*doc);
  EXPECT_EQ(summary["group_count"], 2);
  EXPECT_EQ(summary["hidden_blocks"], 0);

  // Group 0: the near trees and the windows by day. The trees and posts drawn at each of their
  // locators: where the first stands, then by its five and seven link copies.
  EXPECT_EQ(drawn(*s), (std::map<std::string, int>{{"crown", 6}, {"door", 1}, {"ground_p", 1}, {"post_p", 8}, {"road_p", 1},
                                                   {"roof", 1}, {"trunk", 6}, {"walls", 1}, {"windows_day", 1}}));
  EXPECT_EQ(s->meshes.size(), 26u);
  // 310 triangles (2 road, 4 fields, 32 house, 6 x 32 trees, 8 x 10 posts) over 60 m square, Z up
  // turned to Y up; the tallest thing the upper crowns' tips, 6.6 m.
  std::size_t triangles = 0;
  glm::vec3 lo(INFINITY), hi(-INFINITY);
  for (const auto& [name, count] : drawn(*s))
    for (const auto& t : world_triangles(*s, name)) {
      ++triangles;
      for (const glm::vec3& p : t) lo = glm::min(lo, p), hi = glm::max(hi, p);
    }
  EXPECT_EQ(triangles, 310u);
  EXPECT_NEAR(glm::length(lo - glm::vec3(-30, 0, -30)), 0.0f, 1e-4f) << lo.x << " " << lo.y << " " << lo.z;
  EXPECT_NEAR(glm::length(hi - glm::vec3(30, 6.6f, 30)), 0.0f, 1e-4f) << hi.x << " " << hi.y << " " << hi.z;
  EXPECT_TRUE(std::any_of(s->nodes.begin(), s->nodes.end(), [](const scene::Node& n) { return n.name == "tree at tree_space6"; }));
  EXPECT_TRUE(std::any_of(s->nodes.begin(), s->nodes.end(), [](const scene::Node& n) { return n.name == "post at post_space8"; }));

  // Every material but the default wears its own texture, decoded, in the colours it was made in.
  ASSERT_EQ(s->materials.size(), 10u);
  ASSERT_EQ(s->textures.size(), 9u);
  std::map<std::string, const scene::Texture*> by_material;
  for (std::size_t k = 1; k < s->materials.size(); ++k) {
    const scene::Material& m = s->materials[k];
    SCOPED_TRACE(m.name);
    ASSERT_NE(m.texture, scene::kNoTexture);
    const scene::Texture& t = s->textures.at(m.texture);
    EXPECT_EQ(t.name, "txr\\" + m.name + ".txr");
    EXPECT_EQ(t.format, scene::Texture::Format::rgba8);
    ASSERT_EQ(t.levels.size(), 1u);
    EXPECT_EQ(t.levels[0].size(), std::size_t{t.width} * t.height * 4);
    EXPECT_EQ(m.color, 0xFFFFFFFFu);  // the texture as it is
    EXPECT_EQ(m.alpha, scene::Material::Alpha::opaque);
    by_material[m.name] = &t;
  }
  EXPECT_EQ(by_material.size(), 9u);
  const auto mean = [&](const char* name) { return mean_rgb(by_material.at(name)->levels[0]); };
  const auto at = [&](const char* name, std::uint32_t x, std::uint32_t y) {
    const scene::Texture& t = *by_material.at(name);
    return pixel(t, t.levels[0], x, y);
  };
  // Asphalt, a dashed yellow middle line and white edge lines.
  const glm::vec3 road = mean("road");
  EXPECT_LT(road.r, 110.0f);
  EXPECT_LT(std::abs(road.r - road.b), 12.0f);
  const glm::ivec3 dash = at("road", 63, 10), gap = at("road", 63, 100), edge = at("road", 9, 50);
  EXPECT_GT(dash.r, 225);
  EXPECT_GT(dash.g, 175);
  EXPECT_LT(dash.b, 70);
  EXPECT_LT(gap.r, 120);
  EXPECT_GT(edge.b, 210);
  const glm::vec3 grass = mean("grass"), brick = mean("brick"), roof = mean("roof"), door = mean("door"), bark = mean("bark"),
                  needles = mean("needles");
  EXPECT_GT(grass.g - grass.r, 50.0f);
  EXPECT_GT(grass.g - grass.b, 80.0f);
  EXPECT_GT(brick.r - brick.g, 60.0f);
  EXPECT_GT(roof.r - roof.g, 80.0f);
  EXPECT_GT(door.r - door.b, 60.0f);
  EXPECT_GT(bark.r - bark.b, 40.0f);
  EXPECT_GT(needles.g - needles.r, 40.0f);
  const glm::ivec3 mortar = at("brick", 0, 7), glass = at("window", 15, 15);
  EXPECT_NEAR(mortar.r, 206, 12);
  EXPECT_NEAR(mortar.g, 200, 12);
  EXPECT_NEAR(mortar.b, 188, 12);
  EXPECT_GT(glass.b, 200);
  EXPECT_LT(glass.r, 160);
  const glm::ivec3 band = at("post", 32, 16), white = at("post", 32, 40);
  EXPECT_GT(band.r, 180);
  EXPECT_LT(band.g, 60);
  EXPECT_GT(std::min({white.r, white.g, white.b}), 215);

  // The fields and the road face up; the house's front wall faces the road (-x) from x = 11 m.
  for (const char* flat : {"ground_p", "road_p"})
    for (const auto& t : world_triangles(*s, flat)) EXPECT_GT(facing(t).y, 0.999f) << flat;
  std::size_t front = 0;
  for (const auto& t : world_triangles(*s, "walls"))
    if (facing(t).x < -0.999f) {
      ++front;
      for (const glm::vec3& p : t) EXPECT_NEAR(p.x, 11.0f, 1e-4f);
    }
  EXPECT_EQ(front, 2u);
  // Each tree's trunk stands on its locator: B3D (x, y) is the scene's (x, -y).
  std::set<std::pair<int, int>> trunks;
  for (const scene::Section& sec : s->sections)
    for (const scene::Instance& in : sec.instances) {
      const scene::Mesh& m = s->meshes.at(in.mesh);
      if (m.name != "trunk") continue;
      glm::vec3 sum(0.0f);
      int n = 0;
      for (const glm::vec3& p : m.positions)
        if (std::abs(p.y) < 1e-6f) sum += glm::vec3(sec.origin) + in.offset + in.rotation * (in.scale * p), ++n;
      ASSERT_GT(n, 0);
      const glm::vec3 base = sum / static_cast<float>(n);
      EXPECT_NEAR(base.y, 0.0f, 1e-4f);
      trunks.emplace(static_cast<int>(std::lround(base.x)), static_cast<int>(std::lround(base.z)));
    }
  EXPECT_EQ(trunks, (std::set<std::pair<int, int>>{{-10, 13}, {-16, -5}, {-23, 6}, {-9, -20}, {21, 16}, {24, -19}}));

  // The format's writer gives the module's bytes back.
  const Writer* writer = find_format("b3d")->writer_for("copy.b3d");
  ASSERT_NE(writer, nullptr);
  auto written = writer->write(*doc, {});
  ASSERT_TRUE(written.ok()) << written.error().describe();
  EXPECT_TRUE(*written == folder.files()[0].bytes);
}

TEST(ExampleB3d, TheSecondGroupDrawsFarTreesAndLitWindows) {
  Dropped folder(b3d::example_files());
  auto doc = folder.open({{"group", "1"}});
  ASSERT_TRUE(doc.ok()) << doc.error().describe();
  auto s = (*doc)->scene();
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_TRUE((*doc)->warnings().empty());
  EXPECT_EQ(drawn(*s), (std::map<std::string, int>{{"crown_far", 6}, {"door", 1}, {"ground_p", 1}, {"post_p", 8}, {"road_p", 1},
                                                   {"roof", 1}, {"trunk_far", 6}, {"walls", 1}, {"windows_night", 1}}));
  std::size_t triangles = 0;
  for (const auto& [name, count] : drawn(*s)) triangles += world_triangles(*s, name).size();
  EXPECT_EQ(triangles, 214u);  // each far tree 16 triangles, not 32
  const auto lit = std::find_if(s->materials.begin(), s->materials.end(), [](const scene::Material& m) { return m.name == "window_lit"; });
  ASSERT_NE(lit, s->materials.end());
  ASSERT_NE(lit->texture, scene::kNoTexture);
  const scene::Texture& t = s->textures.at(lit->texture);
  const glm::ivec3 glass = pixel(t, t.levels.at(0), 15, 15);
  EXPECT_GT(glass.r, 240);
  EXPECT_LT(glass.b, 110);
  EXPECT_TRUE(std::none_of(s->materials.begin(), s->materials.end(), [](const scene::Material& m) { return m.name == "window"; }));
}

// ---- X-Ray ----

TEST(ExampleXray, TheObjectReadsCleanAndWritesBackByteForByte) {
  const auto files = xray::example_files();
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].path, "gamedata/objects/example/arm.object");
  EXPECT_EQ(files[1].path, "gamedata/textures/example/arm_base.dds");
  EXPECT_EQ(files[2].path, "gamedata/textures/example/arm_upper.dds");
  const auto again = xray::example_files();
  for (std::size_t k = 0; k < files.size(); ++k) EXPECT_TRUE(again[k].bytes == files[k].bytes) << files[k].path;

  auto f = xray::read_object(files[0].bytes);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  EXPECT_TRUE(f->warnings.empty()) << f->warnings.front().message;
  EXPECT_TRUE(xray::write_object(*f) == files[0].bytes);
  const xray::Object& o = f->object;
  EXPECT_EQ(o.version, 16);
  EXPECT_EQ(o.flags, 1u);  // dynamic
  EXPECT_TRUE(o.unknown_chunks.empty());
  EXPECT_EQ(o.creator, "sceneria");
  ASSERT_EQ(o.surfaces.size(), 2u);
  EXPECT_EQ(o.surface_chunk, 0x0907);
  EXPECT_EQ(o.surfaces[0].name, "base");
  EXPECT_EQ(o.surfaces[0].texture, "example\\arm_base");
  EXPECT_EQ(o.surfaces[1].name, "arm");
  EXPECT_EQ(o.surfaces[1].texture, "example\\arm_upper");
  EXPECT_EQ(o.surfaces[1].fvf, 0x112u);

  // One mesh of seven boxes: 8 points and 12 faces each, a vmref per face corner joining its UV
  // (the polymap "Texture") and its bone's weight.
  ASSERT_EQ(o.meshes.size(), 1u);
  const xray::Mesh& m = o.meshes[0];
  EXPECT_EQ(m.version, 17);
  EXPECT_EQ(m.name, "arm");
  EXPECT_EQ(m.points.size(), 56u);
  EXPECT_EQ(m.faces.size(), 84u);
  EXPECT_EQ(m.vmref_count(), 252u);
  EXPECT_EQ(m.vmref_pairs.size(), 504u);
  EXPECT_EQ(m.smoothing.size(), 84u);
  EXPECT_EQ(m.vmap_chunk, 0x1012);
  ASSERT_EQ(m.vmaps.size(), 3u);
  EXPECT_EQ(m.vmaps[0].name, "Texture");
  EXPECT_TRUE(m.vmaps[0].polymap);
  EXPECT_EQ(m.vmaps[0].size(), 252u);
  EXPECT_EQ(m.vmaps[0].faces.size(), 252u);
  EXPECT_EQ(m.vmaps[1].name, "root");
  EXPECT_EQ(m.vmaps[1].type, 1);
  EXPECT_EQ(m.vmaps[1].size(), 24u);  // pedestal, column, hinge
  EXPECT_EQ(m.vmaps[2].name, "forearm");
  EXPECT_EQ(m.vmaps[2].size(), 32u);  // upper arm, wrist, two fingers
  ASSERT_EQ(m.surfaces.size(), 2u);
  EXPECT_EQ(m.surfaces[0].faces.size(), 36u);
  EXPECT_EQ(m.surfaces[1].faces.size(), 48u);
  EXPECT_FLOAT_EQ(m.bbox[4], 2.2f);  // max y: the fingers' tips

  ASSERT_EQ(o.bones.size(), 2u);
  EXPECT_EQ(o.bone_chunk, 0x0921);
  EXPECT_EQ(o.bones[0].name, "root");
  EXPECT_EQ(o.bones[0].parent, "");
  EXPECT_EQ(o.bones[1].name, "forearm");
  EXPECT_EQ(o.bones[1].parent, "root");
  EXPECT_EQ(o.bones[1].weight_map, "forearm");
  EXPECT_EQ(o.bones[1].offset, (std::array<float, 3>{0, 0, 1}));
  EXPECT_FLOAT_EQ(o.bones[1].length, 1.2f);
  ASSERT_EQ(o.bone_parts.size(), 1u);
  EXPECT_EQ(o.bone_parts[0].bones, (std::vector<std::string>{"root", "forearm"}));

  ASSERT_EQ(o.motions.size(), 1u);
  const xray::Motion& wave = o.motions[0];
  EXPECT_EQ(wave.name, "wave");
  EXPECT_EQ(wave.version, 7);
  EXPECT_EQ(wave.frame_start, 0u);
  EXPECT_EQ(wave.frame_end, 60u);
  EXPECT_FLOAT_EQ(wave.fps, 30.0f);
  ASSERT_EQ(wave.bones.size(), 2u);
  EXPECT_EQ(wave.bones[1].name, "forearm");
  ASSERT_EQ(wave.bones[1].channels[3].keys.size(), 5u);  // its heading
  EXPECT_FLOAT_EQ(wave.bones[1].channels[3].keys[1].value, 0.7f);
  EXPECT_FLOAT_EQ(wave.bones[1].channels[3].keys[1].time, 0.5f);
  EXPECT_EQ(wave.bones[0].channels[5].keys.size(), 3u);  // the root's bank

  for (std::size_t k = 1; k < files.size(); ++k) {
    auto im = dds::read_image(files[k].bytes);
    ASSERT_TRUE(im.ok()) << im.error().describe();
    EXPECT_EQ(im->fourcc, "DXT1");
    EXPECT_EQ(im->width, 64u);
    EXPECT_EQ(im->height, 64u);
    EXPECT_EQ(im->levels.size(), 7u);  // 64 down to 1
  }
}

// A node's transform at frame `f` of an animation (its rest transform where the animation has
// no channel for it).
glm::mat4 posed(const scene::Scene& s, const scene::Animation& a, std::uint32_t node, std::size_t f) {
  const scene::Node& n = s.nodes.at(node);
  glm::vec3 t = n.translation;
  glm::quat r = n.rotation;
  for (const scene::Animation::Channel& c : a.channels) {
    if (c.node != node) continue;
    const glm::vec4 v = c.values.at(f);
    if (c.path == scene::Animation::Path::translation) t = glm::vec3(v);
    else r = glm::quat(v.w, v.x, v.y, v.z);
  }
  return glm::translate(glm::mat4(1.0f), t) * glm::mat4_cast(r);
}

TEST(ExampleXray, OpensFromItsFolderTexturedSkinnedAndAnimated) {
  Dropped folder(xray::example_files());
  auto opened = folder.open_clean();
  ASSERT_TRUE(opened.scene);
  const auto& s = opened.scene;
  const auto& doc = opened.doc;

  ASSERT_EQ(s->meshes.size(), 1u);
  const scene::Mesh& m = s->meshes[0];
  EXPECT_EQ(m.name, "arm");
  EXPECT_EQ(m.indices.size(), 252u);  // 84 triangles
  EXPECT_EQ(m.positions.size(), 252u);  // every corner its own vmref
  ASSERT_EQ(m.parts.size(), 2u);
  // Both surfaces wear their textures, found under gamedata/textures and kept as DXT1 blocks;
  // decoded, the base is orange and the arm blue.
  std::map<std::string, glm::vec3> colour;
  for (const scene::Part& part : m.parts) {
    const scene::Material& mat = s->materials.at(part.material);
    SCOPED_TRACE(mat.name);
    ASSERT_NE(mat.texture, scene::kNoTexture);
    const scene::Texture& t = s->textures.at(mat.texture);
    EXPECT_EQ(t.format, scene::Texture::Format::bc1);
    EXPECT_EQ(t.width, 64u);
    EXPECT_EQ(t.height, 64u);
    ASSERT_FALSE(t.levels.empty());
    const auto rgba = scene::decode_blocks(t.format, t.width, t.height, t.levels[0]);
    ASSERT_EQ(rgba.size(), 64u * 64u * 4u);
    colour[mat.name] = mean_rgb(rgba);
    EXPECT_EQ(part.count, mat.name == "base" ? 108u : 144u);
  }
  ASSERT_EQ(colour.size(), 2u);
  EXPECT_GT(colour["base"].r, 170.0f);
  EXPECT_GT(colour["base"].r - colour["base"].b, 100.0f);
  EXPECT_GT(colour["arm"].b, 160.0f);
  EXPECT_GT(colour["arm"].b - colour["arm"].r, 70.0f);

  // Faces wound so they face out: the pedestal's top (y = 0.25 outside the column) up, the
  // column's foot on it down, the pedestal's underside down.
  std::size_t tops = 0, feet = 0, bottoms = 0;
  for (std::size_t k = 0; k + 2 < m.indices.size(); k += 3) {
    const std::array<glm::vec3, 3> t{m.positions[m.indices[k]], m.positions[m.indices[k + 1]], m.positions[m.indices[k + 2]]};
    const glm::vec3 c = (t[0] + t[1] + t[2]) / 3.0f;
    if (std::abs(c.y - 0.25f) < 1e-6f) {
      const bool pedestal = std::max(std::abs(c.x), std::abs(c.z)) > 0.1f;
      EXPECT_NEAR(facing(t).y, pedestal ? 1.0f : -1.0f, 1e-5f);
      ++(pedestal ? tops : feet);
    }
    if (std::abs(c.y) < 1e-6f) {
      EXPECT_NEAR(facing(t).y, -1.0f, 1e-5f);
      ++bottoms;
    }
  }
  EXPECT_EQ(tops, 2u);
  EXPECT_EQ(feet, 2u);
  EXPECT_EQ(bottoms, 2u);

  // The skeleton: root at the floor, the forearm's head at the hinge, 1 m up.
  const auto node = [&](std::string_view name) {
    const auto it = std::find_if(s->nodes.begin(), s->nodes.end(), [&](const scene::Node& n) { return n.name == name; });
    return it == s->nodes.end() ? -1 : static_cast<int>(it - s->nodes.begin());
  };
  const int root = node("root"), forearm = node("forearm"), arm = node("arm");
  ASSERT_GE(root, 0);
  ASSERT_GE(forearm, 0);
  ASSERT_GE(arm, 0);
  EXPECT_EQ(s->nodes[static_cast<std::size_t>(forearm)].parent, root);
  EXPECT_EQ(s->nodes[static_cast<std::size_t>(arm)].skin, 0);
  ASSERT_EQ(s->skins.size(), 1u);
  const scene::Skin& skin = s->skins[0];
  ASSERT_EQ(skin.joints.size(), 2u);
  EXPECT_EQ(skin.joints[0], static_cast<std::uint32_t>(root));
  EXPECT_EQ(skin.joints[1], static_cast<std::uint32_t>(forearm));
  const glm::mat4 rest_forearm = posed(*s, {}, static_cast<std::uint32_t>(root), 0) * posed(*s, {}, static_cast<std::uint32_t>(forearm), 0);
  EXPECT_NEAR(glm::length(glm::vec3(rest_forearm[3]) - glm::vec3(0, 1, 0)), 0.0f, 1e-6f);
  // Every vertex wholly one bone's: above the hinge (y > 1.08) the forearm's, below it the root's.
  ASSERT_EQ(m.joints.size(), m.positions.size());
  ASSERT_EQ(m.weights.size(), m.positions.size());
  std::size_t on_forearm = 0;
  for (std::size_t v = 0; v < m.positions.size(); ++v) {
    EXPECT_EQ(m.weights[v], glm::vec4(1, 0, 0, 0)) << v;
    on_forearm += m.joints[v].x == 1;
    if (m.positions[v].y > 1.09f) {
      EXPECT_EQ(m.joints[v].x, 1) << v;
    } else if (m.positions[v].y < 1.07f) {
      EXPECT_EQ(m.joints[v].x, 0) << v;
    }
  }
  EXPECT_EQ(on_forearm, 144u);

  // The motion: 61 frames of both bones. The forearm's own turn is a rest pose at frame 0, 0.7
  // rad about y at frame 15 and back the other way at 45 (about -y in the scene, whose z is
  // X-Ray's mirrored).
  ASSERT_EQ(s->animations.size(), 1u);
  const scene::Animation& wave = s->animations[0];
  EXPECT_EQ(wave.name, "wave");
  ASSERT_EQ(wave.channels.size(), 4u);
  const scene::Animation::Channel* turn = nullptr;
  for (const auto& c : wave.channels) {
    EXPECT_EQ(c.times.size(), 61u);
    EXPECT_FLOAT_EQ(c.times.back(), 2.0f);
    if (c.node == static_cast<std::uint32_t>(forearm) && c.path == scene::Animation::Path::rotation) turn = &c;
  }
  ASSERT_NE(turn, nullptr);
  const auto sign = [](glm::vec4 q) { return q.w < 0 ? -q : q; };
  EXPECT_NEAR(glm::length(sign(turn->values[0]) - glm::vec4(0, 0, 0, 1)), 0.0f, 1e-5f);
  EXPECT_NEAR(glm::length(sign(turn->values[15]) - glm::vec4(0, -std::sin(0.35f), 0, std::cos(0.35f))), 0.0f, 1e-5f);
  EXPECT_NEAR(glm::length(sign(turn->values[45]) - glm::vec4(0, std::sin(0.35f), 0, std::cos(0.35f))), 0.0f, 1e-5f);
  // Skinned by those poses (joint world x inverse bind), the tip of the arm, 1.2 m above the
  // hinge: straight up at frame 0, swung 0.7 rad off the vertical at 15 (whichever way the
  // root has turned by then), straight again at 30, where the root has turned 0.6 rad: a
  // fingertip 0.2 m off the axis has gone round with it.
  const auto skinned = [&](std::size_t f, glm::vec3 p) {
    const glm::mat4 world = posed(*s, wave, static_cast<std::uint32_t>(root), f) * posed(*s, wave, static_cast<std::uint32_t>(forearm), f);
    return glm::vec3(world * skin.inverse_bind[1] * glm::vec4(p, 1.0f));
  };
  EXPECT_NEAR(glm::length(skinned(0, {0, 2.2f, 0}) - glm::vec3(0, 2.2f, 0)), 0.0f, 1e-5f);
  const glm::vec3 swung = skinned(15, {0, 2.2f, 0});
  EXPECT_NEAR(swung.y, 1.0f + 1.2f * std::cos(0.7f), 1e-5f);
  EXPECT_NEAR(std::hypot(swung.x, swung.z), 1.2f * std::sin(0.7f), 1e-5f);
  EXPECT_NEAR(glm::length(skinned(30, {0, 2.2f, 0}) - glm::vec3(0, 2.2f, 0)), 0.0f, 1e-5f);
  const glm::vec3 finger = skinned(30, {0.2f, 2.2f, 0});
  EXPECT_NEAR(finger.y, 2.2f, 1e-5f);
  EXPECT_NEAR(finger.x, 0.2f * std::cos(0.6f), 1e-5f);
  EXPECT_NEAR(std::abs(finger.z), 0.2f * std::sin(0.6f), 1e-5f);

  const Writer* writer = find_format("xray")->writer_for("copy.object");
  ASSERT_NE(writer, nullptr);
  auto written = writer->write(*doc, {});
  ASSERT_TRUE(written.ok()) << written.error().describe();
  EXPECT_TRUE(*written == folder.files()[0].bytes);
}

}  // namespace
}  // namespace sceneria
