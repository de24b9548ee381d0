#include "core/byte_reader.hpp"

#include <fmt/format.h>

namespace sceneria {

std::span<const std::uint8_t> ByteReader::take(std::size_t n, std::string_view what) {
  if (error_ || remaining() < n) {
    truncated(n, what);
    return {};
  }
  auto view = bytes_.subspan(pos_, n);
  pos_ += n;
  return view;
}

bool ByteReader::check_count(std::uint64_t count, std::uint64_t min_item_size, std::string_view what) {
  if (error_) return false;
  if (min_item_size == 0 || count <= remaining() / min_item_size) return true;
  fail(Errc::bad_count,
       fmt::format("{} claims {} {} but only {} bytes remain", context(), count, what, remaining()));
  return false;
}

void ByteReader::fail(Errc code, std::string_view message) { fail_at(code, offset(), message); }

void ByteReader::fail_at(Errc code, std::uint64_t absolute_offset, std::string_view message) {
  if (error_) return;
  error_.code = code;
  error_.offset = absolute_offset;
  error_.message = std::string(message);
}

void ByteReader::truncated(std::size_t wanted, std::string_view what) {
  if (error_) return;
  fail(Errc::truncated,
       fmt::format("{}: {}{}needs {} bytes at {} but only {} remain", context(), what,
                   what.empty() ? "" : " ", wanted, hex_offset(offset()), remaining()));
}

}  // namespace sceneria
