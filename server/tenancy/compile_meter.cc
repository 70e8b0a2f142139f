#include "server/tenancy/compile_meter.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace graphd::server::tenancy {
namespace {
thread_local CompileMeter* current_meter = nullptr;
thread_local int compile_depth = 0;  // compiles admitted and not yet ended on this thread
}  // namespace

void CompileMeter::Expire(Clock::time_point now) {
  while (!compiles_.empty() && compiles_.front().first <= now - kWindow) {
    window_us_ -= compiles_.front().second;
    compiles_.pop_front();
  }
}

Status CompileMeter::Admit(Clock::time_point now) {
  const int64_t quota = quota_seconds_.load(std::memory_order_relaxed);
  if (quota <= 0) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  Expire(now);
  if (window_us_ < quota * 1000000) return absl::OkStatus();
  // Retry once enough of the oldest compiles have left the window.
  int64_t over = window_us_ - quota * 1000000;
  Clock::time_point free_at = now;
  for (const auto& [end, us] : compiles_) {
    free_at = end + kWindow;
    if ((over -= us) < 0) break;
  }
  const double retry = std::chrono::duration<double>(free_at - now).count();
  return errors::ResourceExhausted(absl::StrFormat(
      "tenant '%s' spent %.1f s compiling in the last minute; its max_compile_seconds_per_minute quota is %d; "
      "functions already compiled still run; new compiles may start again in %.0f s",
      tenant_, static_cast<double>(window_us_) * 1e-6, quota, retry < 1 ? 1.0 : retry));
}

void CompileMeter::Record(int64_t us, Clock::time_point now) {
  if (us <= 0) return;
  absl::MutexLock lock(&mu_);
  Expire(now);
  compiles_.emplace_back(now, us);
  window_us_ += us;
}

int64_t CompileMeter::used_us(Clock::time_point now) {
  absl::MutexLock lock(&mu_);
  Expire(now);
  return window_us_;
}

CompileMeter* CurrentCompileMeter() { return current_meter; }

Status AdmitCompile() {
  if (compile_depth == 0 && current_meter != nullptr) RETURN_IF_ERROR(current_meter->Admit());
  ++compile_depth;
  return absl::OkStatus();
}

void CompileEnded(int64_t us) {
  if (compile_depth > 0) --compile_depth;
  if (compile_depth == 0 && current_meter != nullptr) current_meter->Record(us);
}

ScopedCompileMeter::ScopedCompileMeter(CompileMeter* meter) : previous_(current_meter) { current_meter = meter; }
ScopedCompileMeter::~ScopedCompileMeter() { current_meter = previous_; }

}  // namespace graphd::server::tenancy
