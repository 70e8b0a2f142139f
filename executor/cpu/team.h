// The OpenMP team: how many threads the CPU kernels' parallel regions (oneDNN's
// primitives and sgemm, graphd's own loops) use on the calling thread.
//
// Why a single team: libgomp keeps a pool of threads for every thread that forks a
// team, and once all pools together hold more threads than the process has CPUs, it
// cuts every waiting thread's spin from GOMP_SPINCOUNT to at most 1000 iterations
// (about 10 us, libgomp's env.c "throttled" spin). A team's helpers then fall asleep
// between two kernels of one call, and the next parallel region pays a futex wake-up
// (tens of microseconds on a VM). A server with a worker per core, each forking teams
// of all cores, was always past that point: serving MobileNetV3-small on 2 cores, the
// helper slept 17 times per call; with one team, once per call, and the call's
// execute time went from 2.2-2.6 to 1.45-1.5 ms (bench/README.md).
//
// Single-team mode (the server's; off by default, when every thread may fork teams
// as before): only a thread inside a leading TeamScope forks teams, and only while its
// `may_fork` says so, asked once before each kernel (DecideTeam). The server's worker 0 leads, forking
// while no other task runs (executor/runtime/thread_pool.h): a batch gets the team
// between the short tasks that queue its requests, a call beside another heavy one
// runs alone. Every other thread (the other workers, gRPC threads running quick
// calls inline, the model poller) runs its kernels on itself. One pool exists, its
// threads spin as configured, and concurrent calls do not oversubscribe the cores
// with a team each.
#ifndef GRAPHD_EXECUTOR_CPU_TEAM_H_
#define GRAPHD_EXECUTOR_CPU_TEAM_H_

#include <functional>

namespace graphd::executor::cpu {

// Threads one team may have, for every thread from now on; 0 (the default) leaves
// the OpenMP default (all cores, or OMP_NUM_THREADS). The server sets it from
// --cpu-threads so that one run does not use more cores than configured.
void SetIntraOpThreads(int threads);
int IntraOpThreads();

// Turns single-team mode on or off (process-wide).
void SetSingleTeam(bool on);
bool SingleTeam();

// Decides whether the calling thread forks teams until it next decides (in
// single-team mode: inside a leading TeamScope whose may_fork, if any, returns true),
// then applies it. The CPU device calls it before every kernel, so that one kernel
// creates and runs its primitives with one team size (oneDNN fixes a convolution's
// thread count when it makes one; running it on more threads is not supported).
void DecideTeam();

// Sets the calling thread's OpenMP default (what oneDNN's regions and sgemm ask for)
// to TeamThreads(), as last decided. RunPrimitive, the primitive caches and packing
// call it, and so must any other path into oneDNN. Cheap.
void ApplyIntraOpThreads();

// The threads a parallel region on the calling thread may use, as last decided: 1 in
// single-team mode unless the thread forks; otherwise IntraOpThreads, or OpenMP's
// default when that is 0.
int TeamThreads();

// While alive, the calling thread leads (forks teams of IntraOpThreads while
// `may_fork` returns true or is empty) or not; the previous state comes back after.
// Decides at once (and again on destruction). `may_fork` must be thread-safe, quick
// and callable for the scope's lifetime.
class TeamScope {
 public:
  explicit TeamScope(bool lead, std::function<bool()> may_fork = nullptr);
  ~TeamScope();
  TeamScope(const TeamScope&) = delete;
  TeamScope& operator=(const TeamScope&) = delete;

 private:
  bool saved_lead_;
  const std::function<bool()>* saved_may_fork_;
  std::function<bool()> may_fork_;
};

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_TEAM_H_
