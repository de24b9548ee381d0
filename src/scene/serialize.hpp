#pragma once
// The scene as one flat byte buffer: how the parse worker hands a scene to the page's renderer
// (a transferable ArrayBuffer, no per-object messages). Versioned; read with bounds checks.
#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "scene/scene.hpp"

namespace sceneria::scene {

std::vector<std::uint8_t> serialize(const Scene& scene);
Result<Scene> deserialize(std::span<const std::uint8_t> bytes);

}  // namespace sceneria::scene
