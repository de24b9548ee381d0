#pragma once
// A few threads running queued jobs. In the browser these are pthreads (Web Workers) owned by
// the parse worker's WebAssembly instance, so heavy decoding never runs on the page's thread nor
// blocks the parse worker's message loop.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sceneria {

class TaskPool {
 public:
  explicit TaskPool(unsigned threads);
  ~TaskPool();  // drops jobs not started, waits for the running ones
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Queues a job; where no thread could be started, runs it at once on the caller.
  void submit(std::function<void()> job);
  unsigned threads() const { return static_cast<unsigned>(threads_.size()); }

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace sceneria
