#pragma once
// Byte runs of a file already fetched, kept by offset (runs never overlap). Shared by the sources
// that sit in front of slow reads (ReadAheadSource, streaming's PrefetchSource).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <span>
#include <vector>

namespace sceneria {

class RunCache {
 public:
  void add(std::uint64_t offset, std::vector<std::uint8_t> bytes) {
    bytes_ += bytes.size();
    runs_[offset] = std::move(bytes);
  }
  void clear() {
    runs_.clear();
    bytes_ = 0;
  }
  std::uint64_t bytes() const { return bytes_; }

  // Copies what the runs hold from `offset` on into `out` (stopping at the first gap); returns
  // how many bytes it copied.
  std::size_t copy(std::uint64_t offset, std::span<std::uint8_t> out) const {
    std::size_t done = 0;
    while (done < out.size()) {
      auto it = runs_.upper_bound(offset + done);
      if (it == runs_.begin()) break;
      auto prev = std::prev(it);
      const std::uint64_t at = offset + done, run_end = prev->first + prev->second.size();
      if (at >= run_end) break;
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(run_end - at, out.size() - done));
      std::memcpy(out.data() + done, prev->second.data() + (at - prev->first), n);
      done += n;
    }
    return done;
  }

  // The first byte of [begin, end) no run holds (`end` when they hold them all).
  std::uint64_t first_gap(std::uint64_t begin, std::uint64_t end) const {
    std::uint64_t at = begin;
    while (at < end) {
      auto it = runs_.upper_bound(at);
      if (it == runs_.begin()) return at;
      auto prev = std::prev(it);
      const std::uint64_t run_end = prev->first + prev->second.size();
      if (run_end <= at) return at;
      at = run_end;
    }
    return end;
  }

  // Where the next cached run after `offset` starts (or `limit`): a fetch at `offset` need not go
  // further.
  std::uint64_t next_run(std::uint64_t offset, std::uint64_t limit) const {
    auto it = runs_.upper_bound(offset);
    return it == runs_.end() ? limit : std::min(limit, it->first);
  }

 private:
  std::map<std::uint64_t, std::vector<std::uint8_t>> runs_;
  std::uint64_t bytes_ = 0;
};

}  // namespace sceneria
