#include "core/error.hpp"

#include <fmt/format.h>

namespace sceneria {

std::string_view errc_name(Errc code) {
  switch (code) {
    case Errc::ok: return "ok";
    case Errc::io: return "io";
    case Errc::truncated: return "truncated";
    case Errc::bad_magic: return "bad_magic";
    case Errc::unsupported_version: return "unsupported_version";
    case Errc::bad_chunk_size: return "bad_chunk_size";
    case Errc::bad_count: return "bad_count";
    case Errc::bad_value: return "bad_value";
    case Errc::unknown_format: return "unknown_format";
  }
  return "unknown";
}

std::string hex_offset(std::uint64_t offset) { return fmt::format("{:#x}", offset); }

std::string Error::describe() const {
  if (line == 0) return fmt::format("{} at {}: {}", errc_name(code), hex_offset(offset), message);
  return fmt::format("{} at {} (line {}, column {}): {}", errc_name(code), hex_offset(offset), line, column, message);
}

}  // namespace sceneria
