// A fixed-size pool of worker threads for session work (runs, compiles), so that gRPC
// threads only translate requests. Thread-safe. The destructor waits for queued work.
//
// Queued work is served by weighted fair queuing across flows (the server uses one
// flow per tenant): each task gets a start tag, the later of the pool's virtual time
// and its flow's previous tag plus 1/weight, and the queued task with the smallest tag
// starts next; within a flow, first come first served. So a flow that queues many
// tasks at once does not hold back another flow's task by more than the tasks already
// running (about one task's length per worker), and flows with twice the weight get
// twice the starts while both have work queued.
//
// At most num_threads() tasks run at once, counting those a caller runs on its own
// thread between TryBeginInline() and EndInline(): a short task may skip the hand-off
// to a worker (a wake-up of tens of microseconds) while the pool's concurrency limit
// and the order of queued work stay as they are.
//
// Work goes to worker 0 when it is idle, else to the worker that went idle last (a
// stack, not a queue of sleepers): one stream of calls keeps landing on the same
// thread, whose OpenMP team (oneDNN's threads, kept per calling thread) is still
// awake. Tasks run through a runner given at construction, told whether the task is
// on worker 0 (the server gives worker 0 the one OpenMP team while no other task runs,
// executor/cpu/team.h, and runs everything else on one thread each).
//
// Lead tasks (ScheduleLead, in a pool made with lead_tasks): work that should run with
// that team, a batch of requests say. Only worker 0 runs them, before any other queued
// task, outside the fair queue (first come, first served); while worker 0 is busy they
// wait even if another worker is idle, and while one waits the last free slot is kept
// for it (no inline task or other worker takes it). Otherwise a batch scheduled while
// worker 0 ran one request's short task ran on another worker, on one thread: on 2
// cores, batched ResNet-18 served 44-47 requests/s against 61-63 with a team per worker.
#ifndef GRAPHD_EXECUTOR_RUNTIME_THREAD_POOL_H_
#define GRAPHD_EXECUTOR_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace graphd::executor {

class ThreadPool {
 public:
  // Runs one task on the calling thread; `lead`: the thread is worker 0 (never for
  // inline tasks). `pool` outlives the call.
  using Runner = std::function<void(const ThreadPool& pool, bool lead, const std::function<void()>& task)>;

  // `runner`: how tasks run (empty: called as they are). `lead_tasks`: ScheduleLead
  // queues for worker 0 alone (else it is Schedule).
  explicit ThreadPool(int num_threads, Runner runner = nullptr, bool lead_tasks = false);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `fn` in flow 0 (weight 1).
  void Schedule(std::function<void()> fn) { Schedule(0, 1, std::move(fn)); }
  // Queues `fn` in `flow` with `weight` (at least 1; the flow's latest weight counts).
  void Schedule(uint64_t flow, int64_t weight, std::function<void()> fn);
  // Queues `fn` as a lead task (above), or in flow 0 without lead_tasks. A task that
  // runs on worker 0 must not wait for a lead task: it would wait forever.
  void ScheduleLead(std::function<void()> fn);
  int num_threads() const { return num_threads_; }
  // Work queued but not yet started, lead tasks included.
  int queued() const;
  // Tasks running now, on workers or inline. Lock-free (a moment's value).
  int running() const { return running_now_.load(std::memory_order_relaxed); }

  // True when nothing is queued and fewer than num_threads() tasks run (with a lead
  // task waiting, fewer than num_threads() - 1): the caller may then run one task
  // itself and must call EndInline() when it is done. Until then the task counts as
  // running (a worker stays idle in its place).
  bool TryBeginInline();
  void EndInline();
  // Runs a task begun with TryBeginInline on the calling thread, through the runner.
  void RunInline(const std::function<void()>& task) const;

 private:
  void WorkerLoop(int id);
  // Hands queued work to an idle worker when work may start: a lead task to worker 0;
  // else worker 0 if idle, or the worker that went idle last.
  void WakeOne() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The next task worker `id` may start (a lead task first, on worker 0), removed;
  // empty when none. `lead`: it is a lead task.
  std::function<void()> TakeFor(int id, bool& lead) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  struct Task {
    double start;   // the start tag
    uint64_t seq;   // arrival order: equal tags start first come, first served
    std::function<void()> fn;
  };
  struct Flow {
    std::deque<Task> tasks;
    double last_start = 0;  // of its latest task
  };
  // The queued task with the smallest start tag, removed; its tag becomes the virtual time.
  std::function<void()> TakeNext() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int num_threads_;
  const Runner runner_;
  const bool lead_tasks_enabled_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, Flow> flows_ ABSL_GUARDED_BY(mu_);  // flows with queued tasks
  size_t queued_ ABSL_GUARDED_BY(mu_) = 0;                          // in flows_
  std::deque<std::function<void()>> lead_tasks_ ABSL_GUARDED_BY(mu_);  // worker 0's, oldest first
  bool lead_gone_ ABSL_GUARDED_BY(mu_) = false;                        // worker 0 has left
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  double virtual_time_ ABSL_GUARDED_BY(mu_) = 0;
  int running_ ABSL_GUARDED_BY(mu_) = 0;  // tasks started, on workers or inline
  std::atomic<int> running_now_{0};       // running_, for running()
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Idle workers, the one that went idle last at the back (worker 0 is taken first
  // wherever it is), and per worker whether it was told to wake (guarded by mu_).
  std::vector<int> idle_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<bool[]> signaled_;
  std::vector<std::thread> threads_;
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_RUNTIME_THREAD_POOL_H_
