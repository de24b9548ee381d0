#pragma once
// Jobs worked on side by side, their results taken in the order the jobs were given, with at most
// `window` of them given and not yet taken: a long list (a dump's PACK sections) made on every
// core with memory that does not grow with the list.
//
// The calling thread gives the jobs, takes the results, and runs queued jobs itself whenever it
// would otherwise wait. So where no thread can be had at once (a WebAssembly module whose pthread
// pool is busy starts a thread only when the event loop next runs) everything still gets done,
// on the caller, in order; such a thread finds nothing left and ends. The threads share the
// queue through a shared state they keep alive, so the object may go before they do.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace sceneria {

template <class R>
class OrderedWork {
 public:
  // Takes each result in order; returning false stops the work (jobs not yet started are dropped
  // and their results never taken).
  using Take = std::function<bool(R&&)>;

  // `threads`: how many may run jobs at once, the caller's included (1: the caller does all).
  OrderedWork(unsigned threads, std::size_t window, Take take)
      : state_(std::make_shared<State>()), window_(window < 1 ? 1 : window), take_(std::move(take)) {
    for (unsigned t = 1; t < threads; ++t) {
      try {
        threads_.emplace_back([state = state_] { state->work(); });
      } catch (const std::system_error&) {
        break;  // fewer threads; the caller makes up for them
      }
    }
  }
  ~OrderedWork() {
    if (!finished_) finish();
  }
  OrderedWork(const OrderedWork&) = delete;
  OrderedWork& operator=(const OrderedWork&) = delete;

  // Queues a job (ignored once stopped), first taking what is ready and, while `window` jobs are
  // outstanding, running queued ones or waiting.
  void submit(std::function<R()> job) {
    for (;;) {
      if (!take_ready()) return;
      std::unique_lock lock(state_->mutex);
      if (given_ - taken_ < window_) {
        state_->queue.push_back({given_++, std::move(job)});
        state_->results.emplace_back();
        lock.unlock();
        state_->work_ready.notify_one();
        return;
      }
      help_or_wait(lock);
    }
  }

  // Takes every result in order, then lets the threads go; false if a take stopped the work.
  bool finish() {
    if (finished_) return !stopped_;
    while (take_ready() && taken_ < given_) {
      std::unique_lock lock(state_->mutex);
      if (!state_->results.empty() && state_->results.front()) continue;
      help_or_wait(lock);
    }
    {
      std::unique_lock lock(state_->mutex);
      state_->closing = true;
      state_->queue.clear();
      state_->work_ready.notify_all();
      // Jobs already running may refer to what the caller owns: they end before we return.
      state_->result_ready.wait(lock, [&] { return state_->running == 0; });
    }
    for (std::thread& t : threads_) {
#ifdef __EMSCRIPTEN__
      t.detach();  // it may not have started yet, and cannot until the caller's event loop runs
#else
      t.join();
#endif
    }
    threads_.clear();
    finished_ = true;
    return !stopped_;
  }
  bool stopped() const { return stopped_; }

 private:
  struct Job {
    std::size_t index;
    std::function<R()> run;
  };
  struct State {
    std::mutex mutex;
    std::condition_variable work_ready, result_ready;
    std::deque<Job> queue;
    std::deque<std::optional<R>> results;  // results[0] is the next to take
    std::size_t first_result = 0;          // the index of results[0]
    unsigned running = 0;
    bool closing = false;

    // Runs the queue's first job with the lock released, then stores its result.
    void run_one(std::unique_lock<std::mutex>& lock) {
      Job job = std::move(queue.front());
      queue.pop_front();
      ++running;
      lock.unlock();
      std::optional<R> result(job.run());
      lock.lock();
      results[job.index - first_result] = std::move(result);
      --running;
      result_ready.notify_all();
    }
    void work() {
      std::unique_lock lock(mutex);
      for (;;) {
        work_ready.wait(lock, [&] { return closing || !queue.empty(); });
        if (queue.empty()) return;
        run_one(lock);
      }
    }
  };

  // With the lock held: runs a queued job, or else waits for a running one to finish.
  void help_or_wait(std::unique_lock<std::mutex>& lock) {
    if (!state_->queue.empty()) state_->run_one(lock);
    else if (state_->running > 0) state_->result_ready.wait(lock);
  }
  // Hands over the finished results at the front, in order; false once stopped.
  bool take_ready() {
    while (!stopped_) {
      std::optional<R> result;
      {
        std::lock_guard lock(state_->mutex);
        if (state_->results.empty() || !state_->results.front()) return true;
        result = std::move(state_->results.front());
        state_->results.pop_front();
        ++state_->first_result;
      }
      ++taken_;
      if (!take_(std::move(*result))) {
        stopped_ = true;
        std::lock_guard lock(state_->mutex);
        state_->queue.clear();
      }
    }
    return false;
  }

  std::shared_ptr<State> state_;
  std::size_t window_;
  Take take_;
  std::vector<std::thread> threads_;
  std::size_t given_ = 0, taken_ = 0;
  bool stopped_ = false, finished_ = false;
};

}  // namespace sceneria
