#pragma once
// Work split in a few shares run at once: share 0 on the calling thread, the others on threads of
// their own, all joined before the call returns. Where no thread can be started (a WebAssembly
// module without a free worker), the caller runs every share itself: the same result, later.
#include <atomic>
#include <cstddef>
#include <system_error>
#include <algorithm>
#include <thread>
#include <vector>

namespace sceneria {

template <class F>
void run_shares(unsigned shares, F&& share) {
  std::vector<std::thread> threads;
  unsigned started = 1;
  try {
    for (; started < shares; ++started) threads.emplace_back([&share, started] { share(started); });
  } catch (const std::system_error&) {
  }
  share(0u);
  for (std::thread& t : threads) t.join();
  for (unsigned k = started; k < shares; ++k) share(k);
}

// Items 0..count-1 shared among up to `threads`, each taking the next item not yet taken: put the
// biggest first and the threads end together.
template <class F>
void for_each_claimed(unsigned threads, std::size_t count, F&& item) {
  std::atomic<std::size_t> next{0};
  const unsigned n = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, threads), count));
  run_shares(n, [&](unsigned) {
    for (std::size_t i; (i = next++) < count;) item(i);
  });
}

}  // namespace sceneria
