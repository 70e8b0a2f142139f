// A fixed-size pool of worker threads for session work (runs, compiles), so that gRPC
// threads only translate requests. Thread-safe. The destructor waits for queued work.
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
  int num_threads() const { return static_cast<int>(threads_.size()); }
  // Work queued but not yet started.
  int queued() const;

 private:
  void WorkerLoop();

  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_RUNTIME_THREAD_POOL_H_
