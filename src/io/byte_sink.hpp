#pragma once
// Where a writer's bytes go: a vector, a file, or (in the browser) pieces handed to JavaScript.
// A writer that streams never holds its whole output, so a 1 GB export needs no 1 GB buffer.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sceneria {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Appends `bytes`. After an error the sink takes nothing more and repeats that error.
  virtual Error put(std::span<const std::uint8_t> bytes) = 0;
  Error put(std::string_view text) {
    return put(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  }
  std::uint64_t written() const { return written_; }
  // Overwrites bytes already put (a header whose lengths are known only at the end, as a .glb's);
  // only where can_patch() says so.
  virtual bool can_patch() const { return false; }
  virtual Error patch(std::uint64_t offset, std::span<const std::uint8_t> bytes) {
    (void)offset, (void)bytes;
    return Error{Errc::bad_value, 0, "this output cannot be rewritten in place"};
  }
  // Ends the output (a file is flushed and closed); the first error met, if any.
  virtual Error close() { return {}; }

 protected:
  std::uint64_t written_ = 0;
};

class VectorByteSink final : public ByteSink {
 public:
  explicit VectorByteSink(std::vector<std::uint8_t>& out) : out_(out) {}
  Error put(std::span<const std::uint8_t> bytes) override {
    out_.insert(out_.end(), bytes.begin(), bytes.end());
    written_ += bytes.size();
    return {};
  }
  using ByteSink::put;
  bool can_patch() const override { return true; }
  Error patch(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;

 private:
  std::vector<std::uint8_t>& out_;
};

// Counts what is put and keeps none of it (a pass that only measures).
class CountingByteSink final : public ByteSink {
 public:
  Error put(std::span<const std::uint8_t> bytes) override {
    written_ += bytes.size();
    return {};
  }
  using ByteSink::put;
};

// Text gathered in a string (a piece of a document written on another thread).
class StringByteSink final : public ByteSink {
 public:
  Error put(std::span<const std::uint8_t> bytes) override {
    text.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    written_ += bytes.size();
    return {};
  }
  using ByteSink::put;
  std::string text;
};

// A file written from the start (or standard output with "-").
class FileByteSink final : public ByteSink {
 public:
  static Result<std::unique_ptr<FileByteSink>> create(const std::string& path);
  ~FileByteSink() override;
  FileByteSink(const FileByteSink&) = delete;
  FileByteSink& operator=(const FileByteSink&) = delete;
  Error put(std::span<const std::uint8_t> bytes) override;
  using ByteSink::put;
  bool can_patch() const override { return file_ != stdout; }  // a pipe cannot seek
  Error patch(std::uint64_t offset, std::span<const std::uint8_t> bytes) override;
  // Flushes and closes; the error a buffered write met, if any.
  Error close() override;

 private:
  FileByteSink(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  std::FILE* file_;
  std::string path_;
  Error error_;
};

}  // namespace sceneria
