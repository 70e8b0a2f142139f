// Short cache-hit calls may run on the gRPC thread that received them instead of
// being handed to a worker (see service/pooled_call.h). While PooledCall tries a call
// that way, the thread runs "quick only" (a QuickScope). Every front end asks
// CheckQuick right after its function cache lookup: the call goes ahead only when the
// concrete function is cached and its latest run (its RunCost,
// compiler/cache/compiled_function.h) took at most the limit; otherwise it does
// nothing and returns NotQuick(), and the caller makes the same call again on a
// worker, where no limit applies. No session-level signature carries the limit.
#ifndef GRAPHD_SERVER_QUICK_RUN_H_
#define GRAPHD_SERVER_QUICK_RUN_H_

#include <cstdint>

#include "compiler/cache/compiled_function.h"
#include "core/status.h"

namespace graphd::server {

// Marks this thread quick-only with `limit_us` (> 0) for its lifetime.
class QuickScope {
 public:
  explicit QuickScope(int64_t limit_us);
  ~QuickScope();
  QuickScope(const QuickScope&) = delete;
  QuickScope& operator=(const QuickScope&) = delete;

 private:
  int64_t saved_;
};

// OK outside a QuickScope. Inside one: OK when `compiled` (the lookup's result; null
// on a miss) has run within the limit, NotQuick() otherwise.
Status CheckQuick(const compiler::CompiledFunction* compiled);

Status NotQuick();
bool IsNotQuick(const Status& status);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_QUICK_RUN_H_
