#include "io/byte_source.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#if defined(__unix__) && !defined(__EMSCRIPTEN__)
#define SCENERIA_MAP_FILES 1
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace sceneria {

#ifdef SCENERIA_MAP_FILES
namespace {
// A mapped file's bytes are read, not touched where mapped: pread into the caller's buffer was
// twice as fast as the mapping's page faults here, and a file cut short since it was mapped is
// an error instead of a SIGBUS.
Error read_file_at(int file, std::uint64_t offset, std::span<std::uint8_t> out) {
  for (std::size_t done = 0; done < out.size();) {
    const ::ssize_t n = ::pread(file, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      const std::uint64_t where = offset + done;
      return Error{Errc::io, where, fmt::format("read of {} bytes at {} failed: {}", out.size() - done, hex_offset(where),
                                                n == 0 ? "the file ends there" : std::strerror(errno))};
    }
  }
  return {};
}
}  // namespace
#endif

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

SharedBytes SharedBytes::own(std::vector<std::uint8_t> bytes) {
  auto held = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes));
  const std::span<const std::uint8_t> view(*held);
  return {std::move(held), view};
}

SharedBytes SharedBytes::part(std::size_t at, std::size_t size) const {
  return {owner, view.subspan(at, size), file, file < 0 ? 0 : file_offset + at};
}

Error SharedBytes::copy(std::size_t at, std::span<std::uint8_t> out) const {
  if (at > view.size() || out.size() > view.size() - at)
    return Error{Errc::truncated, at, fmt::format("copy of {} bytes at {} runs past the end ({} bytes)", out.size(), at, view.size())};
#ifdef SCENERIA_MAP_FILES
  if (file >= 0) return read_file_at(file, file_offset + at, out);
#endif
  if (!out.empty()) std::memcpy(out.data(), view.data() + at, out.size());
  return {};
}

Result<SharedBytes> read_shared(ByteSource& source) {
  if (auto bytes = source.shared()) return std::move(*bytes);
  auto bytes = source.read_vector(0, source.size());
  if (!bytes) return bytes.error();
  return SharedBytes::own(std::move(bytes).value());
}

MemorySource::MemorySource(std::vector<std::uint8_t> bytes, std::string name)
    : owned_(std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes))), view_(*owned_), name_(std::move(name)) {}

std::optional<SharedBytes> MemorySource::shared() const {
  if (!owned_) return std::nullopt;  // borrowed: the caller's bytes may not outlive this
  return SharedBytes{owned_, view_};
}

MemorySource::MemorySource(std::span<const std::uint8_t> bytes, std::string name)
    : view_(bytes), name_(std::move(name)) {}

Error MemorySource::read(std::uint64_t offset, std::span<std::uint8_t> out) {
  if (Error e = check_range(offset, out.size())) return e;
  if (!out.empty()) std::memcpy(out.data(), view_.data() + offset, out.size());
  return {};
}

namespace {

#ifdef SCENERIA_MAP_FILES
// The whole of a regular, non-empty file mapped read-only, its descriptor kept open beside the
// mapping for pread (SharedBytes::copy); null where that is not possible.
std::shared_ptr<const std::uint8_t> map_file(const std::string& path, std::uint64_t& size, int& file) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  void* at = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    at = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (at == MAP_FAILED) {
    ::close(fd);
    return nullptr;
  }
  size = static_cast<std::uint64_t>(st.st_size);
  file = fd;
  const auto length = static_cast<std::size_t>(st.st_size);
  return {static_cast<const std::uint8_t*>(at), [length, fd](const std::uint8_t* p) {
            ::munmap(const_cast<std::uint8_t*>(p), length);
            ::close(fd);
          }};
}
#endif

}  // namespace

Result<std::unique_ptr<FileSource>> FileSource::open(const std::string& path) {
#ifdef SCENERIA_MAP_FILES
  std::uint64_t size = 0;
  int file = -1;
  if (auto mapped = map_file(path, size, file)) {
    std::unique_ptr<FileSource> source(new FileSource(nullptr, size, path));
    source->mapped_ = std::move(mapped);
    source->mapped_file_ = file;
    return source;
  }
#endif
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

FileSource::~FileSource() {
  if (file_) std::fclose(file_);
}

std::optional<std::span<const std::uint8_t>> FileSource::in_memory() const {
  if (!mapped_) return std::nullopt;
  return std::span<const std::uint8_t>(mapped_.get(), static_cast<std::size_t>(size_));
}

std::optional<SharedBytes> FileSource::shared() const {
  if (!mapped_) return std::nullopt;
#if defined(SCENERIA_MAP_FILES) && defined(MADV_POPULATE_READ)
  // All of it is wanted: mapped in one call now, rather than a fault per few pages later, on
  // whichever thread reads there. (A reader that wants a few chunks of a big module never asks.)
  ::madvise(const_cast<std::uint8_t*>(mapped_.get()), static_cast<std::size_t>(size_), MADV_POPULATE_READ);
#endif
  return SharedBytes{mapped_, *in_memory(), mapped_file_, 0};
}

std::optional<SharedBytes> FileSource::mapped() const {
  if (!mapped_) return std::nullopt;
  return SharedBytes{mapped_, *in_memory(), mapped_file_, 0};
}

void release_pages(std::span<const std::uint8_t> bytes) {
#ifdef SCENERIA_MAP_FILES
  // Only pages wholly inside: a neighbour's bytes on the same page may still be wanted. The
  // mapping is read-only and private, so dropping pages loses nothing.
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(bytes.data());
  const std::uintptr_t first = (begin + page - 1) / page * page, last = (begin + bytes.size()) / page * page;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
#else
  (void)bytes;
#endif
}

void FileSource::release(std::uint64_t begin, std::uint64_t end) {
#ifdef SCENERIA_MAP_FILES
  // Whole pages inside the range only; the file's bytes stay in the page cache, and a later read
  // maps them again. Never for a mapping shared() handed out: its holders keep reading it.
  if (!mapped_ || mapped_.use_count() > 1) return;
  const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t first = (begin + page - 1) / page * page, last = std::min(end, size_) / page * page;
  if (last > first)
    ::madvise(const_cast<std::uint8_t*>(mapped_.get()) + first, static_cast<std::size_t>(last - first), MADV_DONTNEED);
#else
  (void)begin, (void)end;
#endif
}

Error FileSource::read(std::uint64_t offset, std::span<std::uint8_t> out) {
  if (Error e = check_range(offset, out.size())) return e;
  if (out.empty()) return {};
#ifdef SCENERIA_MAP_FILES
  if (mapped_) {
    if (Error e = read_file_at(mapped_file_, offset, out)) {
      e.message = fmt::format("{}: {}", path_, e.message);
      return e;
    }
    return {};
  }
#endif
  if (fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0 ||
      std::fread(out.data(), 1, out.size(), file_) != out.size()) {
    return Error{Errc::io, offset,
                 fmt::format("{}: read of {} bytes at {} failed", path_, out.size(), hex_offset(offset))};
  }
  return {};
}

}  // namespace sceneria
