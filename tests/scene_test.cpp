// EU7B -> scene, the scene's serialized form, the frame planner's culling and the camera rig.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/pack.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "formats/eu7b/writer.hpp"
#include "render/camera_rig.hpp"
#include "render/frame_plan.hpp"
#include "scene/material_board.hpp"
#include "scene/serialize.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include "sample_files.hpp"

namespace sceneria {
namespace {

eu7b::Module decoded(const std::vector<std::uint8_t>& bytes) {
  MemorySource src(bytes, "t.eu7");
  return eu7b::read_module(src, {.load_pack = true, .decode_pack = true}).value();
}

TEST(Scene, TdV6BecomesTracksWiresAndShapesInSections) {
  SCENERIA_REQUIRE_SAMPLES();
  const auto m = decoded(test::read_file(test::samples_dir() / "maszyna/eu7/TD.v6.eu7"));
  auto s = eu7b::to_scene(m);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(s->objects.size(), 87u + 115u + 62u + 2u);  // every track, wire, shape and vehicle is pickable
  std::size_t switch_paths = 0;
  for (const auto& c : m.chunks)
    if (const auto* t = std::get_if<eu7b::RecordList<eu7b::Track>>(&c.data))
      for (const auto& r : t->records) switch_paths += r.category == 1 ? r.paths.size() : 0;
  EXPECT_EQ(s->tracks.size(), switch_paths);  // one drivable curve per rail path
  // The TD oval is a closed loop: nearly every curve end meets another.
  std::size_t connected = 0;
  for (const auto& c : s->tracks) connected += (c.next[0] >= 0) + (c.next[1] >= 0);
  EXPECT_GT(connected, s->tracks.size() * 2 - 10);
  // Geometry lands in the sections of the 1 km grid, relative to their origins.
  for (const auto& sec : s->sections) {
    EXPECT_DOUBLE_EQ(sec.origin.x, (sec.col - 250) * 1000.0);
    EXPECT_DOUBLE_EQ(sec.origin.z, (sec.row - 250) * 1000.0);
    // Section bounds (used for culling) enclose everything in the section.
    for (const auto& b : sec.batches)
      for (const auto& p : b.positions) {
        EXPECT_TRUE(p.x >= sec.bounds_min.x && p.x <= sec.bounds_max.x);
        EXPECT_TRUE(p.y >= sec.bounds_min.y && p.y <= sec.bounds_max.y);
        EXPECT_TRUE(p.z >= sec.bounds_min.z && p.z <= sec.bounds_max.z);
      }
  }
  // A track's anchor is its path midpoint, on the rails' line (y ~ p1.y).
  const auto& t0 = std::get<eu7b::RecordList<eu7b::Track>>(m.chunks[2].data).records[0];
  const auto& anchor = s->objects[0].anchor;
  EXPECT_NEAR(anchor.y, t0.paths[0].p1.y, 2.0);
}

TEST(Scene, SerializedSceneReadsBackTheSame) {
  const auto m = decoded(eu7b::write_module(*eu7b::generate_module({.models = 3000, .seed = 4})).value());
  auto s = eu7b::to_scene(m);
  ASSERT_TRUE(s.ok());
  const auto bytes = scene::serialize(*s);
  auto back = scene::deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(scene::serialize(*back), bytes);
  EXPECT_EQ(back->objects.size(), s->objects.size());
  std::size_t instances = 0;
  for (const auto& sec : back->sections) instances += sec.instances.size();
  EXPECT_EQ(instances, 3000u + 3u + 3u + 2u + 1u + 3u);  // PACK + MODL + launchers + sounds + power + vehicles
  // Truncated or bad bytes are errors, not crashes.
  for (std::size_t cut : {std::size_t{3}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_FALSE(scene::deserialize(std::span(bytes).first(cut)).ok());
}

TEST(FramePlan, CullsBySectionAndDistanceAndPacksByMesh) {
  const auto m = decoded(eu7b::write_module(*eu7b::generate_module({.models = 20000, .seed = 6})).value());
  const scene::Scene s = eu7b::to_scene(m).value();
  PreparedScene prepared;
  prepare(s, prepared);
  OrbitCamera cam;
  cam.target = {-500, 0, 1500};
  cam.distance = 300;
  FramePlan plan;
  plan_frame(prepared, cam.matrices(800, 600), {.draw_distance = 6000, .model_distance = 800}, plan);
  ASSERT_GT(plan.visible, 100u);
  EXPECT_LT(plan.sections.size(), s.sections.size());
  // Instances are grouped by mesh, each group where mesh_first/mesh_count say, in rooms laid end
  // to end with a quarter more than the count (8 slots at least) for a mesh drawn, none for others.
  std::uint32_t room_end = 0;
  std::size_t total = 0, last_end = 0;
  for (std::size_t k = 0; k < s.meshes.size(); ++k) {
    EXPECT_EQ(plan.mesh_first[k], room_end);
    const std::uint32_t n = plan.mesh_count[k];
    EXPECT_EQ(plan.mesh_room[k], n ? n + n / 4 + 8 : 0) << k;
    room_end += plan.mesh_room[k];
    total += n;
    if (n) last_end = std::size_t{plan.mesh_first[k]} + n;
  }
  EXPECT_EQ(plan.used_end, last_end);  // the upload: up to the last mesh's last instance
  EXPECT_EQ(total, plan.visible);
  EXPECT_EQ(room_end, plan.instances.size());
  EXPECT_EQ(plan.layouts, 1u);
  // Every drawn instance is within the model distance of the eye (translation is camera-relative).
  for (std::size_t k = 0; k < s.meshes.size(); ++k)
    for (std::uint32_t i = 0; i < plan.mesh_count[k]; ++i) {
      const InstanceGpu& g = plan.instances[plan.mesh_first[k] + i];
      const glm::vec3 t(g.rows[0].w, g.rows[1].w, g.rows[2].w);
      EXPECT_LE(glm::length(t), 800.0f + 1.0f);
    }
  // Moving the model distance down draws fewer; the planner never looks at culled sections' models.
  FramePlan near_plan;
  plan_frame(prepared, cam.matrices(800, 600), {.draw_distance = 6000, .model_distance = 200}, near_plan);
  EXPECT_LT(near_plan.visible, plan.visible);
}

namespace {
// Per mesh, the object ids of its drawn instances, sorted: what a plan draws, wherever it keeps it.
std::vector<std::vector<std::uint32_t>> drawn(const FramePlan& plan) {
  std::vector<std::vector<std::uint32_t>> out(plan.mesh_count.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    EXPECT_LE(plan.mesh_count[k], plan.mesh_room[k]);
    if (plan.mesh_count[k]) EXPECT_LE(std::size_t{plan.mesh_first[k]} + plan.mesh_count[k], plan.used_end);
    for (std::uint32_t i = 0; i < plan.mesh_count[k]; ++i) out[k].push_back(plan.instances[plan.mesh_first[k] + i].object);
    std::sort(out[k].begin(), out[k].end());
  }
  return out;
}
}  // namespace

// A renderer points each mesh's instance attributes at its room, so the rooms stay put while a
// moving camera's counts fit in them; the frame drawn is the one a fresh plan draws, every time.
TEST(FramePlan, RoomsStayWhereTheyAreWhileTheInstancesFit) {
  const auto m = decoded(eu7b::write_module(*eu7b::generate_module({.models = 20000, .seed = 6})).value());
  const scene::Scene s = eu7b::to_scene(m).value();
  PreparedScene prepared;
  prepare(s, prepared);
  const PlanSettings settings{.draw_distance = 6000, .model_distance = 400};
  OrbitCamera cam;
  cam.target = {-500, 0, 1500};
  cam.distance = 300;
  FramePlan plan;
  plan_frame(prepared, cam.matrices(800, 600), settings, plan);
  ASSERT_GT(plan.visible, 100u);
  const std::vector<std::uint32_t> first = plan.mesh_first;
  // A few metres a frame: counts change, rooms do not.
  bool counts_changed = false;
  for (int step = 1; step <= 10; ++step) {
    const std::vector<std::uint32_t> before = plan.mesh_count;
    cam.target.x += 2.0;
    plan_frame(prepared, cam.matrices(800, 600), settings, plan);
    FramePlan fresh;
    plan_frame(prepared, cam.matrices(800, 600), settings, fresh);
    EXPECT_EQ(drawn(plan), drawn(fresh)) << "step " << step;
    counts_changed |= plan.mesh_count != before;
  }
  EXPECT_TRUE(counts_changed);  // else this test would not have moved anything
  EXPECT_EQ(plan.layouts, 1u);
  EXPECT_EQ(plan.mesh_first, first);
  // Drawn further, the counts outgrow their rooms: laid out anew, and still what a fresh plan draws.
  const PlanSettings further{.draw_distance = 6000, .model_distance = 2500};
  plan_frame(prepared, cam.matrices(800, 600), further, plan);
  FramePlan fresh;
  plan_frame(prepared, cam.matrices(800, 600), further, fresh);
  EXPECT_EQ(plan.layouts, 2u);
  EXPECT_EQ(drawn(plan), drawn(fresh));
  EXPECT_EQ(plan.mesh_first, fresh.mesh_first);
  // Drawing (next to) nothing, rooms far larger than the draw are given back: the upload would
  // carry mostly gaps.
  ASSERT_GT(plan.visible, 4096u);
  plan_frame(prepared, cam.matrices(800, 600), {.draw_distance = 6000, .model_distance = 1}, plan);
  EXPECT_EQ(plan.layouts, 3u);
  EXPECT_EQ(plan.visible, 0u);
  EXPECT_EQ(plan.instances.size(), 0u);
}

TEST(CameraRig, DriveFollowsConnectedCurvesAtItsSpeed) {
  scene::Scene s;
  // Two straight 100 m curves along +Z, the second entered at its end (it points back).
  scene::TrackCurve a, b;
  a.p[0] = {0, 0, 0}; a.p[1] = {0, 0, 33}; a.p[2] = {0, 0, 66}; a.p[3] = {0, 0, 100};
  b.p[0] = {0, 0, 200}; b.p[1] = {0, 0, 166}; b.p[2] = {0, 0, 133}; b.p[3] = {0, 0, 100};
  a.length = b.length = 100;
  a.next[1] = 1; a.next_end[1] = 1;
  b.next[1] = 0; b.next_end[1] = 1;
  s.tracks = {a, b};
  CameraRig rig;
  ASSERT_TRUE(rig.drive(s, 0));
  EXPECT_NEAR(rig.eye().z, 0.0, 1e-6);
  rig.update(2.5, {});  // 20 m/s
  EXPECT_NEAR(rig.eye().z, 50.0, 0.5);
  rig.update(5.0, {});  // crosses onto curve 1 and keeps going the same way
  EXPECT_EQ(rig.drive_curve(), 1);
  EXPECT_NEAR(rig.eye().z, 150.0, 0.5);
  EXPECT_GT(rig.forward().z, 0.9);
  rig.update(10.0, {});  // runs off the dead end at z = 200 and stops
  EXPECT_NEAR(rig.eye().z, 200.0, 0.5);
  EXPECT_EQ(rig.drive_speed(), 0.0);
}

// A straight 100 m curve whose control points are bunched at its start: its t runs slowly there
// and fast at its end. The ride still covers 20 m each second, wherever it is on the curve.
TEST(CameraRig, DriveKeepsItsSpeedWhereACurvesParameterIsUneven) {
  scene::Scene s;
  scene::TrackCurve a;
  a.p[0] = {0, 0, 0}; a.p[1] = {0, 0, 1}; a.p[2] = {0, 0, 2}; a.p[3] = {0, 0, 100};
  a.length = 100;
  s.tracks = {a};
  CameraRig rig;
  ASSERT_TRUE(rig.drive(s, 0));
  double z = rig.eye().z;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 10; ++k) rig.update(0.1, {});
    EXPECT_NEAR(rig.eye().z - z, 20.0, 0.05) << "second " << i;
    z = rig.eye().z;
  }
}

TEST(CameraRig, FlyMovesAlongTheViewAndModesKeepTheEye) {
  CameraRig rig;
  rig.orbit().target = {100, 0, 100};
  const glm::dvec3 eye = rig.eye();
  rig.set_mode(CameraMode::fly);
  EXPECT_NEAR(glm::length(rig.eye() - eye), 0.0, 1e-9);
  const glm::dvec3 f = rig.forward();
  MoveInput in;
  in.forward = true;
  rig.update(1.0, in);  // 40 m/s
  EXPECT_NEAR(glm::length(rig.eye() - (eye + f * 40.0)), 0.0, 1e-6);
}

}  // namespace
}  // namespace sceneria

