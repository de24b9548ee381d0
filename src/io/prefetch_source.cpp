#include "io/prefetch_source.hpp"

#include <fmt/format.h>

namespace sceneria {

Error PrefetchSource::read(std::uint64_t offset, std::span<std::uint8_t> out) {
  if (Error e = check_range(offset, out.size())) return e;
  const std::size_t have = runs_.copy(offset, out);
  if (have == out.size()) return {};
  const std::uint64_t at = offset + have;
  needed_ = Span{at, offset + out.size()};
  return Error{Errc::io, at, fmt::format("{}: bytes at {} not fetched yet", name_, hex_offset(at))};
}

}  // namespace sceneria
