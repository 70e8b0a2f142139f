// A tenant's compile time over the last minute, against its
// max_compile_seconds_per_minute quota. The worker serving a tenant's request makes
// the tenant's meter current (ScopedCompileMeter); the function cache asks it before
// each compile (Admit) and tells it each compile's duration (Record), so a tenant
// that has spent its minute's compile time gets ResourceExhausted for new compiles
// (cached functions still run) until older compiles leave the window.
// Thread-safe.
#ifndef GRAPHD_SERVER_TENANCY_COMPILE_METER_H_
#define GRAPHD_SERVER_TENANCY_COMPILE_METER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/status.h"

namespace graphd::server::tenancy {

class CompileMeter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr Clock::duration kWindow = std::chrono::minutes(1);

  explicit CompileMeter(std::string tenant) : tenant_(std::move(tenant)) {}
  // Seconds of compile time allowed per minute (0: unlimited).
  void set_quota_seconds(int64_t seconds) { quota_seconds_.store(seconds, std::memory_order_relaxed); }

  // ResourceExhausted naming the tenant, the quota, the time spent and when to
  // retry, when compiles that ended within the last minute add up to the quota.
  Status Admit(Clock::time_point now = Clock::now());
  // One compile of `us` microseconds ended at `now`.
  void Record(int64_t us, Clock::time_point now = Clock::now());
  // Compile microseconds within the window ending at `now`.
  int64_t used_us(Clock::time_point now = Clock::now());

 private:
  void Expire(Clock::time_point now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string tenant_;
  std::atomic<int64_t> quota_seconds_{0};
  absl::Mutex mu_;
  std::deque<std::pair<Clock::time_point, int64_t>> compiles_ ABSL_GUARDED_BY(mu_);  // (end, us)
  int64_t window_us_ ABSL_GUARDED_BY(mu_) = 0;
};

// The calling thread's meter (null: none, nothing metered).
CompileMeter* CurrentCompileMeter();

// The function cache's hooks (FunctionCache::SetCompileAdmission and the compile
// observer): the calling thread's meter admits a compile, and records it when it
// ends. A compile started inside another (a traced function calling another) is
// neither checked nor recorded on its own: the outer one's time includes it.
Status AdmitCompile();
void CompileEnded(int64_t us);

// Makes `meter` (may be null) the calling thread's for its lifetime.
class ScopedCompileMeter {
 public:
  explicit ScopedCompileMeter(CompileMeter* meter);
  ~ScopedCompileMeter();
  ScopedCompileMeter(const ScopedCompileMeter&) = delete;
  ScopedCompileMeter& operator=(const ScopedCompileMeter&) = delete;

 private:
  CompileMeter* previous_;
};

}  // namespace graphd::server::tenancy

#endif  // GRAPHD_SERVER_TENANCY_COMPILE_METER_H_
