#pragma once
// The module the viewer opens on start, so a newcomer sees a loaded scenery at once. Generated
// by our own writer: no sample file is shipped with the page.
#include <cstdint>
#include <vector>

namespace sceneria::eu7b {

std::vector<std::uint8_t> demo_module();

}  // namespace sceneria::eu7b
