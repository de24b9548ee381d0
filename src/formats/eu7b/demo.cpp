#include "formats/eu7b/demo.hpp"

#include "formats/eu7b/writer.hpp"

namespace sceneria::eu7b {

std::vector<std::uint8_t> demo_module() {
  StringTable strings;
  for (const char* s : {"sceneria demo module", "written by sceneria's own EU7B writer",
                        "drop a .eu7 file anywhere on the page", "or use Open file",
                        "drag to orbit, shift-drag to pan, wheel to zoom"})
    strings.push_back(s);
  const std::vector<std::uint8_t> empty_list = {0, 0, 0, 0};  // u32 count 0
  const RawChunk chunks[] = {{chunk::STRS, encode_strings(strings)},
                             {chunk::INCL, empty_list},
                             {chunk::TRAK, empty_list},
                             {chunk::MESH, empty_list}};
  return write_container(6, chunks);
}

}  // namespace sceneria::eu7b
