#pragma once
// An X-Ray SDK object made by code for the gallery: a small robot arm (a pedestal, a column and a
// hinge on the root bone; an upper arm, a wrist and two fingers on the forearm bone), skinned by
// weight maps, with one motion that swings the forearm and turns the arm about its column, and its
// two surfaces' DXT1 textures where the game keeps them. Nothing in it comes from a game.
#include <vector>

#include "formats/example.hpp"

namespace sceneria::xray {

// "gamedata/objects/example/arm.object" (the file to open), then its textures under
// "gamedata/textures/example/".
std::vector<ExampleFile> example_files();

}  // namespace sceneria::xray
