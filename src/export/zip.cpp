// A stored ZIP (APPNOTE 6.3: local headers, central directory, end record; no compression, no
// ZIP64): what a browser download of several files needs, with nothing to decompress.
#include <array>

#include <fmt/format.h>

#include "export/export.hpp"

namespace sceneria::exports {

namespace {

std::uint32_t crc32(const std::vector<std::uint8_t>& bytes) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::uint8_t b : bytes) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

}  // namespace

Result<std::vector<std::uint8_t>> zip(const std::vector<File>& files) {
  std::vector<std::uint8_t> out, directory;
  const auto put = [](std::vector<std::uint8_t>& to, std::uint64_t v, int bytes) {
    for (int b = 0; b < bytes; ++b) to.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
  };
  for (const File& f : files) {
    if (f.bytes.size() >= 0xFFFFFFFFull || out.size() >= 0xFFFFFFFFull || f.name.size() > 0xFFFF)
      return Error{Errc::bad_value, 0, fmt::format("{}: too big for a ZIP without ZIP64", f.name)};
    const std::uint32_t crc = crc32(f.bytes);
    const std::uint64_t at = out.size();
    // Shared by the local header and the directory entry: version 2.0, flags (bit 11: UTF-8
    // names), stored, time and date (1980-01-01: reproducible archives), CRC, sizes, name length.
    const auto common = [&](std::vector<std::uint8_t>& to) {
      put(to, 20, 2), put(to, 0x0800, 2), put(to, 0, 2), put(to, 0, 2), put(to, 0x21, 2);
      put(to, crc, 4), put(to, f.bytes.size(), 4), put(to, f.bytes.size(), 4), put(to, f.name.size(), 2);
    };
    put(out, 0x04034B50, 4), common(out), put(out, 0, 2);
    out.insert(out.end(), f.name.begin(), f.name.end());
    out.insert(out.end(), f.bytes.begin(), f.bytes.end());
    put(directory, 0x02014B50, 4), put(directory, 20, 2), common(directory);
    put(directory, 0, 2), put(directory, 0, 2), put(directory, 0, 2), put(directory, 0, 2), put(directory, 0, 4), put(directory, at, 4);
    directory.insert(directory.end(), f.name.begin(), f.name.end());
  }
  if (out.size() >= 0xFFFFFFFFull || files.size() > 0xFFFF) return Error{Errc::bad_value, 0, "too big for a ZIP without ZIP64"};
  const std::uint64_t directory_at = out.size();
  out.insert(out.end(), directory.begin(), directory.end());
  put(out, 0x06054B50, 4), put(out, 0, 2), put(out, 0, 2), put(out, files.size(), 2), put(out, files.size(), 2);
  put(out, directory.size(), 4), put(out, directory_at, 4), put(out, 0, 2);
  return out;
}

}  // namespace sceneria::exports
