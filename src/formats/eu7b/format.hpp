#pragma once
// EU7B's entry in the format registry (formats/catalog.cpp): probe, open, open_remote, writers,
// demo and generator, all behind the format-blind interfaces.
#include <set>

#include "formats/eu7b/eu7b.hpp"
#include "formats/format.hpp"

namespace sceneria::eu7b {

const Format& format();

// The files a model name may be, relative to the game root, in the engine's order (notes B6):
// lower case, extension dropped, `<name>.e3d`, `models/<name>.e3d`, `<name>.t3d`, `models/<name>.t3d`,
// as normalized asset paths (normalize_asset_path; none for a name that climbs out of the root).
std::vector<std::string> model_candidates(std::string_view name);

// The distinct model files a module places: MODL and prototypes (what its header holds), and with
// `with_pack` the solo models of its decoded PACK sections. As string ids (names may not be
// loaded yet in a stream) and as names (ids whose string is not loaded are left out).
std::set<Sid> model_file_ids(const Module& module, bool with_pack = false);
std::vector<std::string> header_model_files(const Module& module, bool with_pack = false);

}  // namespace sceneria::eu7b
