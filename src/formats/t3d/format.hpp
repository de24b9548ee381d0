#pragma once
// T3D's entry in the format registry (formats/catalog.cpp): a text model opens as the E3D the
// engine's converter makes of it, and writes as that E3D.
#include "formats/format.hpp"

namespace sceneria::t3d {

const Format& format();

}  // namespace sceneria::t3d
