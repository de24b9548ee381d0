#include "io/read_ahead_source.hpp"

#include <algorithm>
#include <cstring>

namespace sceneria {

ReadAheadSource::ReadAheadSource(ByteSource& inner, std::uint64_t block, std::uint64_t max_cached)
    : inner_(inner), block_(block), max_cached_(max_cached) {}

Error ReadAheadSource::read(std::uint64_t offset, std::span<std::uint8_t> out) {
  if (Error e = check_range(offset, out.size())) return e;
  std::uint64_t at = offset;
  std::size_t done = 0;
  while (done < out.size()) {
    // A cached run covering `at`?
    auto it = runs_.upper_bound(at);
    if (it != runs_.begin()) {
      auto prev = std::prev(it);
      const std::uint64_t run_end = prev->first + prev->second.size();
      if (at < run_end) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(run_end - at, out.size() - done));
        std::memcpy(out.data() + done, prev->second.data() + (at - prev->first), n);
        done += n;
        at += n;
        continue;
      }
    }
    // Miss: fetch from `at` at least a block, up to the next cached run or the end of the file.
    std::uint64_t limit = size();
    if (it != runs_.end()) limit = std::min(limit, it->first);
    const std::uint64_t want = std::max<std::uint64_t>(out.size() - done, block_);
    const std::uint64_t length = std::min(want, limit - at);
    std::vector<std::uint8_t> run(static_cast<std::size_t>(length));
    if (Error e = inner_.read(at, run)) return e;
    ++requests_;
    bytes_fetched_ += length;
    if (cached_ + length > max_cached_) {  // a bounded cache: start over rather than grow
      runs_.clear();
      cached_ = 0;
    }
    cached_ += length;
    runs_.emplace(at, std::move(run));
  }
  return {};
}

}  // namespace sceneria
