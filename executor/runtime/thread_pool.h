// A fixed-size pool of worker threads for session work (runs, compiles), so that gRPC
// threads only translate requests. Thread-safe. The destructor waits for queued work.
//
// At most num_threads() tasks run at once, counting those a caller runs on its own
// thread between TryBeginInline() and EndInline(): a short task may skip the hand-off
// to a worker (a wake-up of tens of microseconds) while the pool's concurrency limit
// and the order of queued work stay as they are.
#ifndef GRAPHD_EXECUTOR_RUNTIME_THREAD_POOL_H_
#define GRAPHD_EXECUTOR_RUNTIME_THREAD_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace graphd::executor {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> fn);
  int num_threads() const { return num_threads_; }
  // Work queued but not yet started.
  int queued() const;

  // True when nothing is queued and fewer than num_threads() tasks run: the caller
  // may then run one task itself and must call EndInline() when it is done. Until
  // then the task counts as running (a worker stays idle in its place).
  bool TryBeginInline();
  void EndInline();

 private:
  void WorkerLoop();

  const int num_threads_;
  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;  // tasks started, on workers or inline
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_RUNTIME_THREAD_POOL_H_
