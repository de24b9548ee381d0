#include "io/byte_sink.hpp"

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <memory>

#include <fmt/format.h>

namespace sceneria {

Result<std::unique_ptr<FileByteSink>> FileByteSink::create(const std::string& path) {
  if (path == "-") return std::unique_ptr<FileByteSink>(new FileByteSink(stdout, path));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Error{Errc::io, 0, fmt::format("{}: cannot create: {}", path, std::strerror(errno))};
  return std::unique_ptr<FileByteSink>(new FileByteSink(f, path));
}

FileByteSink::~FileByteSink() { (void)close(); }  // a caller that cares closes first and reads the error

Error FileByteSink::put(std::span<const std::uint8_t> bytes) {
  if (error_ || !file_) return error_ ? error_ : Error{Errc::io, 0, fmt::format("{}: already closed", path_)};
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    error_ = Error{Errc::io, written_, fmt::format("{}: write failed: {}", path_, std::strerror(errno))};
  written_ += bytes.size();
  return error_;
}

Error VectorByteSink::patch(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  if (offset + bytes.size() > out_.size()) return Error{Errc::bad_value, offset, "patch past the end of the output"};
  std::copy(bytes.begin(), bytes.end(), out_.begin() + static_cast<std::ptrdiff_t>(offset));
  return {};
}

Error FileByteSink::patch(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
  if (error_ || !file_) return error_ ? error_ : Error{Errc::io, 0, fmt::format("{}: already closed", path_)};
  if (!can_patch() || offset + bytes.size() > written_) return Error{Errc::bad_value, offset, fmt::format("{}: cannot rewrite", path_)};
  const bool ok = std::fseek(file_, static_cast<long>(offset), SEEK_SET) == 0 &&
                  std::fwrite(bytes.data(), 1, bytes.size(), file_) == bytes.size() && std::fseek(file_, 0, SEEK_END) == 0;
  if (!ok) error_ = Error{Errc::io, offset, fmt::format("{}: write failed: {}", path_, std::strerror(errno))};
  return error_;
}

Error FileByteSink::close() {
  if (!file_) return error_;
  const bool failed = file_ == stdout ? std::fflush(file_) != 0 : std::fclose(file_) != 0;
  if (failed && !error_) error_ = Error{Errc::io, written_, fmt::format("{}: write failed: {}", path_, std::strerror(errno))};
  file_ = nullptr;
  return error_;
}

}  // namespace sceneria
