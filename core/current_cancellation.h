// The cancellation token of the call the current thread is working for, so that work
// deep below the call's handler (graph passes, planning, ONNX and GraphDef import) can
// stop when the client cancels, the deadline passes or the session closes, without a
// token parameter threaded through every signature.
//
// The thread that runs a call's work sets it for the duration (ScopedCancellation);
// code that may run long checks CheckCurrentCancellation() at coarse points (between
// passes, between imported nodes). Outside any call it is OK.
#ifndef GRAPHD_CORE_CURRENT_CANCELLATION_H_
#define GRAPHD_CORE_CURRENT_CANCELLATION_H_

#include "core/cancellation.h"

namespace graphd {

namespace internal {
inline thread_local const CancellationToken* current_cancellation = nullptr;
}  // namespace internal

// The current thread's call token, or null.
inline const CancellationToken* CurrentCancellation() { return internal::current_cancellation; }

// OK outside a call; otherwise the token's Check().
inline Status CheckCurrentCancellation() {
  const CancellationToken* token = internal::current_cancellation;
  return token == nullptr ? absl::OkStatus() : token->Check();
}

// Makes `token` (may be null: none) current for this scope; restores the previous one.
class ScopedCancellation {
 public:
  explicit ScopedCancellation(const CancellationToken* token) : previous_(internal::current_cancellation) {
    internal::current_cancellation = token;
  }
  ~ScopedCancellation() { internal::current_cancellation = previous_; }
  ScopedCancellation(const ScopedCancellation&) = delete;
  ScopedCancellation& operator=(const ScopedCancellation&) = delete;

 private:
  const CancellationToken* previous_;
};

}  // namespace graphd

#endif  // GRAPHD_CORE_CURRENT_CANCELLATION_H_
