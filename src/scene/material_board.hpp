#pragma once
// A small scene that exercises every material feature the renderer has, for the end-to-end pixel
// checks and for trying a renderer change by eye (`sceneria.viewer.loadScene(materialBoard())` in
// the page's console): four 8 m boards in a row facing +Z, 20 m apart, centred on x = -30, -10,
// 10, 30 at y = 4, z = 0; and above each, at y = 16, the same board turned to face -Z.
//   x = -30: a 2x2 RGBA8 texture (red, green / blue, yellow), opaque, one-sided
//   x = -10: the same colours as BC1 blocks, opaque, two-sided
//   x =  10: a texture whose left half has alpha 0, masked at 0.5
//   x =  30: plain red at alpha 0.5, blended
// Seen from +Z, the turned one-sided boards (x = -30, 10, 30) show their backs and are culled;
// the two-sided one (x = -10) shows its texture mirrored.
#include "scene/scene.hpp"

namespace sceneria::scene {

Scene material_board();

}  // namespace sceneria::scene
