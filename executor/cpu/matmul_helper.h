// A second thread for splitting one small matrix product across two cores without an
// OpenMP team. The caller offers half of the work and does its own half; the helper,
// when awake and idle, takes the offer, otherwise the caller takes it back and does it
// too. So a late or busy helper costs only the offer, never a wait for a wake-up: that
// wake-up (a futex, 20-50 us on a loaded VM) is what makes OpenMP teams too slow for
// products of a few million multiply-adds when the team's helpers sleep.
// After each piece of work the helper spins briefly for the next before it sleeps. When
// a caller had to wait long for a half the helper took (a preempted helper: a loaded
// box), offers stop for a while and callers work alone.
//
// Thread-safe: concurrent callers share the one helper; whoever finds it taken does
// both halves itself.
#ifndef GRAPHD_EXECUTOR_CPU_MATMUL_HELPER_H_
#define GRAPHD_EXECUTOR_CPU_MATMUL_HELPER_H_

#include <functional>

namespace graphd::executor::cpu {

// Runs `mine` on the calling thread and `other` on the helper thread or, when the
// helper does not take it in time, on the calling thread after `mine`. Returns when
// both are done, an exception or not: an exception from `mine` (then `other` does not
// run unless the helper took it already) or from `other` is rethrown here, after the
// helper is done with `other`. With `wake` false a
// sleeping helper is left asleep and the caller does both: for halves of a few
// microseconds, shorter than waking a thread (the futex call alone, and a helper that
// wakes after the caller's half makes the caller wait).
void RunPairWithHelper(const std::function<void()>& mine, const std::function<void()>& other, bool wake = true);

// For tests: whether the helper thread sleeps waiting for an offer, and how many more
// pairs run on their callers alone (its back-off after a late helper).
bool HelperAsleepForTesting();
int HelperBackOffForTesting();

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_MATMUL_HELPER_H_
