#pragma once
// EU07's section grid, shared by everything MaSzyna places in the world: 1 km cells, the world
// origin 250 cells from the grid's corner (eu7b notes §31). A module's PACK sections, a compiled
// root's, the terrain batches of a text and the streamed view all cut by it.
#include "scene/scene.hpp"

namespace sceneria::maszyna {

inline constexpr scene::Grid kSectionGrid{1000.0, 250, 500};

}  // namespace sceneria::maszyna
