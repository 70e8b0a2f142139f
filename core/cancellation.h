// A run's cancellation token: set by the client cancelling, by the server draining,
// or implied by a deadline. Kernels and loops poll it; it never blocks.
// Thread-safe: Cancel() and Check() may be called from any thread.
#ifndef GRAPHD_CORE_CANCELLATION_H_
#define GRAPHD_CORE_CANCELLATION_H_

#include <atomic>
#include <chrono>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace graphd {

class CancellationToken {
 public:
  using Clock = std::chrono::steady_clock;

  CancellationToken() = default;
  explicit CancellationToken(Clock::time_point deadline) : deadline_(deadline) {}

  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  // Moves the deadline earlier (never later).
  void TightenDeadline(Clock::time_point deadline) {
    if (deadline < deadline_) deadline_ = deadline;
  }
  Clock::time_point deadline() const { return deadline_; }
  // Also cancelled once `*flag` is true, failing with Cancelled "the run was
  // cancelled: `reason`" (a string literal). Set by the thread running the work, before
  // other threads check the token.
  void CancelledWith(std::shared_ptr<const std::atomic<bool>> flag, const char* reason) {
    linked_ = std::move(flag);
    linked_reason_ = reason;
  }

  // OK, or Cancelled / DeadlineExceeded.
  Status Check() const {
    if (cancelled_.load(std::memory_order_relaxed)) {
      return errors::Cancelled("the run was cancelled");
    }
    if (linked_ != nullptr && linked_->load(std::memory_order_relaxed)) {
      return errors::Cancelled(absl::StrCat("the run was cancelled: ", linked_reason_));
    }
    if (deadline_ != Clock::time_point::max() && Clock::now() >= deadline_) {
      return errors::DeadlineExceeded("the run passed its deadline");
    }
    return absl::OkStatus();
  }

 private:
  std::atomic<bool> cancelled_{false};
  std::shared_ptr<const std::atomic<bool>> linked_;
  const char* linked_reason_ = "";
  Clock::time_point deadline_ = Clock::time_point::max();
};

}  // namespace graphd

#endif  // GRAPHD_CORE_CANCELLATION_H_
