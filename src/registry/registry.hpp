#pragma once
// Every format as hosts see it (the CLI, the bindings, the tests): the catalog's formats
// (formats/catalog.hpp, one line per format) with the scene exports (glTF, OBJ) added to the
// writers of each that draws, and what hosts print of them. The top layer of the core: it sees
// the formats and the exports, which see nothing of it.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/catalog.hpp"
#include "formats/format.hpp"

namespace sceneria {

// Every format with all its writers, in probe order.
std::span<const Format> formats();
const Format* find_format(std::string_view id);
// The first format (in registry order) whose extensions end `name`, ignoring case; nullptr if none.
const Format* format_for_name(std::string_view name);
// The format of these bytes (detect_in over formats()).
Result<const Format*> detect(std::span<const std::uint8_t> head, std::string_view name, std::uint64_t size);
Result<const Format*> detect(ByteSource& source);
// ".eu7,.scn,…,.mat,.tga": every format's extensions and what is picked with them (textures,
// material files), each once, for a file input's accept attribute.
std::string accepted_extensions();
// [{"id","name","extensions","reads","streams","writes":[{"id","extension","params"}],"companions","saveDefault","generate",
//   "assetsFolder","assetsRootHolds","choices"}]
nlohmann::ordered_json formats_json();

// Summary plus lists, open choices, missing assets, warnings and capabilities (streams, writable
// targets) in one object (`sceneria info --json`, the page).
nlohmann::ordered_json describe(const Document& document, std::size_t string_sample = 0);

}  // namespace sceneria
