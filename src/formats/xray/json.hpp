#pragma once
// X-Ray `.object` <-> JSON, lossless both ways: read_xray_json of write_xray_json(f) writes f's
// bytes. Layout: docs/json-forms.md ("X-Ray"): the chunk tree, containers (the object, its meshes
// and bones, each mesh and bone) as nested chunk lists, name chunks as text, the rest as hex; a
// packed chunk keeps its stream so it is written back as stored.
#include "core/error.hpp"
#include "formats/xray/xray.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"

namespace sceneria::xray {

constexpr int kJsonSchemaVersion = 1;

Error write_xray_json(const File& file, ByteSink& sink, int indent = -1);
// The file as read_object gives it from the bytes the JSON describes.
Result<File> read_xray_json(ByteSource& source);

}  // namespace sceneria::xray
