#include "formats/eu7b/demo.hpp"

#include "formats/eu7b/generator.hpp"
#include "formats/eu7b/writer.hpp"

namespace sceneria::eu7b {

std::vector<std::uint8_t> demo_module() {
  // A small generated scenery: every chunk kind, a few thousand models over several sections.
  auto module = generate_module({.models = 5000, .seed = 2026});
  if (!module) return {};
  auto bytes = write_module(*module);
  return bytes ? std::move(bytes).value() : std::vector<std::uint8_t>{};
}

}  // namespace sceneria::eu7b
