#pragma once
// A Hard Truck module made by code for the gallery: a roadside scene (a road between two fields, a
// brick house with a tiled roof, fir trees and road posts) whose trees and posts are placed by
// locators and link copies, with a LOD group (near/far trees) and a switch (day/lit windows), and
// the .res beside it holding its materials and TXR textures. Nothing in it comes from a game.
#include <vector>

#include "formats/example.hpp"

namespace sceneria::b3d {

// "example.b3d" (the file to open) and "example.res" beside it.
std::vector<ExampleFile> example_files();

}  // namespace sceneria::b3d
