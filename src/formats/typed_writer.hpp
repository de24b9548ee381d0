#pragma once
// Writers typed by the document their format's reader makes. The registry hands a format's writers
// only that format's documents, but a host may call any writer with any document: the one checked
// conversion is here, answered with an error that names the document's format, instead of a cast
// in every writer. Use: `.writers = {{"b3d", ".b3d", "...", "", typed<B3dDocument, write>}}`.
#include <fmt/format.h>

#include "formats/format.hpp"

namespace sceneria {

template <class D>
const D* document_as(const Document& document) {
  return dynamic_cast<const D*>(&document);
}

inline Error not_this_writers(const Document& document) {
  return Error{Errc::bad_value, 0, fmt::format("a {} document cannot be written by this writer (it writes another format's documents)", document.format_id())};
}

// A Writer::write over the document type D.
template <class D, Result<std::vector<std::uint8_t>> (*Write)(const D&, const WriteOptions&)>
Result<std::vector<std::uint8_t>> typed(const Document& document, const WriteOptions& options) {
  if (const D* d = document_as<D>(document)) return Write(*d, options);
  return not_this_writers(document);
}

// A Writer::stream over the document type D.
template <class D, Error (*Stream)(const D&, const WriteOptions&, ByteSink&)>
Error typed_stream(const Document& document, const WriteOptions& options, ByteSink& sink) {
  if (const D* d = document_as<D>(document)) return Stream(*d, options, sink);
  return not_this_writers(document);
}

}  // namespace sceneria