namespace sceneria {
namespace {

// At the edge of the 500 km EU07 grid, camera-relative planning keeps centimetres: an instance 10 m in
// front of the eye is 10 m away in the packed buffer, not 10 m plus float rounding of 250 km.
TEST(FramePlan, PrecisionHoldsAtTheEdgeOfTheGrid) {
  scene::Scene s;
  s.meshes.push_back({});
  s.meshes[0].positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  s.meshes[0].indices = {0, 1, 2};
  const glm::dvec3 far_away(249'000.123, 12.0, -249'000.456);
  scene::Section& sec = s.section_at(far_away);
  sec.instances.push_back({glm::vec3(far_away - sec.origin), {}, glm::vec3(1.0f), 0, 0.0f, 1e30f, 0});
  s.finish();
  PreparedScene prepared;
  prepare(s, prepared);
  OrbitCamera cam;
  cam.target = far_away;
  cam.distance = 10.0;
  FramePlan plan;
  plan_frame(prepared, cam.matrices(640, 480), {}, plan);
  ASSERT_EQ(plan.visible, 1u);
  const glm::vec3 t(plan.instances[0].rows[0].w, plan.instances[0].rows[1].w, plan.instances[0].rows[2].w);
  const glm::dvec3 expected = far_away - cam.eye();
  EXPECT_LT(glm::length(glm::vec3(far_away - sec.origin)), 1500.0f);  // stored near its section origin
  EXPECT_NEAR(t.x, expected.x, 0.001);
  EXPECT_NEAR(t.y, expected.y, 0.001);
  EXPECT_NEAR(t.z, expected.z, 0.001);
}

}  // namespace
}  // namespace sceneria

