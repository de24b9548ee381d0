#pragma once
// EU7B records -> the format-blind scene (notes §8-§9): tracks swept along their Bézier paths
// (control vectors relative to the ends, rails +0.18 m, roll), catenary with droppers, shapes and
// terrain triangles, lines, and every model (MODL and PACK, prototypes expanded) as an instance
// of a per-file proxy box until model files can be loaded.
#include <memory>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"
#include "formats/eu7b/vehicles.hpp"
#include "formats/maszyna/section_grid.hpp"
#include "scene/scene.hpp"

namespace sceneria::eu7b {

using maszyna::kSectionGrid;

// Object kinds and indices match RecordBrowser's lists, so a picked object's record can be asked
// for by (kind, index). Vehicles (DYNM) stand on their tracks as `vehicles` sizes them (nullptr:
// stand-in boxes), each a proxy whose file is its .mmd.
Result<scene::Scene> to_scene(const Module& module, const Vehicles* vehicles = nullptr);

// The same, in steps for streaming: the module without its PACK models first, then one scene
// delta per PACK section as it arrives (scene::merge_delta joins them), ids continuing throughout.
// How many leading strings SceneBuilder reads for a section (its models' file names, which name
// and colour the proxies): a streamed module must have loaded that many before building it.
std::uint32_t strings_needed(const PackSection& section, const PrototypeList* prototypes);

class SceneBuilder {
 public:
  // The module (and `vehicles`, if given) must outlive the builder.
  explicit SceneBuilder(const Module& module, const Vehicles* vehicles = nullptr);
  ~SceneBuilder();
  SceneBuilder(const SceneBuilder&) = delete;
  SceneBuilder& operator=(const SceneBuilder&) = delete;

  scene::Scene build(bool with_pack);
  // The chunks the module gained since (read_rest: traction, vehicles, events after PACK) as a
  // delta continuing the ids, whose instances the sections keep (scene::merge_delta).
  scene::Scene rest();
  // `first_index`: the section's first model in the document's pack_models numbering.
  scene::Scene pack_section(const PackSection& section, std::uint64_t first_index);

 private:
  struct Builder;
  std::unique_ptr<Builder> b_;
};

}  // namespace sceneria::eu7b
