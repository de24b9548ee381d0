#pragma once
// The demo the page opens first: a double-track railway through a station, made by the core the
// way a game folder holds one — a text scenery (its models, trees and trainset in `.inc` files),
// E3D models written by our T3D converter and E3D writer, procedural DDS and PNG textures, the
// vehicles' .mmd/.fiz and skins — so it takes the same paths a user's files take. Nothing of the
// shared samples is in it.
#include <array>
#include <string>
#include <vector>

#include "formats/example.hpp"

namespace sceneria::demo {

// Every file of the railway under its game-folder path; the scenery first.
std::vector<ExampleFile> railway_files();
// One model of the railway as its T3D text ("station", "tree", "ep07", …) and the textures it
// names, beside it: the gallery's model examples.
std::vector<ExampleFile> railway_model_t3d(const std::string& name);
// The same model converted to E3D by the core, with the same textures.
std::vector<ExampleFile> railway_model_e3d(const std::string& name);
// Where the page's camera starts on the railway: orbit target x, y, z, distance, yaw, pitch.
std::array<double, 6> railway_view();

}  // namespace sceneria::demo