namespace sceneria {
namespace {

TEST(SceneModel, MaterialsTexturesPartsNodesAndTheGridSurviveSerialization) {
  scene::Scene s = scene::material_board();
  s.grid = {500.0, 40, 80};
  s.nodes.push_back({"root", -1, {1, 2, 3}, glm::angleAxis(0.5f, glm::vec3(0, 1, 0)), {2, 2, 2}, -1});
  s.nodes.push_back({"child", 0, {0, 1, 0}, glm::quat(1, 0, 0, 0), {1, 1, 1}, 2});
  const auto bytes = scene::serialize(s);
  auto back = scene::deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->grid, s.grid);
  ASSERT_EQ(back->textures.size(), 3u);
  EXPECT_EQ(back->textures[1].format, scene::Texture::Format::bc1);
  EXPECT_EQ(back->textures[1].levels, s.textures[1].levels);
  ASSERT_EQ(back->materials.size(), s.materials.size());
  for (std::size_t i = 0; i < s.materials.size(); ++i) EXPECT_EQ(back->materials[i], s.materials[i]) << i;
  EXPECT_EQ(back->materials[4].alpha, scene::Material::Alpha::blend);
  EXPECT_TRUE(back->materials[2].two_sided);
  ASSERT_EQ(back->meshes.size(), 4u);
  EXPECT_EQ(back->meshes[0].uvs, s.meshes[0].uvs);
  EXPECT_EQ(back->meshes[3].parts[0].material, s.meshes[3].parts[0].material);
  ASSERT_EQ(back->nodes.size(), 2u);
  EXPECT_EQ(back->nodes[1].parent, 0);
  EXPECT_EQ(back->nodes[1].mesh, 2);
  EXPECT_FLOAT_EQ(back->nodes[0].rotation.y, s.nodes[0].rotation.y);
  EXPECT_EQ(back->sections[0].instances[1].rotation, s.sections[0].instances[1].rotation);

