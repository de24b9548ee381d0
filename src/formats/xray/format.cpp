#include "formats/xray/format.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "formats/textures.hpp"
#include "formats/open_file.hpp"
#include "formats/typed_writer.hpp"
#include "formats/xray/document.hpp"
#include "formats/xray/json.hpp"
#include "formats/xray/xray.hpp"
#include "io/json_io.hpp"

namespace sceneria::xray {
namespace {

// The object chunk 0x7777, packed or not, with a size that fits the file.
bool is_object(std::span<const std::uint8_t> head) {
  if (head.size() < 8) return false;
  std::uint32_t id = 0;
  std::memcpy(&id, head.data(), 4);
  return (id & ~kPackedBit) == 0x7777;
}
bool probe(std::span<const std::uint8_t> head, std::string_view name) { return is_object(head) || json_form_is(head, name, "xray"); }

Result<File> read(ByteSource& source) {
  return read_binary_or_json(source, "xray", is_object, "object", read_xray_json, [](std::span<const std::uint8_t> bytes) { return read_object(bytes); });
}

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  auto file = read(source);
  if (!file) return file.error();
  auto doc = std::make_unique<XrayDocument>(std::move(file).value(), source.size(), source.name());
  if (options.assets) doc->load_textures(*options.assets);
  doc->smoothing = smoothing_named(options.param("smoothing"));
  return std::unique_ptr<Document>(std::move(doc));
}

Result<std::vector<std::uint8_t>> write(const XrayDocument& doc, const WriteOptions&) {
  return write_object(doc.file());
}

}  // namespace

const Format& format() {
  static const Format f{
      .id = "xray",
      .name = "X-Ray SDK object (.object)",
      .extensions = {".object"},
      .probe = probe,
      .open = open,
      .writers = {{"object", ".object", "X-Ray object, chunk by chunk as read (packed chunks as stored)", "", typed<XrayDocument, write>},
                  dump_writer("lossless JSON (docs/json-forms.md#x-ray)")},
      // gamedata/objects/... names its textures as gamedata/textures/... does.
      .companions = "with its gamedata/textures folder",
      .companion_extensions = texture_file_extensions(),
      .assets_folder = "gamedata",
      .choices = object_choices(),
  };
  return f;
}

}  // namespace sceneria::xray
