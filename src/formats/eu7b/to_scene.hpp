#pragma once
// EU7B records -> the format-blind scene (notes §8-§9): tracks swept along their Bézier paths
// (control vectors relative to the ends, rails +0.18 m, roll), catenary with droppers, shapes and
// terrain triangles, lines, and every model (MODL and PACK, prototypes expanded) as an instance
// of a per-file proxy box until model files can be loaded.
#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "scene/scene.hpp"

namespace sceneria::eu7b {

// Object kinds and indices match RecordBrowser's lists, so a picked object's record can be asked
// for by (kind, index).
Result<scene::Scene> to_scene(const Module& module);

}  // namespace sceneria::eu7b
