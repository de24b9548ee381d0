#pragma once
// EU7B <-> JSON, lossless both ways: module_from_json(module_to_json(m)) writes the same bytes as
// m. Schema: docs/eu7b-json.md. The field names come from fields.hpp, shared with the binary
// codec, so the JSON always says exactly what the file holds.
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "formats/eu7b/eu7b.hpp"

namespace sceneria::eu7b {

constexpr int kJsonSchemaVersion = 1;

// Needs PACK decoded (read with decode_pack) when the module has one.
Result<nlohmann::ordered_json> module_to_json(const Module& module);
Result<Module> module_from_json(const nlohmann::json& json);

// Strings keep their exact bytes: UTF-8 as a JSON string, otherwise {"cp1250": text} when every
// byte is defined in Windows-1250, otherwise {"hex": "…"}.
nlohmann::ordered_json string_to_json(std::string_view bytes);
bool string_from_json(const nlohmann::json& j, std::string& bytes);

}  // namespace sceneria::eu7b
