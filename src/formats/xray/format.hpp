#pragma once
// X-Ray SDK `.object` models in the registry (notes xray-object.md).
#include "formats/format.hpp"

namespace sceneria::xray {

const Format& format();

}  // namespace sceneria::xray
