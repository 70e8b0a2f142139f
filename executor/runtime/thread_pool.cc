#include "executor/runtime/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

namespace graphd::executor {

ThreadPool::ThreadPool(int num_threads, Runner runner, bool lead_tasks)
    : num_threads_(num_threads < 1 ? 1 : num_threads),
      runner_(std::move(runner)),
      lead_tasks_enabled_(lead_tasks),
      signaled_(std::make_unique<bool[]>(num_threads_)) {
  threads_.reserve(num_threads_);
  for (int i = 0; i < num_threads_; ++i) threads_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    for (int id : idle_) signaled_[id] = true;
    idle_.clear();
  }
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::WakeOne() {
  if (idle_.empty() || running_ >= num_threads_) return;
  auto zero = std::find(idle_.begin(), idle_.end(), 0);
  auto it = idle_.end();
  if (zero != idle_.end() && (!lead_tasks_.empty() || queued_ > 0)) {
    it = zero;  // a lead task (worker 0's alone), or worker 0 idle first
  } else if (queued_ > 0) {
    it = idle_.end() - 1;  // the worker that went idle last
  }
  if (it == idle_.end()) return;
  signaled_[*it] = true;
  idle_.erase(it);
}

void ThreadPool::Schedule(uint64_t flow, int64_t weight, std::function<void()> fn) {
  absl::MutexLock lock(&mu_);
  auto [it, fresh] = flows_.try_emplace(flow);
  Flow& f = it->second;
  // A flow that was idle starts at the virtual time; a busy one after its last task.
  const double start = fresh ? virtual_time_ : std::max(virtual_time_, f.last_start + 1.0 / std::max<int64_t>(weight, 1));
  f.last_start = start;
  f.tasks.push_back(Task{start, next_seq_++, std::move(fn)});
  ++queued_;
  WakeOne();
}

void ThreadPool::ScheduleLead(std::function<void()> fn) {
  if (!lead_tasks_enabled_) return Schedule(std::move(fn));
  absl::MutexLock lock(&mu_);
  lead_tasks_.push_back(std::move(fn));
  WakeOne();
}

std::function<void()> ThreadPool::TakeFor(int id, bool& lead) {
  lead = false;
  if (running_ >= num_threads_) return nullptr;
  // The last free slot goes to a lead task that waits for it, when worker 0 is idle.
  if (id != 0 && !lead_tasks_.empty() && running_ + 1 >= num_threads_ &&
      std::find(idle_.begin(), idle_.end(), 0) != idle_.end()) {
    return nullptr;
  }
  // Once worker 0 has left (the pool is stopping), any worker drains them.
  if ((id == 0 || lead_gone_) && !lead_tasks_.empty()) {
    std::function<void()> fn = std::move(lead_tasks_.front());
    lead_tasks_.pop_front();
    lead = true;
    return fn;
  }
  return queued_ > 0 ? TakeNext() : nullptr;
}

std::function<void()> ThreadPool::TakeNext() {
  auto best = flows_.end();
  for (auto it = flows_.begin(); it != flows_.end(); ++it) {
    const Task& head = it->second.tasks.front();
    if (best == flows_.end()) {
      best = it;
      continue;
    }
    const Task& current = best->second.tasks.front();
    if (head.start < current.start || (head.start == current.start && head.seq < current.seq)) best = it;
  }
  Task task = std::move(best->second.tasks.front());
  best->second.tasks.pop_front();
  if (best->second.tasks.empty()) flows_.erase(best);
  --queued_;
  virtual_time_ = std::max(virtual_time_, task.start);
  return std::move(task.fn);
}

int ThreadPool::queued() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(queued_ + lead_tasks_.size());
}

bool ThreadPool::TryBeginInline() {
  absl::MutexLock lock(&mu_);
  if (stopping_ || queued_ > 0 || running_ >= num_threads_) return false;
  if (!lead_tasks_.empty() && running_ + 1 >= num_threads_) return false;  // the last slot: worker 0's
  ++running_;
  running_now_.store(running_, std::memory_order_relaxed);
  return true;
}

void ThreadPool::EndInline() {
  absl::MutexLock lock(&mu_);
  --running_;
  running_now_.store(running_, std::memory_order_relaxed);
  WakeOne();
}

void ThreadPool::RunInline(const std::function<void()>& task) const {
  if (runner_) {
    runner_(*this, false, task);
  } else {
    task();
  }
}

void ThreadPool::WorkerLoop(int id) {
  // Named for top -H, perf and gdb (15 characters at most).
  pthread_setname_np(pthread_self(), "graphd-worker");
  absl::MutexLock lock(&mu_);
  while (true) {
    // Queued work starts only while fewer than num_threads_ tasks run (inline ones count).
    bool lead = false;
    if (std::function<void()> fn = TakeFor(id, lead)) {
      ++running_;
      running_now_.store(running_, std::memory_order_relaxed);
      if (lead) WakeOne();  // its wake-up went to worker 0: queued work needs another worker
      mu_.Unlock();
      if (runner_) {
        runner_(*this, id == 0, fn);
      } else {
        fn();
      }
      fn = nullptr;  // the task's captures go before the lock is taken again
      mu_.Lock();
      --running_;
      running_now_.store(running_, std::memory_order_relaxed);
      continue;
    }
    WakeOne();  // a lead task that waited for a free slot: worker 0 may be idle
    // Stopping: each leaves when nothing it may run is queued (lead tasks are worker
    // 0's until it has left).
    if (stopping_ && queued_ == 0 && (lead_tasks_.empty() || (id != 0 && !lead_gone_))) {
      if (id == 0) lead_gone_ = true;
      // A worker that slept while every slot was taken (inline tasks) is woken once
      // by the destructor only: each one leaving wakes the rest to look again.
      for (int w : idle_) signaled_[w] = true;
      idle_.clear();
      return;
    }
    signaled_[id] = false;
    idle_.push_back(id);
    mu_.Await(absl::Condition(&signaled_[id]));
  }
}

}  // namespace graphd::executor
