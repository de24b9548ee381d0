#pragma once
// The bytes of a remote file fetched so far. A read of anything else fails and remembers the range
// it needed, so a reader can run over a file it has only partly and say what to fetch next: the
// caller fetches it (HTTP Range in the browser worker, a test's fake server natively) and runs the
// reader again. Nothing here does I/O.
#include <map>
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
  void will_read(std::uint64_t begin, std::uint64_t end) override {
    if (begin < end) will_read_[end] = begin;
  }
  // Where a fetch for a miss at `at` should begin: at `at`, or earlier where a span the reader
  // will read (will_read) ends at `at` and is not all fetched. A walk that stepped over a payload
  // it will decode, and then misses the header behind it, gets both in one fetch.
  std::uint64_t fetch_from(std::uint64_t at) const {
    auto it = will_read_.find(at);
    return it == will_read_.end() ? at : runs_.first_gap(it->second, at);
  }
  // Copies what has been fetched from `offset` on, up to the first gap; returns how much.
  std::size_t copy_available(std::uint64_t offset, std::span<std::uint8_t> out) const { return runs_.copy(offset, out); }
  void clear() {
    runs_.clear();
    will_read_.clear();
  }

 private:
  RunCache runs_;
  std::uint64_t size_;
  std::string name_;
  std::optional<Span> needed_;
  std::map<std::uint64_t, std::uint64_t> will_read_;  // end -> begin
};

}  // namespace sceneria
