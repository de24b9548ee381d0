#include "formats/format.hpp"

#include "core/text.hpp"

namespace sceneria {

std::string OpenOptions::param(std::string_view key, std::string_view fallback) const {
  const auto it = params.find(std::string(key));
  return it == params.end() ? std::string(fallback) : it->second;
}

namespace {

Error stream_dump(const Document& document, const WriteOptions&, ByteSink& sink) {
  if (Error e = document.dump_to(sink, -1)) return e;
  return sink.put(std::string_view("\n"));
}

}  // namespace

Writer dump_writer(std::string_view description) { return {"json", ".json", description, "", gathered<stream_dump>, {}, false, stream_dump}; }

const Writer* Format::writer_for(std::string_view path_or_id) const {
  for (const Writer& w : writers)
    if (w.id == path_or_id) return &w;
  for (const Writer& w : writers)
    if (iends_with(path_or_id, w.extension)) return &w;
  for (const Writer& w : writers)
    for (std::string_view e : w.more_extensions)
      if (iends_with(path_or_id, e)) return &w;
  return nullptr;
}

}  // namespace sceneria
