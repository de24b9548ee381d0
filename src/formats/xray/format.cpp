#include "formats/xray/format.hpp"

#include <cstring>

#include <fmt/format.h>

#include "formats/xray/document.hpp"
#include "formats/xray/xray.hpp"

namespace sceneria::xray {
namespace {

// The object chunk 0x7777, packed or not, with a size that fits the file.
bool probe(std::span<const std::uint8_t> head, std::string_view) {
  if (head.size() < 8) return false;
  std::uint32_t id = 0;
  std::memcpy(&id, head.data(), 4);
  return (id & ~kPackedBit) == 0x7777;
}

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  if (source.size() > (std::uint64_t{1} << 31))
    return Error{Errc::bad_count, 0, fmt::format("{}: a {} byte object is too big to read", source.name(), source.size())};
  auto bytes = read_shared(source);
  if (!bytes) return bytes.error();
  auto file = read_object(bytes->view);
  if (!file) return file.error();
  auto doc = std::make_unique<XrayDocument>(std::move(file).value(), source.size(), source.name());
  if (options.assets) doc->load_textures(*options.assets);
  return std::unique_ptr<Document>(std::move(doc));
}

Result<std::vector<std::uint8_t>> write(const Document& d, const WriteOptions&) {
  const auto* doc = dynamic_cast<const XrayDocument*>(&d);
  if (!doc) return Error{Errc::bad_value, 0, "only an X-Ray object can be written as .object"};
  return write_object(doc->file());
}

}  // namespace

const Format& format() {
  static const Format f{
      .id = "xray",
      .name = "X-Ray SDK object (.object)",
      .extensions = {".object"},
      .probe = probe,
      .open = open,
      .writers = {{"object", ".object", "X-Ray object, chunk by chunk as read (packed chunks as stored)", "", write}},
  };
  return f;
}

}  // namespace sceneria::xray
