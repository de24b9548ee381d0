// EU7B -> scene, the scene's serialized form, the frame planner's culling and the camera rig.
#include <gtest/gtest.h>

#include <cmath>

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/reader.hpp"
#include "formats/eu7b/to_scene.hpp"
#include "formats/eu7b/writer.hpp"
#include "render/camera_rig.hpp"
#include "render/frame_plan.hpp"
#include "scene/serialize.hpp"
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
  EXPECT_EQ(s->objects.size(), 87u + 115u + 62u);  // every track, wire and shape is pickable
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
  EXPECT_EQ(instances, 3000u + 3u + 3u + 2u + 1u);  // PACK + MODL + launchers + sounds + power
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
  ASSERT_GT(plan.instances.size(), 100u);
  EXPECT_LT(plan.sections.size(), s.sections.size());
  // Instances are grouped by mesh, each group where mesh_first/mesh_count say.
  std::uint32_t total = 0;
  for (std::size_t k = 0; k < s.meshes.size(); ++k) {
    EXPECT_EQ(plan.mesh_first[k], total);
    total += plan.mesh_count[k];
  }
  EXPECT_EQ(total, plan.instances.size());
  // Every drawn instance is within the model distance of the eye (translation is camera-relative).
  for (const InstanceGpu& g : plan.instances) {
    const glm::vec3 t(g.rows[0].w, g.rows[1].w, g.rows[2].w);
    EXPECT_LE(glm::length(t), 800.0f + 1.0f);
  }
  // Moving the model distance down draws fewer; the planner never looks at culled sections' models.
  FramePlan near_plan;
  plan_frame(prepared, cam.matrices(800, 600), {.draw_distance = 6000, .model_distance = 200}, near_plan);
  EXPECT_LT(near_plan.instances.size(), plan.instances.size());
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
  ASSERT_EQ(plan.instances.size(), 1u);
  const glm::vec3 t(plan.instances[0].rows[0].w, plan.instances[0].rows[1].w, plan.instances[0].rows[2].w);
  const glm::dvec3 expected = far_away - cam.eye();
  EXPECT_LT(glm::length(glm::vec3(far_away - sec.origin)), 1500.0f);  // stored near its section origin
  EXPECT_NEAR(t.x, expected.x, 0.001);
  EXPECT_NEAR(t.y, expected.y, 0.001);
  EXPECT_NEAR(t.z, expected.z, 0.001);
}

}  // namespace
}  // namespace sceneria
