#pragma once
// Scenery twin <-> JSON, lossless both ways: read_twin_json of write_twin_json(t) writes t's bytes
// (for twins with minimal varints, as write_twin). Layout: docs/json-forms.md ("Scenery"). The
// entries read as the text does: words as strings, integers as numbers, a node marker as an object
// around its entries.
#include "core/error.hpp"
#include "formats/scenery/twin.hpp"
#include "io/byte_sink.hpp"
#include "io/byte_source.hpp"

namespace sceneria::scenery {

constexpr int kTwinJsonSchema = 1;

Error write_twin_json(const Twin& twin, ByteSink& sink, int indent = -1);
// The twin as read_twin reads the bytes it describes (every check of read_twin holds), with
// those bytes. Entries are read one at a time: memory grows with the twin, not the JSON. The
// strings come before the entries, and a node's "node", "position" and "range" before its entries.
struct TwinFromJson {
  Twin twin;
  std::vector<std::uint8_t> bytes;
};
Result<TwinFromJson> read_twin_json(ByteSource& source);

}  // namespace sceneria::scenery
