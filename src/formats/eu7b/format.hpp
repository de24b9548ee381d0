#pragma once
// EU7B's entry in the format registry (formats/registry.cpp): probe, open, open_remote, writers,
// demo and generator, all behind the format-blind interfaces.
#include "formats/registry.hpp"

namespace sceneria::eu7b {

const Format& format();

// The files a model name may be, relative to the game root, in the engine's order (notes B6):
// lower case, extension dropped, `<name>.e3d`, `models/<name>.e3d`, `<name>.t3d`, `models/<name>.t3d`.
std::vector<std::string> model_candidates(std::string_view name);

}  // namespace sceneria::eu7b
