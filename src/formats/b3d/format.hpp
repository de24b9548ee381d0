#pragma once
// Hard Truck B3D modules and their .res resources in the registry (notes b3d.md).
#include "formats/format.hpp"

namespace sceneria::b3d {

const Format& format();
const Format& res_format();

}  // namespace sceneria::b3d
