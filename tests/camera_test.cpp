#include <gtest/gtest.h>

#include <glm/gtc/constants.hpp>

#include <glm/gtc/matrix_transform.hpp>

#include "render/camera.hpp"
#include "render/camera_rig.hpp"

namespace sceneria {
namespace {

TEST(OrbitCamera, TargetProjectsToTheWindowCentre) {
  OrbitCamera cam;
  cam.target = {5000.0, 12.0, -250000.0};  // far from the origin: camera-relative maths must hold
  glm::dvec2 p;
  ASSERT_TRUE(project_to_window(cam.matrices(800, 600), cam.target, 800, 600, p));
  EXPECT_NEAR(p.x, 400.0, 0.01);
  EXPECT_NEAR(p.y, 300.0, 0.01);
}

TEST(OrbitCamera, EyeIsAtDistanceAndAboveForPositivePitch) {
  OrbitCamera cam;
  cam.distance = 100.0;
  cam.yaw = 0.0;
  cam.pitch = glm::radians(30.0);
  const glm::dvec3 eye = cam.eye();
  EXPECT_NEAR(glm::length(eye - cam.target), 100.0, 1e-9);
  EXPECT_NEAR(eye.y, 50.0, 1e-9);
  EXPECT_NEAR(eye.x, 0.0, 1e-9);
  EXPECT_GT(eye.z, 0.0);  // yaw 0 looks along -Z, so the eye is on +Z
}

TEST(OrbitCamera, PitchAndZoomAreClamped) {
  OrbitCamera cam;
  cam.orbit(0.0, 1e6);
  EXPECT_LE(cam.pitch, glm::radians(89.0) + 1e-12);
  cam.orbit(0.0, -1e7);
  EXPECT_GE(cam.pitch, glm::radians(-89.0) - 1e-12);
  for (int i = 0; i < 500; ++i) cam.zoom(1.0);
  EXPECT_DOUBLE_EQ(cam.distance, 0.05);  // close enough for a cab's 3 cm knob (issue 35)
  for (int i = 0; i < 500; ++i) cam.zoom(-1.0);
  EXPECT_LE(cam.distance, 2.0e6);
}

TEST(OrbitCamera, PanMovesTargetInTheGroundPlane) {
  OrbitCamera cam;
  cam.yaw = 0.0;
  const double y = cam.target.y;
  cam.pan(-100.0, 0.0, 600.0);  // drag left: the target moves right (+X at yaw 0)
  EXPECT_GT(cam.target.x, 0.0);
  EXPECT_DOUBLE_EQ(cam.target.y, y);
}

TEST(OrbitCamera, PointsBehindTheEyeDoNotProject) {
  OrbitCamera cam;
  const CameraMatrices m = cam.matrices(640, 480);
  const glm::dvec3 behind = m.eye + (m.eye - cam.target);
  glm::dvec2 p;
  EXPECT_FALSE(project_to_window(m, behind, 640, 480, p));
}

}  // namespace
}  // namespace sceneria

