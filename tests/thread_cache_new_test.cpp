// The WebAssembly builds' operator new/delete (src/platform/wasm/thread_cache_new.cpp): freed
// blocks of up to 32 KiB are taken back by the next allocation of their size class on the thread that
// freed them, whichever thread allocated them; larger blocks and every size still work as memory.
// Natively the C++ library's own operator new is in place, and the tests skip.
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <new>
#include <set>
#include <thread>
#include <vector>

namespace {

// The cache's own behaviour, in the WebAssembly builds only (natively there is nothing to test,
// and a skipped test counts as a failure in CI).
#ifdef __EMSCRIPTEN__
TEST(ThreadCacheNew, AFreedBlockIsTakenBackByItsSizeClass) {
  void* a = ::operator new(40);
  ::operator delete(a);
  void* other = ::operator new(100);  // another class: not the block just freed
  EXPECT_NE(other, a);
  void* b = ::operator new(33);  // 33-48 bytes: the class of 40
  EXPECT_EQ(b, a);
  ::operator delete(b);
  ::operator delete(other);
  // Last freed, first taken, for as many as were freed.
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i) blocks.push_back(::operator new(200));
  for (void* p : blocks) ::operator delete(p);
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    void* p = ::operator new(193);
    EXPECT_EQ(p, *it);
  }
  for (void* p : blocks) ::operator delete(p);
}

// Lists' blocks of 257 bytes to 32 KiB are cached in classes two to a doubling, and a class
// keeps at most 128 KiB of them.
TEST(ThreadCacheNew, ListSizedBlocksAreCachedTwoClassesToADoubling) {
  void* a = ::operator new(1000);  // 769-1024 bytes
  ::operator delete(a);
  void* other = ::operator new(1100);  // 1025-1536: another class
  EXPECT_NE(other, a);
  void* b = ::operator new(769);
  EXPECT_EQ(b, a);
  ::operator delete(b);
  ::operator delete(other);
  void* c = ::operator new(300);  // 257-384
  ::operator delete(c);
  void* d = ::operator new(385);  // 385-512: not the block of 384
  EXPECT_NE(d, c);
  ::operator delete(d);
  std::thread([] {
    const auto in_use = [] { return static_cast<std::size_t>(mallinfo().uordblks); };
    std::vector<void*> blocks(10);
    const std::size_t before = in_use();
    for (void*& p : blocks) p = ::operator new(30000);  // 24577-32768: four kept
    for (void* p : blocks) ::operator delete(p);
    EXPECT_GE(in_use(), before + 4 * 32768);
    EXPECT_LT(in_use(), before + 5 * 32768);
  }).join();
}

TEST(ThreadCacheNew, BlocksFreedOnAnotherThreadServeThatThread) {
  std::vector<void*> made(300), again(300);
  std::thread maker([&] {
    for (void*& p : made) p = ::operator new(24);
  });
  maker.join();
  std::vector<void*> freed(made);  // sorted ahead: a set's nodes would be blocks of this very class
  std::sort(freed.begin(), freed.end());
  // A thread of its own starts with nothing cached, so the 300 it frees are the 300 it gets.
  std::thread user([&] {
    for (void* p : made) ::operator delete(p);
    for (void*& p : again) p = ::operator new(17);
  });
  user.join();
  for (std::size_t i = 0; i < again.size(); ++i) EXPECT_TRUE(std::binary_search(freed.begin(), freed.end(), again[i])) << i;
  for (void* p : again) ::operator delete(p);
}

TEST(ThreadCacheNew, AThreadThatEndsGivesItsBlocksBack) {
  const auto in_use = [] { return static_cast<std::size_t>(mallinfo().uordblks); };
  const std::size_t before = in_use();
  std::size_t held = 0;
  std::thread worker([&] {
    std::vector<void*> blocks(400);
    for (void*& p : blocks) p = ::operator new(200);
    for (void* p : blocks) ::operator delete(p);  // cached: still allocated as far as malloc knows
    held = in_use();
  });
  worker.join();
  EXPECT_GE(held, before + 400 * 200);
  // The thread's own memory (its stack) is freed a moment after the join, by the main thread.
  for (int wait = 0; wait < 200 && in_use() >= before + 400 * 200 / 4; ++wait) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_LT(in_use(), before + 400 * 200 / 4);
}
#endif

TEST(ThreadCacheNew, EverySizeIsWritableAlignedMemory) {
  std::vector<std::pair<unsigned char*, std::size_t>> blocks;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17}, std::size_t{255}, std::size_t{256},
                        std::size_t{257}, std::size_t{4096}, std::size_t{1} << 20}) {
    auto* p = static_cast<unsigned char*>(::operator new(n));
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % __STDCPP_DEFAULT_NEW_ALIGNMENT__, 0u) << n;
    std::memset(p, static_cast<int>(n & 0xFF), n);
    blocks.push_back({p, n});
  }
  std::set<unsigned char*> distinct;
  for (auto [p, n] : blocks) {
    distinct.insert(p);
    for (std::size_t i = 0; i < n; i += 97) EXPECT_EQ(p[i], static_cast<unsigned char>(n & 0xFF)) << n;
  }
  EXPECT_EQ(distinct.size(), blocks.size());
  for (auto [p, n] : blocks) ::operator delete(p);
  auto* array = new std::uint64_t[1000]();
  EXPECT_EQ(array[999], 0u);
  delete[] array;
  volatile std::size_t too_large = static_cast<std::size_t>(-1) - 8;  // more than memory can hold (volatile: not a constant the compiler warns of)
  EXPECT_EQ(::operator new(too_large, std::nothrow), nullptr);
}

}  // namespace
