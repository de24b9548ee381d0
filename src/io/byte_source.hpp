#pragma once
// Where bytes come from. Readers take a ByteSource (or a span already read from one) and never
// know whether the bytes live in memory, in a local file or behind HTTP Range requests.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sceneria {

// Bytes that stay valid while any copy of this is held: a buffer of ours, or a file mapped into
// memory. A document keeps the very bytes its source gave, so a 100 MB file is not copied.
struct SharedBytes {
  std::shared_ptr<const void> owner;
  std::span<const std::uint8_t> view;
  // Where the bytes are a mapped file's: the file, open while `owner` is held, and the offset of
  // view[0] in it.
  int file = -1;
  std::uint64_t file_offset = 0;

  static SharedBytes own(std::vector<std::uint8_t> bytes);
  // view[at, at + size), still shared (the caller checks the range).
  SharedBytes part(std::size_t at, std::size_t size) const;
  // Copies view[at, at + out.size()) into `out`. A mapped file's bytes are read from the file
  // instead: the kernel copies them out of its own mapping of the page cache, while touching ours
  // walks the page tables a 4 KiB page at a time, which under a hypervisor is 2.5x slower (a
  // 45 MB module: 10 ms read through a 128 KiB buffer, 24 ms touched where it is mapped).
  Error copy(std::size_t at, std::span<std::uint8_t> out) const;
};

// A byte range of a file, [begin, end).
struct Span {
  std::uint64_t begin = 0, end = 0;
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Fills `out` with the bytes at [offset, offset + out.size()). Reading past size() is an error.
  virtual Error read(std::uint64_t offset, std::span<std::uint8_t> out) = 0;
  // For messages: a file name or URL.
  virtual const std::string& name() const = 0;

  // Convenience: read `length` bytes into a new buffer.
  Result<std::vector<std::uint8_t>> read_vector(std::uint64_t offset, std::uint64_t length);
  // The whole source, when it is bytes already in memory: a reader may then decode them where
  // they lie instead of copying them out. Nothing for sources read on demand.
  virtual std::optional<std::span<const std::uint8_t>> in_memory() const { return std::nullopt; }
  // The whole source as bytes that outlive it, when it can give them without a copy.
  virtual std::optional<SharedBytes> shared() const { return std::nullopt; }
  // The same for a mapped file, without reading it in first: a reader that walks it once, piece
  // by piece, lets each piece go with release_pages() (a 1 GB module read in a few MB).
  virtual std::optional<SharedBytes> mapped() const { return std::nullopt; }
  // A hint from a reader that streams: it will not read [begin, end) again, so a mapped file may
  // let those pages go (a 1 GB document read once need not stay resident).
  virtual void release(std::uint64_t /*begin*/, std::uint64_t /*end*/) {}
  // A hint from a reader that walks ahead of its reads: it will read [begin, end) once the walk is
  // done, so a source that fetches on demand may bring those bytes with the next miss.
  virtual void will_read(std::uint64_t /*begin*/, std::uint64_t /*end*/) {}
  // An Errc::truncated error when the range is outside the source: checked before allocating
  // for a length the input claims.
  Error check_range(std::uint64_t offset, std::uint64_t length) const;

};

// Lets the whole pages inside `bytes` (a part of a mapped() file) go from memory: the file's
// bytes stay in the page cache, and touching them again maps them again. Nothing elsewhere.
void release_pages(std::span<const std::uint8_t> bytes);

// The whole source: shared where it can be (shared()), else read into a buffer of its own.
Result<SharedBytes> read_shared(ByteSource& source);

// Bytes already in memory: owned (a dropped file copied into the worker) or borrowed.
class MemorySource final : public ByteSource {
 public:
  MemorySource(std::vector<std::uint8_t> bytes, std::string name);
  MemorySource(std::span<const std::uint8_t> bytes, std::string name);  // caller keeps bytes alive

  std::uint64_t size() const override { return view_.size(); }
  Error read(std::uint64_t offset, std::span<std::uint8_t> out) override;
  const std::string& name() const override { return name_; }
  std::span<const std::uint8_t> bytes() const { return view_; }
  std::optional<std::span<const std::uint8_t>> in_memory() const override { return view_; }
  std::optional<SharedBytes> shared() const override;

 private:
  std::shared_ptr<const std::vector<std::uint8_t>> owned_;
  std::span<const std::uint8_t> view_;
  std::string name_;
};

// A local file read on demand; nothing is loaded up front. Natively a regular file is mapped into
// memory, so readers decode it where it lies and a document keeps it without a copy; the page
// cache holds it once. read() copies with pread, not out of the mapping (SharedBytes::copy says
// why). (A file cut short by another program while mapped would fault where it is decoded in
// place; a viewer reads files nobody is writing, and the speed is worth that. read() says so
// instead.) Elsewhere, and where mapping fails, it is read with stdio.
class FileSource final : public ByteSource {
 public:
  static Result<std::unique_ptr<FileSource>> open(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  std::uint64_t size() const override { return size_; }
  Error read(std::uint64_t offset, std::span<std::uint8_t> out) override;
  const std::string& name() const override { return name_; }
  // The name readers see, where it is not the path opened: a file's path under the folder its
  // references are looked up in, so "models/a.e3d" finds its textures in "models/".
  void rename(std::string name) { name_ = std::move(name); }
  std::optional<std::span<const std::uint8_t>> in_memory() const override;
  std::optional<SharedBytes> shared() const override;
  std::optional<SharedBytes> mapped() const override;
  void release(std::uint64_t begin, std::uint64_t end) override;

 private:
  FileSource(std::FILE* file, std::uint64_t size, std::string path)
      : file_(file), size_(size), path_(std::move(path)), name_(path_) {}
  std::FILE* file_;  // null when mapped
  std::uint64_t size_;
  std::string path_, name_;
  std::shared_ptr<const std::uint8_t> mapped_;  // unmaps and closes when the last holder lets go
  int mapped_file_ = -1;                        // open as long as mapped_
};

}  // namespace sceneria
