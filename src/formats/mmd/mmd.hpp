#pragma once
// MaSzyna's vehicle media file (`.mmd`), as the engine reads it (DynObj.cpp
// TDynamicObject::LoadMMediaFile): cParser tokens (space, tab, CR, LF and `;` separate; `//` and
// `/* */` comments; lower-cased), read through an include wrapper that gives the file the
// parameters (p1) vehicle name, (p2) type (the .mmd's own name), (p3) skin. Four blocks at the top
// level: `models:` <main model> … `endmodels`, `sounds:` … `endsounds`, `locations:` …
// `endlocations`, `internaldata:` to the end; anything else between them is passed over.
//
// The records keep every byte: the file is what precedes its first key plus its entries, each a
// key (a word ending in `:`, a block's end word, or `include`) with the words that follow it up to
// the next key and the text between (spaces, comments), so it is written back byte for byte.
// What the engine takes from them (Definition) is read from the words with includes followed.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace sceneria::mmd {

struct Entry {
  std::string key;                  // as written ("models:", "endmodels", "include")
  std::vector<std::string> values;  // the words after it, as written
  std::string block;                // the block it is in: "models", "sounds", "locations", "internaldata", or "" (top level)
  std::string text;                 // its bytes, from its key up to the next entry's
  std::uint32_t line = 0;
  std::uint64_t offset = 0;
};

struct File {
  std::string lead;  // the bytes before the first entry (comments, a BOM)
  std::vector<Entry> entries;
};

Result<File> read_file(std::span<const std::uint8_t> bytes);
std::vector<std::uint8_t> write_file(const File& file);

// An include's bytes by the name it gives (relative to the vehicle's folder); nullopt: not found.
using IncludeLoader = std::function<std::optional<std::vector<std::uint8_t>>(const std::string& name)>;

// What LoadMMediaFile takes from the file (names with `\` made `/` and leading slashes dropped,
// as the engine does; lower case, as its parser gives them).
struct Definition {
  std::string model;             // models: — the main model, without its `#`
  bool multi_textures = false;   // the `#`: the model takes the skin set's several textures
  std::string lowpoly_interior;  // lowpolyinterior:
  std::vector<int> animations;   // animations: the count of each type, up to the -1
  std::vector<std::string> attachments;  // attachments: { … }
  std::string coupler_adapter;   // coupleradapter: its model
  // locations: — along the vehicle's length, metres ahead of its centre (the engine negates the
  // file's values: in the file a negative value is ahead).
  std::vector<double> bogies, motors;
  std::vector<std::pair<double, std::string>> doors;  // and the sides ("left", "right", "both")
  std::array<std::string, 3> cabs;  // internaldata: cab0model: … cab2model: ("" when absent or none)
  std::vector<std::string> includes, missing;  // the includes followed, and those not found
};

struct Params {
  std::string name, type, skin;  // (p1), (p2), (p3)
};
Definition read_definition(std::span<const std::uint8_t> bytes, const Params& params, const IncludeLoader& load = {});

}  // namespace sceneria::mmd
