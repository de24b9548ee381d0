#pragma once
// Which models the reference writer puts in the PACK of a scenery root (EU7B version 9), in what
// order and where: the tip writer's compose (eu07-parser scene/bake/compose_pack_models.hpp and
// bake_tree.hpp), rule by rule in docs/eu7b-root-pack.md. In short: the models of every `.inc`
// the root reaches, through `.inc` chains and through child modules at any depth, each placed by
// its include's parameters, origin/rotate/scale where it was included and the `.inc`'s own
// `origin (pN)`/`rotate 0 (pN) 0`; a child module's own models stay in its own module; the
// root's own models only when it holds nothing else.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "formats/scenery/interpret.hpp"
#include "io/assets.hpp"

namespace sceneria::scenery {

struct RootPackOptions {
  // The root's path under the scenery folder `files` stands for ("td.scn", "sub/a.scn"): includes
  // without a `/` are looked up beside it, those with one from the scenery folder.
  std::string root_path;
  AssetResolver* files = nullptr;  // the scenery folder; nullptr: no include is found
  std::vector<std::string>* warnings = nullptr;
  std::vector<std::string>* missing = nullptr;  // the included files not found, each once
  // How far the reading is: bytes read of the files found so far, and those files' bytes in all
  // (which grows as includes are found, so the share may step back; callers keep their maximum).
  std::function<void(std::uint64_t done, std::uint64_t known)> progress = {};
  // How many of the `.inc` files a file includes are read ahead on a second thread while the ones
  // before them are placed (0: no thread, each read when its turn comes). The result is the same.
  std::size_t read_ahead = 0;
};

// The root's PACK models in the order the writer hands them to its PACK builder (it keeps that
// order inside each 1 km section before sorting, and numbers prototypes by it). An error where
// the writer's own bake fails (a child module over 4 MiB that is not flat).
Result<PackModels> compose_root_pack(std::span<const std::uint8_t> root_text, const RootPackOptions& options);

}  // namespace sceneria::scenery
