#pragma once
// What every format's open does before its own reader runs, in one place: the file read whole
// under a cap (a hostile size never allocates), and the choice between a binary file and its
// JSON form (docs/json-forms.md).
#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "formats/format.hpp"
#include "io/byte_source.hpp"
#include "io/json_io.hpp"

namespace sceneria {

// Files bigger than this are refused before anything is read (every reader's offsets fit 31 bits).
constexpr std::uint64_t kMaxWholeFile = std::uint64_t{1} << 31;

// The whole file, refused past `cap` bytes with what it is ("a 3000000000 byte model is too big to
// read").
inline Result<SharedBytes> read_whole(ByteSource& source, std::string_view what, std::uint64_t cap = kMaxWholeFile) {
  if (source.size() > cap) return Error{Errc::bad_count, 0, fmt::format("{}: a {} byte {} is too big to read", source.name(), source.size(), what)};
  return read_shared(source);
}

// Whether the file is format `id`'s JSON form: not the binary (whose magic `is_binary` knows)
// and JSON naming `id` (json_form_is), told from its first bytes.
inline Result<bool> is_json_form(ByteSource& source, std::string_view id, bool (*is_binary)(std::span<const std::uint8_t>)) {
  std::vector<std::uint8_t> head(static_cast<std::size_t>(std::min<std::uint64_t>(kProbeBytes, source.size())));
  if (Error e = source.read(0, head)) return e;
  return !is_binary(head) && json_form_is(head, source.name(), id);
}

// A binary format with a JSON form read into its records: the JSON form by `from_json(source)`,
// else the bytes whole by `from_bytes(bytes)` (`what` names the file in the size refusal).
template <class FromJson, class FromBytes>
auto read_binary_or_json(ByteSource& source, std::string_view id, bool (*is_binary)(std::span<const std::uint8_t>), std::string_view what,
                         FromJson from_json, FromBytes from_bytes) -> decltype(from_json(source)) {
  auto json = is_json_form(source, id, is_binary);
  if (!json) return json.error();
  if (*json) return from_json(source);
  auto bytes = read_whole(source, what);
  if (!bytes) return bytes.error();
  return from_bytes(bytes->view);
}

}  // namespace sceneria
