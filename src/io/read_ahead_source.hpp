#pragma once
// A ByteSource over a slow one (HTTP Range, a dropped File): misses fetch at least `block` bytes
// and the blocks are kept, so a reader's many small reads (an 8-byte chunk header here, a count
// there) become a few ranged requests. Counts requests and bytes, which is how streaming proves
// it fetched a small part of a big file.
#include <cstdint>
#include <vector>

#include "io/byte_source.hpp"
#include "io/run_cache.hpp"

namespace sceneria {

class ReadAheadSource final : public ByteSource {
 public:
  explicit ReadAheadSource(ByteSource& inner, std::uint64_t block = 64 * 1024,
                           std::uint64_t max_cached = 64ull * 1024 * 1024);

  std::uint64_t size() const override { return inner_.size(); }
  Error read(std::uint64_t offset, std::span<std::uint8_t> out) override;
  const std::string& name() const override { return inner_.name(); }

  std::uint64_t requests() const { return requests_; }
  std::uint64_t bytes_fetched() const { return bytes_fetched_; }

 private:
  RunCache cache_;
  ByteSource& inner_;
  std::uint64_t block_;
  std::uint64_t max_cached_;
  std::uint64_t requests_ = 0;
  std::uint64_t bytes_fetched_ = 0;
};

}  // namespace sceneria
