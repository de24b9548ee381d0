#include <gtest/gtest.h>

#include <glm/gtc/constants.hpp>

#include "render/camera.hpp"

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
  EXPECT_GE(cam.distance, 1.0);
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