  // Hostile forms: a part past the indices, a node whose parent comes after it.
  auto bad_part = s;
  bad_part.meshes[0].parts[0].count = 7;
  EXPECT_FALSE(scene::deserialize(scene::serialize(bad_part)).ok());
  auto bad_node = s;
  bad_node.nodes[0].parent = 1;
  EXPECT_FALSE(scene::deserialize(scene::serialize(bad_node)).ok());
  auto bad_texture = s;
  bad_texture.textures[0].levels[0].resize(3);
  EXPECT_FALSE(scene::deserialize(scene::serialize(bad_texture)).ok());
  for (std::size_t cut = 4; cut < bytes.size(); cut += 97)
    EXPECT_FALSE(scene::deserialize(std::span(bytes).first(cut)).ok()) << cut;
}

TEST(SceneModel, BlockCompressedTexturesDecode) {
  // BC1, c0 = pure red (0xF800) > c1 = pure blue (0x001F): indices 0, 1, 2 (2/3 red), 3 (1/3 red).
  const std::vector<std::uint8_t> bc1 = {0x00, 0xF8, 0x1F, 0x00, 0b11100100, 0, 0, 0};
  const auto px = scene::decode_blocks(scene::Texture::Format::bc1, 4, 4, bc1);
  ASSERT_EQ(px.size(), 64u);
  EXPECT_EQ(std::vector<std::uint8_t>(px.begin(), px.begin() + 16),
            (std::vector<std::uint8_t>{255, 0, 0, 255, 0, 0, 255, 255, 170, 0, 85, 255, 85, 0, 170, 255}));
  // BC1 with c0 <= c1: index 3 is transparent black.
  const std::vector<std::uint8_t> punch = {0x1F, 0x00, 0x00, 0xF8, 0xFF, 0, 0, 0};
  const auto p2 = scene::decode_blocks(scene::Texture::Format::bc1, 4, 4, punch);
  EXPECT_EQ(p2[3], 0);   // pixel 0, index 3: alpha 0
  EXPECT_EQ(p2[19], 255);  // pixel 4, index 0: opaque
  // BC3: alpha endpoints 255 and 0, pixel 0 index 1 (0), the rest index 0 (255); colour white.
  std::vector<std::uint8_t> bc3 = {255, 0, 0b001, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  const auto p3 = scene::decode_blocks(scene::Texture::Format::bc3, 4, 4, bc3);
  EXPECT_EQ(p3[3], 0);
  EXPECT_EQ(p3[7], 255);
  EXPECT_EQ(p3[4], 255);
  // Too few blocks for the size: nothing, never a read past the end.
  EXPECT_TRUE(scene::decode_blocks(scene::Texture::Format::bc1, 8, 8, bc1).empty());
}

TEST(SceneModel, DeltasBringTheirMaterialsUnderNewIds) {
  scene::Scene base = scene::material_board();
  const auto materials = base.materials.size();
  scene::Scene delta;
  delta.mesh_base = static_cast<std::uint32_t>(base.meshes.size());
  delta.object_base = static_cast<std::uint32_t>(base.objects.size());
  scene::Material red;
  red.color = scene::rgba(1, 0, 0);
  red.texture = delta.add_texture("red.dds");
  delta.add_material({});
  const std::uint32_t m = delta.add_material(red);
  delta.meshes.push_back(scene::box_mesh("box", glm::vec3(-1), glm::vec3(1), m));
  scene::Section& sec = delta.section_at({100, 0, 100});
  sec.instances.push_back({{1, 0, 1}, glm::quat(1, 0, 0, 0), glm::vec3(1), delta.mesh_base, 0, 1e30f, scene::kNoObject});
  ASSERT_TRUE(scene::merge_delta(base, std::move(delta)).ok());
  const scene::Part& part = base.meshes.back().parts.at(0);
  EXPECT_EQ(part.material, materials + 1);
  EXPECT_EQ(base.materials[part.material].color, scene::rgba(1, 0, 0));
  EXPECT_EQ(base.textures[base.materials[part.material].texture].name, "red.dds");
}

// A streamed section's instances come and go with it; a delta that keeps its instances (records
// read after the first sections: vehicles, markers) adds them to what the sections hold, in as
// many sections as it reaches, and they stay when the streamed ones are dropped.
TEST(SceneModel, ADeltaThatKeepsItsInstancesOutlivesTheStreamedOnes) {
  scene::Scene base;
  base.add_material({});
  base.meshes.push_back(scene::box_mesh("box", glm::vec3(-1), glm::vec3(1), 0));
  base.section_at({500, 0, 500}).instances.push_back({{1, 0, 1}, glm::quat(1, 0, 0, 0), glm::vec3(1), 0, 0, 1e30f, scene::kNoObject});
  base.finish();
  auto instance = [](float x) { return scene::Instance{{x, 0, 1}, glm::quat(1, 0, 0, 0), glm::vec3(1), 0, 0, 1e30f, scene::kNoObject}; };
  auto continuing = [&base] {
    scene::Scene d;
    d.mesh_base = static_cast<std::uint32_t>(base.meshes.size());
    d.object_base = static_cast<std::uint32_t>(base.objects.size());
    return d;
  };
  scene::Scene streamed = continuing();
  streamed.section_at({500, 0, 500}).instances = {instance(2), instance(3)};
  ASSERT_TRUE(scene::merge_delta(base, std::move(streamed)).ok());
  ASSERT_EQ(base.sections.at(0).instances.size(), 3u);

  scene::Scene kept = continuing();
  kept.keeps_instances = true;
  kept.section_at({500, 0, 500}).instances = {instance(4)};
  kept.section_at({2500, 0, 500}).instances = {instance(5), instance(6)};
  kept.finish();
  auto wire = scene::deserialize(scene::serialize(kept));
  ASSERT_TRUE(wire.ok()) << wire.error().describe();
  ASSERT_TRUE(wire->keeps_instances);
  auto changed = scene::merge_delta(base, std::move(wire).value());
  ASSERT_TRUE(changed.ok()) << changed.error().describe();
  ASSERT_EQ(changed->size(), 2u);
  const scene::Section& first = base.sections.at(0);
  ASSERT_EQ(first.instances.size(), 4u);
  EXPECT_EQ(first.static_instances, 2u);
  EXPECT_EQ(first.instances[1].offset.x, 4.0f);  // with the section's own, before the streamed
  EXPECT_EQ(first.instances[2].offset.x, 2.0f);
  const scene::Section& second = base.sections.at(changed->at(1));
  EXPECT_EQ(second.instances.size(), 2u);
  EXPECT_EQ(second.static_instances, 2u);
  ASSERT_EQ(scene::drop_streamed(base, first.row, first.col), 0);
  ASSERT_EQ(base.sections.at(0).instances.size(), 2u);
  EXPECT_EQ(base.sections.at(0).instances[1].offset.x, 4.0f);
  // The section streams in again: its streamed instances are replaced, the kept ones stay.
  scene::Scene again = continuing();
  again.section_at({500, 0, 500}).instances = {instance(7)};
  ASSERT_TRUE(scene::merge_delta(base, std::move(again)).ok());
  ASSERT_EQ(base.sections.at(0).instances.size(), 3u);
  EXPECT_EQ(base.sections.at(0).instances[2].offset.x, 7.0f);
}

// EU07 turns a model about Y, then X, then Z (degrees): every PACK model's instance carries that
// rotation as its quaternion, compared here with the engine's matrix chain.
TEST(SceneModel, MaSzynaRotationOrderBecomesTheInstanceQuaternion) {
  eu7b::Module m = eu7b::generate_module({.models = 500, .seed = 2}).value();
  // The generator turns models about Y only; tilt some solo models too, so the order matters.
  std::size_t tilted = 0;
  for (auto& c : m.chunks)
    if (auto* pack = std::get_if<eu7b::PackChunk>(&c.data))
      for (auto& sec : pack->sections)
        for (auto& model : sec.solo.models)
          if (tilted++ % 3 == 0) model.angles.x = 20.0f + static_cast<float>(tilted % 7), model.angles.z = -15.0f;
  const auto s = eu7b::to_scene(m).value();
  std::vector<eu7b::Vec3f> angles;  // in the pack_models numbering
  for (const auto& sec : m.pack()->sections)
    for (const auto& e : eu7b::expand_section(sec, m.prototypes())) angles.push_back(e.angles);
  std::size_t checked = 0, turned = 0;
  for (const auto& sec : s.sections)
    for (const auto& i : sec.instances) {
      const scene::Object& o = s.objects.at(i.object);
      if (s.kinds[o.kind] != "pack_models") continue;
      const eu7b::Vec3f a = angles.at(o.index);
      glm::mat4 r(1.0f);
      r = glm::rotate(r, glm::radians(a.y), glm::vec3(0, 1, 0));
      r = glm::rotate(r, glm::radians(a.x), glm::vec3(1, 0, 0));
      r = glm::rotate(r, glm::radians(a.z), glm::vec3(0, 0, 1));
      const glm::mat3 want(r), got = glm::mat3_cast(i.rotation);
      for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) ASSERT_NEAR(got[c][k], want[c][k], 1e-5f) << o.index;
      turned += a.x != 0 || a.z != 0;
      ++checked;
    }
  EXPECT_EQ(checked, angles.size());
  EXPECT_GT(turned, 0u) << "the generator tilts some models, so the order matters";
}

}  // namespace
}  // namespace sceneria

