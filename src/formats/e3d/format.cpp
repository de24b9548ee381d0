#include "formats/e3d/format.hpp"

#include <cstring>

#include <fmt/format.h>

#include "formats/e3d/document.hpp"

namespace sceneria::e3d {
namespace {

bool probe(std::span<const std::uint8_t> head, std::string_view) { return head.size() >= 8 && std::memcmp(head.data(), "E3D0", 4) == 0; }

Result<std::unique_ptr<Document>> open(ByteSource& source, const OpenOptions& options) {
  if (source.size() > (std::uint64_t{1} << 31))
    return Error{Errc::bad_count, 0, fmt::format("{}: a {} byte model is too big to read", source.name(), source.size())};
  auto bytes = read_shared(source);
  if (!bytes) return bytes.error();
  auto model = read_model(bytes->view);
  if (!model) return model.error();
  auto doc = std::make_unique<ModelDocument>(std::move(model).value(), bytes->view.size());
  doc->apply(options, source.name());
  return std::unique_ptr<Document>(std::move(doc));
}

}  // namespace

Result<std::vector<std::uint8_t>> write_e3d(const Document& d, const WriteOptions&) {
  const auto* doc = dynamic_cast<const ModelDocument*>(&d);
  if (!doc) return Error{Errc::bad_value, 0, "only a model (E3D or T3D) can be written as E3D"};
  return write_model(doc->model());
}

const Format& format() {
  static const Format f{
      .id = "e3d",
      .name = "MaSzyna binary model (.e3d)",
      .extensions = {".e3d"},
      .probe = probe,
      .open = open,
      .writers = {{"e3d", ".e3d", "E3D model, chunk by chunk as read", "", write_e3d}},
  };
  return f;
}

}  // namespace sceneria::e3d
