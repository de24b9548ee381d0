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

 protected:
  // Shared range check for implementations: an Errc::truncated error when the range is outside.
  Error check_range(std::uint64_t offset, std::uint64_t length) const;
};

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

 private:
  std::vector<std::uint8_t> owned_;
  std::span<const std::uint8_t> view_;
  std::string name_;
};

// A local file read on demand with pread-like semantics; nothing is loaded up front.
class FileSource final : public ByteSource {
 public:
  static Result<std::unique_ptr<FileSource>> open(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  std::uint64_t size() const override { return size_; }
  Error read(std::uint64_t offset, std::span<std::uint8_t> out) override;
  const std::string& name() const override { return path_; }

 private:
  FileSource(std::FILE* file, std::uint64_t size, std::string path)
      : file_(file), size_(size), path_(std::move(path)) {}
  std::FILE* file_;
  std::uint64_t size_;
  std::string path_;
};

}  // namespace sceneria
