#pragma once
// What the vehicle definition formats (.fiz, .mmd) share in opening a file: the size past which
// a file is none of theirs, reading one a definition includes (or names) through the resolver,
// and telling the file from its JSON form.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "io/assets.hpp"
#include "io/byte_source.hpp"

namespace sceneria::maszyna {

// Far past any real definition (tens of KB); a bigger file is refused before it is read.
constexpr std::uint64_t kMaxDefinitionBytes = 16u << 20;

// A file from `assets`, whole; nullopt when it is missing, unreadable or too big to be one.
std::optional<std::vector<std::uint8_t>> read_definition(AssetResolver& assets, const std::string& path);

// The source's bytes, and whether they are format `id`'s JSON form (which may be larger).
struct DefinitionBytes {
  SharedBytes bytes;
  bool json = false;
};
Result<DefinitionBytes> open_definition(ByteSource& source, std::string_view id);

}  // namespace sceneria::maszyna
