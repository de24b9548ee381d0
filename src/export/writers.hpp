#pragma once
// The scene exports as the registry's writers: every format whose documents make a scene can be
// written as .glb, .gltf and .obj (registry/registry.cpp adds these to the own writers of each format that draws).
#include <vector>

#include "formats/format.hpp"

namespace sceneria::exports {

std::vector<Writer> scene_writers();
// A format with the scene exports after its own writers.
Format with_scene_writers(Format format);

}  // namespace sceneria::exports
