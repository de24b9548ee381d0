#pragma once
// DDS's entry in the format registry (formats/catalog.cpp): a texture opens as its header and
// mip levels, drawn on a quad.
#include "formats/format.hpp"

namespace sceneria::dds {

const Format& format();

}  // namespace sceneria::dds
