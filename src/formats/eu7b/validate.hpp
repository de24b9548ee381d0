#pragma once
// Whole-module consistency checks beyond what decoding enforces.
#include <vector>

#include "formats/eu7b/eu7b.hpp"

namespace sceneria::eu7b {

// Problems of a module read with decode_pack: those found while reading (Module::problems) plus
// cross-checks (PIDX against the sections, indices into UMES/UTEX/DYNM, cells, versions).
std::vector<Problem> validate(const Module& module);

}  // namespace sceneria::eu7b
