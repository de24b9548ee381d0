#pragma once
// The .fiz vehicle physics file's entry in the format registry (formats/catalog.cpp): read as the
// engine reads it (fiz.hpp), written back line for line, its Dimensions drawn as the body's box.
#include "formats/format.hpp"

namespace sceneria::fiz {

const Format& format();

}  // namespace sceneria::fiz