namespace sceneria {
namespace {

// Found by format_eu7b_fuzzer: a model at 1e30 m (or NaN) made the grid cell, and a track that
// long its piece count, an out-of-range float-to-int conversion (UB). Every coordinate now lands in
// some cell and every piece count is bounded.
TEST(FuzzRegression, HugeAndNanCoordinatesLandInACell) {
  eu7b::Module m = eu7b::generate_module({.models = 50, .seed = 3}).value();
  int changed = 0;
  for (auto& c : m.chunks)
    if (auto* pack = std::get_if<eu7b::PackChunk>(&c.data))
      for (auto& sec : pack->sections)
        for (auto& model : sec.solo.models) {
          if (changed == 0) model.location.x = 1e30f;
          if (changed == 1) model.location.z = std::numeric_limits<float>::quiet_NaN();
          if (changed == 2) model.location.x = -std::numeric_limits<float>::infinity();
          ++changed;
        }
  ASSERT_GE(changed, 3);
  // A track 1e30 m long (and one with NaN ends): a bounded number of pieces, not a billion.
  int tracks = 0;
  for (auto& c : m.chunks)
    if (auto* list = std::get_if<eu7b::RecordList<eu7b::Track>>(&c.data))
      for (auto& t : list->records)
        if (!t.paths.empty() && tracks < 2) t.paths[0].p2.x = tracks++ == 0 ? 1e30f : std::numeric_limits<float>::quiet_NaN();
  ASSERT_EQ(tracks, 2);
  auto s = eu7b::to_scene(m);
  ASSERT_TRUE(s.ok());
  for (const auto& sec : s->sections) {
    EXPECT_GE(sec.row, 0);
    EXPECT_LT(sec.row, s->grid.cells);
    EXPECT_GE(sec.col, 0);
    EXPECT_LT(sec.col, s->grid.cells);
  }
  const scene::Grid g;
  EXPECT_EQ(g.row_of(std::numeric_limits<double>::quiet_NaN()), std::numeric_limits<int>::min());
  EXPECT_EQ(g.col_of(1e300), 2'000'000'000);
}

}  // namespace
}  // namespace sceneria
