#pragma once
// The bytes of a remote file fetched so far. A read of anything else fails and remembers the range
// it needed, so a reader can run over a file it has only partly and say what to fetch next: the
// caller fetches it (HTTP Range in the browser worker, a test's fake server natively) and runs the
// reader again. Nothing here does I/O.
#include <optional>
#include <string>
#include <vector>

#include "io/byte_source.hpp"
#include "io/run_cache.hpp"

namespace sceneria {

class PrefetchSource final : public ByteSource {
 public:
  PrefetchSource(std::uint64_t size, std::string name) : size_(size), name_(std::move(name)) {}
  void add(std::uint64_t offset, std::vector<std::uint8_t> bytes) {
    if (!bytes.empty()) runs_.add(offset, std::move(bytes));
  }
  std::uint64_t size() const override { return size_; }
  Error read(std::uint64_t offset, std::span<std::uint8_t> out) override;
  const std::string& name() const override { return name_; }
  std::optional<Span> needed() const { return needed_; }
  void clear_needed() { needed_.reset(); }
  // Copies what has been fetched from `offset` on, up to the first gap; returns how much.
  std::size_t copy_available(std::uint64_t offset, std::span<std::uint8_t> out) const { return runs_.copy(offset, out); }
  void clear() { runs_.clear(); }

 private:
  RunCache runs_;
  std::uint64_t size_;
  std::string name_;
  std::optional<Span> needed_;
};

}  // namespace sceneria
