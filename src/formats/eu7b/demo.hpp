#pragma once
// The module the viewer opens on start, so a newcomer sees a loaded file at once. Written by our
// own writer (no sample file is shipped); the generator issue replaces it with a real scenery.
#include <cstdint>
#include <vector>

namespace sceneria::eu7b {

std::vector<std::uint8_t> demo_module();

}  // namespace sceneria::eu7b
