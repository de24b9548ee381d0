#pragma once
// What every benchmark here measures with: wall time and the heap in use.
#include <malloc.h>

#include <chrono>
#include <cstddef>

namespace sceneria::bench {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Bytes currently allocated on the heap (glibc natively, dlmalloc under Emscripten).
inline std::size_t heap_in_use() {
#ifdef __EMSCRIPTEN__
  return static_cast<std::size_t>(mallinfo().uordblks);
#else
  return mallinfo2().uordblks;
#endif
}

}  // namespace sceneria::bench
