#include "io/read_ahead_source.hpp"

#include <algorithm>

namespace sceneria {

ReadAheadSource::ReadAheadSource(ByteSource& inner, std::uint64_t block, std::uint64_t max_cached)
    : inner_(inner), block_(block), max_cached_(max_cached) {}

Error ReadAheadSource::read(std::uint64_t offset, std::span<std::uint8_t> out) {
  if (Error e = check_range(offset, out.size())) return e;
  std::size_t done = 0;
  while ((done += cache_.copy(offset + done, out.subspan(done))) < out.size()) {
    // Miss: fetch from here at least a block, up to the next cached run or the end of the file.
    const std::uint64_t at = offset + done;
    const std::uint64_t limit = cache_.next_run(at, size());
    const std::uint64_t length = std::min(std::max<std::uint64_t>(out.size() - done, block_), limit - at);
    std::vector<std::uint8_t> run(static_cast<std::size_t>(length));
    if (Error e = inner_.read(at, run)) return e;
    ++requests_;
    bytes_fetched_ += length;
    if (cache_.bytes() + length > max_cached_) cache_.clear();  // bounded: start over rather than grow
    cache_.add(at, std::move(run));
  }
  return {};
}

}  // namespace sceneria
