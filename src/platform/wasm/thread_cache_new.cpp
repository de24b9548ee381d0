// The global operator new and delete of the WebAssembly builds: a small per-thread cache of freed
// blocks in front of malloc.
//
// Why: with pthreads, Emscripten 3.1.6's dlmalloc (and emmalloc alike) takes a lock on every
// malloc and free. Measured on our machines (Node 20, optimised code): a new/delete pair costs
// 35-39 ns in a pthread build, 11 ns in the same build without threads and 9-10 ns natively, so
// readers that allocate per record (polygons, chunks, map nodes) ran at 0.5-0.7x
// native speed. Here a freed block of up to kLargestCached bytes goes onto its size class's list
// in the freeing thread, and the next allocation of that class there takes it back with no lock
// (6 ns a pair). docs/performance.md has the numbers.
//
// Blocks of 257 bytes to 32 KiB (a reader's lists: a block's polygons, a chunk's words, the
// vectors growing by doubling) are cached too, in classes two to a doubling (384, 512, 768, ...,
// 32 KiB: at most a third of a block unused): 68 locked mallocs per read of a 41 KB model sample
// were a third of its read's gap to native code.
//
// Every block carries a header with its size class (0: not cached, straight back to free()), so
// a block freed on another thread than the one that allocated it is simply cached there. A list
// keeps at most kKept blocks and at most kKeptBytes of them (about 3 MB per thread in all), and a
// thread that ends gives what it holds back to malloc. Only operator new is served here:
// malloc()'s own callers (Emscripten's JS glue, C code) are unchanged.
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kHeader = 16;  // keeps malloc's alignment for what follows it
constexpr std::size_t kGranule = 16;
constexpr std::size_t kSmallClasses = 16;  // sizes 1-16, 17-32, ..., 241-256 bytes
constexpr std::size_t kLargestSmall = kSmallClasses * kGranule;
// Then 257-384, 385-512, 513-768, ..., 24577-32768 bytes.
constexpr std::size_t kLargestCached = 32768;
constexpr std::size_t kClasses = kSmallClasses + 14;
constexpr unsigned kKept = 512;
constexpr std::size_t kKeptBytes = 128 * 1024;  // per class: 512 blocks of 256 bytes, 4 of 32 KiB

constexpr std::size_t size_of_class(std::size_t c) {
  if (c <= kSmallClasses) return c * kGranule;
  const std::size_t k = c - kSmallClasses - 1;            // 0, 1, 2, ...
  const std::size_t power = std::size_t{256} << (k / 2);  // 256, 256, 512, 512, ...
  return k % 2 == 0 ? power + power / 2 : 2 * power;
}
static_assert(size_of_class(kSmallClasses + 1) == 384 && size_of_class(kSmallClasses + 2) == 512 && size_of_class(kClasses) == kLargestCached);

constexpr unsigned kept_of_class(std::size_t c) {
  const std::size_t by_bytes = kKeptBytes / size_of_class(c);
  return by_bytes < kKept ? static_cast<unsigned>(by_bytes) : kKept;
}

struct FreeBlock {
  FreeBlock* next;
};

unsigned char* header_of(void* block) { return static_cast<unsigned char*>(block) - kHeader; }

struct ThreadCache {
  FreeBlock* head[kClasses + 1] = {};
  unsigned count[kClasses + 1] = {};
  bool closed = false;  // the thread is ending: blocks freed from now on go straight to free()

  ~ThreadCache() {
    closed = true;
    for (std::size_t c = 1; c <= kClasses; ++c)
      while (FreeBlock* b = head[c]) {
        head[c] = b->next;
        std::free(header_of(b));
      }
  }
};

thread_local ThreadCache cache;

std::size_t class_of(std::size_t n) {
  if (n <= kLargestSmall) return n == 0 ? 1 : (n + kGranule - 1) / kGranule;
  if (n > kLargestCached) return 0;
  // The power of two at or above n, and the class half-way below it where n fits there.
  const unsigned bits = 32 - static_cast<unsigned>(__builtin_clz(static_cast<unsigned>(n - 1)));  // 9 for 257-512
  const std::size_t power = std::size_t{1} << bits, k = 2 * (bits - 9) + 1;  // k: the class of `power`
  return kSmallClasses + 1 + (n <= power / 2 + power / 4 ? k - 1 : k);
}

void* allocate(std::size_t n) noexcept {
  const std::size_t c = class_of(n);
  if (c != 0) {
    if (FreeBlock* b = cache.head[c]) {
      cache.head[c] = b->next;
      --cache.count[c];
      return b;
    }
  }
  const std::size_t bytes = c != 0 ? size_of_class(c) : n;
  if (bytes > static_cast<std::size_t>(-1) - kHeader) return nullptr;
  auto* p = static_cast<unsigned char*>(std::malloc(bytes + kHeader));
  if (p == nullptr) return nullptr;
  *reinterpret_cast<std::size_t*>(p) = c;
  return p + kHeader;
}

void release(void* q) noexcept {
  if (q == nullptr) return;
  unsigned char* p = header_of(q);
  const std::size_t c = *reinterpret_cast<const std::size_t*>(p);
  if (c != 0 && !cache.closed && cache.count[c] < kept_of_class(c)) {
    auto* b = static_cast<FreeBlock*>(q);
    b->next = cache.head[c];
    cache.head[c] = b;
    ++cache.count[c];
    return;
  }
  std::free(p);
}

// As the standard's operator new: the new-handler is asked for memory until there is some or
// there is no handler, and then std::bad_alloc.
void* allocate_or_throw(std::size_t n) {
  for (;;) {
    if (void* p = allocate(n)) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

void* operator new(std::size_t n) { return allocate_or_throw(n); }
void* operator new[](std::size_t n) { return allocate_or_throw(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
