// Admission of session work: open while serving, closed while draining. Counts the
// calls inside so that draining can wait for them. Thread-safe.
#ifndef GRAPHD_SERVER_SERVICE_CALL_GATE_H_
#define GRAPHD_SERVER_SERVICE_CALL_GATE_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace graphd::server {

class CallGate {
 public:
  // False once closed; otherwise counts the caller in (pair with Exit).
  bool TryEnter() {
    absl::MutexLock lock(&mu_);
    if (closed_) return false;
    ++inside_;
    return true;
  }
  void Exit() {
    absl::MutexLock lock(&mu_);
    --inside_;
  }
  void Close() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  // Waits until no call is inside or `deadline` passes; true when idle.
  bool WaitIdle(absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithDeadline(absl::Condition(+[](int* n) { return *n == 0; }, &inside_),
                                 deadline);
  }
  bool closed() const {
    absl::MutexLock lock(&mu_);
    return closed_;
  }
  int inside() const {
    absl::MutexLock lock(&mu_);
    return inside_;
  }

 private:
  mutable absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int inside_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_CALL_GATE_H_
