#include "formats/e3d/format.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "formats/textures.hpp"
#include "formats/e3d/document.hpp"
#include "formats/e3d/json.hpp"
#include "formats/open_file.hpp"
#include "formats/typed_writer.hpp"
#include "io/json_io.hpp"

namespace sceneria::e3d {
namespace {

bool is_e3d(std::span<const std::uint8_t> head) { return head.size() >= 8 && std::memcmp(head.data(), "E3D0", 4) == 0; }

// The binary model, or its JSON form (docs/json-forms.md).
bool probe(std::span<const std::uint8_t> head, std::string_view name) { return is_e3d(head) || json_form_is(head, name, "e3d"); }

Result<Model> read(ByteSource& source) {
  return read_binary_or_json(source, "e3d", is_e3d, "model", read_model_json, [](std::span<const std::uint8_t> bytes) { return read_model(bytes); });
}

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  auto model = read(source);
  if (!model) return model.error();
  auto doc = std::make_unique<ModelDocument>(std::move(model).value(), source.size());
  doc->apply(options, source.name());
  return std::unique_ptr<Document>(std::move(doc));
}

Result<std::vector<std::uint8_t>> write_model_document(const ModelDocument& doc, const WriteOptions&) {
  return write_model(doc.model());
}

}  // namespace

Result<std::vector<std::uint8_t>> write_e3d(const Document& document, const WriteOptions& options) {
  return typed<ModelDocument, write_model_document>(document, options);
}

const Format& format() {
  static const Format f{
      .id = "e3d",
      .name = "MaSzyna binary model (.e3d)",
      .extensions = {".e3d"},
      .probe = probe,
      .open = open,
      .writers = {{"e3d", ".e3d", "E3D model, chunk by chunk as read", "", write_e3d}, dump_writer("lossless JSON (docs/json-forms.md)")},
      .companions = "with its textures (and skin sets) beside it or in the game's textures/ folder",
      .companion_extensions = texture_file_extensions(),
      .choices = model_choices(),
  };
  return f;
}

}  // namespace sceneria::e3d
