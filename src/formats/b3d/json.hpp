#pragma once
// B3D <-> JSON, lossless both ways: read_b3d_json of write_b3d_json(f) writes f's bytes. Layout:
// docs/json-forms.md ("B3D"): the material names, then the items of the data section, each block
// with its fields named and laid out as the catalogue says (catalogue.hpp), its children, and the
// 444 separators where they stand.
#include "core/error.hpp"
#include "formats/b3d/b3d.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"

namespace sceneria::b3d {

constexpr int kJsonSchemaVersion = 1;

Error write_b3d_json(const File& file, ByteSink& sink, int indent = -1);
// The file as read_b3d gives it from the bytes the JSON describes.
Result<File> read_b3d_json(ByteSource& source);

}  // namespace sceneria::b3d
