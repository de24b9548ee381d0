#pragma once
// E3D <-> JSON, lossless both ways: read_model_json of write_model_json(m) writes m's bytes.
// Layout: docs/json-forms.md ("E3D"). Every chunk in file order, the submodel records field by
// field (the names of record.hpp), vertices as the values each variant stores (floats, or the
// packed variants' integers), so nothing is rounded.
#include "core/error.hpp"
#include "formats/e3d/e3d.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"

namespace sceneria::e3d {

constexpr int kJsonSchemaVersion = 1;

Error write_model_json(const Model& model, ByteSink& sink, int indent = -1);
// The model as read_model would give it from the bytes it describes (so every check read_model
// makes holds). Lists are read an item at a time: memory grows with the model, not the JSON.
// Members a list needs come before it: a chunk's "id" before its list.
Result<Model> read_model_json(ByteSource& source);

}  // namespace sceneria::e3d
