#include "formats/maszyna/definition_file.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "formats/format.hpp"
#include "formats/open_file.hpp"
#include "io/json_io.hpp"

namespace sceneria::maszyna {

std::optional<std::vector<std::uint8_t>> read_definition(AssetResolver& assets, const std::string& path) {
  auto source = assets.open(path);
  if (!source || source->size() > kMaxDefinitionBytes) return std::nullopt;
  auto bytes = read_shared(*source);
  if (!bytes) return std::nullopt;
  return std::vector<std::uint8_t>(bytes->view.begin(), bytes->view.end());
}

Result<DefinitionBytes> open_definition(ByteSource& source, std::string_view id) {
  // A JSON form quotes every byte: up to a few times the file's size.
  auto bytes = read_whole(source, fmt::format(".{} file", id), kMaxDefinitionBytes * 4);
  if (!bytes) return bytes.error();
  const auto view = bytes->view;
  const bool json = json_form_is(view.first(std::min<std::size_t>(view.size(), kProbeBytes)), source.name(), id);
  if (!json && view.size() > kMaxDefinitionBytes) return Error{Errc::bad_count, 0, fmt::format("a {} byte .{} is too big to be one", view.size(), id)};
  return DefinitionBytes{std::move(bytes).value(), json};
}

}  // namespace sceneria::maszyna
