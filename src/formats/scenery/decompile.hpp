#pragma once
// Twin → readable text that tokenizes back to the same tokens (so baking it again gives the same
// twin entries). What cannot come back: comments, the original spelling of numbers (an int loses
// leading zeros and a trailing `.0`; an f32 is written at float precision, `1.435`), and the
// original line breaks. Words that the tokenizer would split or read as a number are quoted.
#include <string>

#include "formats/scenery/twin.hpp"

namespace sceneria::scenery {

std::string decompile(const Twin& twin);

}  // namespace sceneria::scenery
