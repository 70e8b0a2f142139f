#include "executor/runtime/thread_pool.h"

#include <algorithm>

namespace graphd::executor {

ThreadPool::ThreadPool(int num_threads) : num_threads_(num_threads < 1 ? 1 : num_threads) {
  {
    absl::MutexLock lock(&mu_);
    workers_.resize(num_threads_);
  }
  threads_.reserve(num_threads_);
  for (int i = 0; i < num_threads_; ++i) threads_.emplace_back([this, i] { WorkerLoop(i); });
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
  DispatchLocked();
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
  DispatchLocked();
}

void ThreadPool::DispatchLocked() {
  while (!queue_.empty() && running_ < num_threads_ && !idle_.empty()) {
    Worker& w = workers_[idle_.back()];
    idle_.pop_back();
    w.task = std::move(queue_.front());
    w.has_task = true;
    queue_.pop_front();
    ++running_;
  }
}

void ThreadPool::WorkerLoop(int index) {
  absl::MutexLock lock(&mu_);
  Worker& self = workers_[index];
  while (true) {
    idle_.push_back(index);
    DispatchLocked();  // queued work goes to this worker first: it is the most recent
    auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return self.has_task || (stopping_ && queue_.empty()); };
    mu_.Await(absl::Condition(&ready));
    if (!self.has_task) {  // stopping and drained
      idle_.erase(std::find(idle_.begin(), idle_.end(), index));
      return;
    }
    std::function<void()> fn = std::move(self.task);
    self.task = nullptr;
    self.has_task = false;
    mu_.Unlock();
    fn();
    fn = nullptr;  // destroy captured state outside the lock too
    mu_.Lock();
    --running_;
  }
}

}  // namespace graphd::executor