// ---- framing (issue 35: opened models fill the view; "go to" comes close to small things) ----
namespace sceneria {
namespace {

// The largest |x| and |y| in normalised device coordinates of a box's corners as `cam` sees it.
glm::dvec2 ndc_reach(const OrbitCamera& cam, const glm::dvec3& lo, const glm::dvec3& hi, int w, int h) {
  glm::dvec2 reach(0.0);
  for (int corner = 0; corner < 8; ++corner) {
    const glm::dvec3 c((corner & 1) ? hi.x : lo.x, (corner & 2) ? hi.y : lo.y, (corner & 4) ? hi.z : lo.z);
    glm::dvec2 p;
    EXPECT_TRUE(project_to_window(cam.matrices(w, h), c, w, h, p));
    reach = glm::max(reach, glm::abs(glm::dvec2(p.x / w * 2 - 1, p.y / h * 2 - 1)));
  }
  return reach;
}

TEST(CameraRig, FrameFillsTheViewWithATenthToSpare) {
  // A cab's size, off the origin, in a wide view and a tall one.
  const glm::dvec3 lo(-1.2, 2.1, 5.9), hi(1.3, 3.6, 8.4);
  for (const auto [w, h] : {std::pair{980, 700}, std::pair{500, 700}}) {
    CameraRig rig;
    rig.frame(lo, hi, static_cast<double>(w) / h);
    const glm::dvec2 reach = ndc_reach(rig.orbit(), lo, hi, w, h);
    EXPECT_LE(std::max(reach.x, reach.y), 0.9 + 1e-4) << w << "x" << h;
    EXPECT_GE(std::max(reach.x, reach.y), 0.899) << w << "x" << h;  // the limiting side touches the margin
  }
}

TEST(CameraRig, FrameBallComesCloseToASmallObject) {
  CameraRig rig;
  rig.frame_ball({-1.18, 2.7, 7.94}, 0.015, 1.4);  // a 3 cm knob
  EXPECT_LT(rig.orbit().distance, 0.1);
  EXPECT_GT(rig.orbit().distance, 0.015);
  EXPECT_EQ(rig.orbit().target, glm::dvec3(-1.18, 2.7, 7.94));
  rig.frame_ball({0, 0, 0}, 100.0, 1.4);
  EXPECT_NEAR(rig.orbit().distance, 100.0 / std::sin(glm::radians(27.5)) / 0.9, 1e-6);
}

TEST(CameraRig, FlySpeedCrossesWhatIsShownInTwentySeconds) {
  EXPECT_DOUBLE_EQ(CameraRig::fly_speed_for(2000.0), 100.0);
  EXPECT_DOUBLE_EQ(CameraRig::fly_speed_for(4.0), 0.5);      // a cab: no slower than a slow walk
  EXPECT_DOUBLE_EQ(CameraRig::fly_speed_for(60000.0), 300.0);
}

TEST(CameraRig, FrameSceneFitsAModelsVerticesNotItsPartsBoxes) {
  // A rod along its box's diagonal, turned and placed off the origin: its box's far corners are
  // empty, so a fit to the box leaves the rod short of the margin.
  scene::Scene s;
  scene::Mesh m;
  m.positions = {{0, 0, 0}, {4, 3, 2}, {0.1f, 0, 0}};
  m.bounds_min = {0, 0, 0};
  m.bounds_max = {4, 3, 2};
  s.meshes.push_back(m);
  scene::add_instance(s, glm::translate(glm::dmat4(1.0), glm::dvec3(50, 1, -20)) * glm::rotate(glm::dmat4(1.0), 0.3, glm::dvec3(0, 1, 0)), 0);
  s.finish();
  const auto reach = [&](const CameraRig& rig) {
    double r = 0;
    for (const auto& sec : s.sections)
      for (const auto& i : sec.instances)
        for (const glm::vec3& p : s.meshes[i.mesh].positions) {
          const glm::dvec3 w = sec.origin + glm::dvec3(i.offset) + glm::dvec3(i.rotation * (p * i.scale));
          glm::dvec2 px;
          EXPECT_TRUE(project_to_window(rig.orbit().matrices(980, 700), w, 980, 700, px));
          r = std::max({r, std::abs(px.x / 980 * 2 - 1), std::abs(px.y / 700 * 2 - 1)});
        }
    return r;
  };
  CameraRig vertices, boxes;
  vertices.frame_scene(s, 980.0 / 700.0);
  boxes.frame_scene(s, 980.0 / 700.0, 0);  // over the vertex limit: the parts' boxes
  EXPECT_NEAR(reach(vertices), 0.9, 2e-3);
  EXPECT_LT(reach(boxes), 0.85);
  EXPECT_LT(vertices.orbit().distance, boxes.orbit().distance);
}

TEST(DrawnBounds, AreEachMeshBoxAsPlacedNotTheCullingPadding) {
  // A mesh whose vertices lie 6-8 m ahead of its own origin (a cab's parts), placed turned by
  // 90 degrees about +Y at x 100.
  scene::Scene s;
  scene::Mesh m;
  m.positions = {{-1, 2, 6}, {1, 3, 8}, {0, 2.5f, 7}};
  m.bounds_min = {-1, 2, 6};
  m.bounds_max = {1, 3, 8};
  s.meshes.push_back(m);
  glm::dmat4 world = glm::translate(glm::dmat4(1.0), glm::dvec3(100, 0, 0)) * glm::rotate(glm::dmat4(1.0), glm::half_pi<double>(), glm::dvec3(0, 1, 0));
  scene::add_instance(s, world, 0);
  s.finish();
  glm::dvec3 lo, hi;
  ASSERT_TRUE(drawn_bounds(s, lo, hi));
  // Rotating +90° about Y takes z to x: x 106..108, z -1..1.
  EXPECT_NEAR(lo.x, 106.0, 1e-4);
  EXPECT_NEAR(hi.x, 108.0, 1e-4);
  EXPECT_NEAR(lo.z, -1.0, 1e-4);
  EXPECT_NEAR(hi.z, 1.0, 1e-4);
  EXPECT_NEAR(lo.y, 2.0, 1e-4);
  EXPECT_NEAR(hi.y, 3.0, 1e-4);
  // The scene's own (culling) bounds are padded well beyond: what framing used before.
  EXPECT_GT(glm::length(s.bounds_max - s.bounds_min), 2.5 * glm::length(hi - lo));
  scene::Scene empty;
  EXPECT_FALSE(drawn_bounds(empty, lo, hi));
}

}  // namespace
}  // namespace sceneria
