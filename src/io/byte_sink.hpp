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

 private:
  std::vector<std::uint8_t>& out_;
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
  // Flushes and closes; the error a buffered write met, if any.
  Error close();

 private:
  FileByteSink(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  std::FILE* file_;
  std::string path_;
  Error error_;
};

}  // namespace sceneria
