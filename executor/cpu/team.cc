#include "executor/cpu/team.h"

#include <omp.h>

#include <atomic>
#include <functional>
#include <utility>

namespace graphd::executor::cpu {
namespace {

std::atomic<int> intra_op_threads{0};
std::atomic<bool> single_team{false};
thread_local bool leading = false;
thread_local const std::function<bool()>* may_fork = nullptr;  // the innermost TeamScope's
thread_local bool forking = false;  // single-team mode: as the last DecideTeam decided

}  // namespace

void SetIntraOpThreads(int threads) { intra_op_threads.store(threads > 0 ? threads : 0); }
int IntraOpThreads() { return intra_op_threads.load(); }

void SetSingleTeam(bool on) { single_team.store(on); }
bool SingleTeam() { return single_team.load(); }

int TeamThreads() {
  if (single_team.load(std::memory_order_relaxed) && !forking) return 1;
  const int threads = IntraOpThreads();
  return threads > 0 ? threads : omp_get_max_threads();
}

void DecideTeam() {
  forking = leading && (may_fork == nullptr || !*may_fork || (*may_fork)());
  ApplyIntraOpThreads();
}

void ApplyIntraOpThreads() {
  // A per-thread value in libgomp: threads not started by OpenMP begin with the
  // process default, which `original` keeps.
  thread_local const int original = omp_get_max_threads();
  thread_local int applied = original;
  int want = original;
  if (single_team.load(std::memory_order_relaxed) && !forking) {
    want = 1;
  } else if (const int configured = intra_op_threads.load(std::memory_order_relaxed); configured > 0) {
    want = configured;
  }
  if (want == applied) return;
  omp_set_num_threads(want);
  applied = want;
}

TeamScope::TeamScope(bool lead, std::function<bool()> fork_now)
    : saved_lead_(leading), saved_may_fork_(may_fork), may_fork_(std::move(fork_now)) {
  leading = lead;
  may_fork = &may_fork_;
  DecideTeam();
}

TeamScope::~TeamScope() {
  leading = saved_lead_;
  may_fork = saved_may_fork_;
  DecideTeam();
}

}  // namespace graphd::executor::cpu
