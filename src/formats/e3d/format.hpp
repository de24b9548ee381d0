#pragma once
// E3D's entry in the format registry (formats/catalog.cpp): probe, open, the writer, behind the
// format-blind interfaces. A model opens as its submodel tree (the "submodels" list), its
// textures, and a scene with one mesh per submodel with geometry, placed by its world matrix.
#include "formats/format.hpp"

namespace sceneria::e3d {

const Format& format();
// The E3D writer of every model document (an E3D as read; a T3D as the engine converts it).
Result<std::vector<std::uint8_t>> write_e3d(const Document& document, const WriteOptions& options);

}  // namespace sceneria::e3d
