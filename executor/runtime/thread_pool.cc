#include "executor/runtime/thread_pool.h"

namespace graphd::executor {

ThreadPool::ThreadPool(int num_threads) : num_threads_(num_threads < 1 ? 1 : num_threads) {
  threads_.reserve(num_threads_);
  for (int i = 0; i < num_threads_; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::Schedule(std::function<void()> fn) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(fn));
}

int ThreadPool::queued() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(queue_.size());
}

bool ThreadPool::TryBeginInline() {
  absl::MutexLock lock(&mu_);
  if (stopping_ || !queue_.empty() || running_ >= num_threads_) return false;
  ++running_;
  return true;
}

void ThreadPool::EndInline() {
  absl::MutexLock lock(&mu_);
  --running_;
}

void ThreadPool::WorkerLoop() {
  while (true) {
    std::function<void()> fn;
    {
      absl::MutexLock lock(&mu_);
      // Queued work starts only while fewer than num_threads_ tasks run (inline ones count).
      auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return (stopping_ && queue_.empty()) || (!queue_.empty() && running_ < num_threads_);
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // stopping and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    fn();
    absl::MutexLock lock(&mu_);
    --running_;
  }
}

}  // namespace graphd::executor
