#pragma once
// Work split in a few shares run at once: share 0 on the calling thread, the others on threads of
// their own, all joined before the call returns. Where no thread can be started (a WebAssembly
// module without a free worker), the caller runs every share itself: the same result, later.
#include <exception>
#include <system_error>
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

}  // namespace sceneria
