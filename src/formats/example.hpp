#pragma once
// A file of a generated example (the page's demo and gallery): its path as a game's folder holds it,
// relative to the folder the user would drop, and its bytes.
#include <cstdint>
#include <string>
#include <vector>

namespace sceneria {

struct ExampleFile {
  std::string path;  // "scenery/demo.scn", "textures/demo/grass.dds"
  std::vector<std::uint8_t> bytes;
};

}  // namespace sceneria
