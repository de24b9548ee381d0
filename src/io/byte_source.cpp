#include "io/byte_source.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace sceneria {

Error ByteSource::check_range(std::uint64_t offset, std::uint64_t length) const {
  const std::uint64_t total = size();
  if (offset <= total && length <= total - offset) return {};
  return Error{Errc::truncated, offset,
               fmt::format("{}: read of {} bytes at {} runs past the end ({} bytes)", name(), length,
                           hex_offset(offset), total)};
}

Result<std::vector<std::uint8_t>> ByteSource::read_vector(std::uint64_t offset, std::uint64_t length) {
  // Check before allocating: `length` usually comes from the input itself.
  if (Error e = check_range(offset, length)) return e;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(length));
  if (Error e = read(offset, out)) return e;
  return out;
}

MemorySource::MemorySource(std::vector<std::uint8_t> bytes, std::string name)
    : owned_(std::move(bytes)), view_(owned_), name_(std::move(name)) {}

MemorySource::MemorySource(std::span<const std::uint8_t> bytes, std::string name)
    : view_(bytes), name_(std::move(name)) {}

Error MemorySource::read(std::uint64_t offset, std::span<std::uint8_t> out) {
  if (Error e = check_range(offset, out.size())) return e;
  if (!out.empty()) std::memcpy(out.data(), view_.data() + offset, out.size());
  return {};
}

Result<std::unique_ptr<FileSource>> FileSource::open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Error{Errc::io, 0, fmt::format("{}: cannot open: {}", path, std::strerror(errno))};
  if (std::fseek(f, 0, SEEK_END) != 0) {
    std::fclose(f);
    return Error{Errc::io, 0, fmt::format("{}: cannot seek (not a regular file?)", path)};
  }
  const long long end = ftello(f);
  if (end < 0) {
    std::fclose(f);
    return Error{Errc::io, 0, fmt::format("{}: cannot tell its size", path)};
  }
  return std::unique_ptr<FileSource>(new FileSource(f, static_cast<std::uint64_t>(end), path));
}

FileSource::~FileSource() { std::fclose(file_); }

Error FileSource::read(std::uint64_t offset, std::span<std::uint8_t> out) {
  if (Error e = check_range(offset, out.size())) return e;
  if (out.empty()) return {};
  if (fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0 ||
      std::fread(out.data(), 1, out.size(), file_) != out.size()) {
    return Error{Errc::io, offset,
                 fmt::format("{}: read of {} bytes at {} failed", path_, out.size(), hex_offset(offset))};
  }
  return {};
}

}  // namespace sceneria
