#pragma once
// Text → twin, as the reference baker writes it (notes A2–A5): the file's own tokens in order,
// strings interned at first use, numbers typed, each include one entry, each top-level node in a
// marker classed infra or visual (visual ones with the position and range the reference picks,
// quirks included, so real twins come out byte for byte).
#include <cstdint>
#include <span>
#include <string_view>

#include "formats/format.hpp"
#include "formats/scenery/tokens.hpp"
#include "formats/scenery/twin.hpp"

namespace sceneria::scenery {

// The twin kind for a text file name (`.scn`/`.ctr` scn, `.inc` inc, `.scm` scm).
TwinKind kind_for(std::string_view file_name);
// `TD.scn` → `TD.scnb`.
std::string twin_name(std::string_view file_name);

// The twin's bytes, written as the tokens come (no entry list); `includes`: the file name of each
// include, in order. With `threads`, a big text is baked in up to that many parts side by side
// and joined: the same bytes; `parts` tells how many were joined (1: one pass).
std::vector<std::uint8_t> bake_bytes(std::span<const std::uint8_t> text, TwinKind kind, TokenizerOptions options = {},
                                     std::vector<std::string>* includes = nullptr, unsigned threads = 1,
                                     std::uint32_t* parts = nullptr);
// The same, read back (tests, tools).
Twin bake(std::span<const std::uint8_t> text, TwinKind kind, TokenizerOptions options = {});

// The headless bake: `path` and every file it includes, recursively, each once, baked on up to
// `threads` threads, each twin written beside its text (`TD.scn` → `TD.scnb`) unless it is fresh.
Result<BakeReport> bake_tree(const std::string& path, BakeIo& io, bool force, unsigned threads);

}  // namespace sceneria::scenery
