// Short cache-hit calls may run on the gRPC thread that received them instead of
// being handed to a worker (see service/pooled_call.h). The session layer decides
// what is short: a call made with a quick-only limit (`quick_us` > 0) goes ahead only
// when its plan is cached and that plan's latest run took at most `quick_us`;
// otherwise it does nothing and returns NotQuick(), and the caller makes the same call
// again, without the limit, on a worker.
#ifndef GRAPHD_SERVER_QUICK_RUN_H_
#define GRAPHD_SERVER_QUICK_RUN_H_

#include <atomic>
#include <cstdint>

#include "core/status.h"

namespace graphd::server {

// The measured time of a cached plan's latest run. Thread-safe.
class RunCost {
 public:
  void Record(int64_t us) { last_us_.store(us, std::memory_order_relaxed); }
  // True when the plan has run and its latest run took at most `limit_us`.
  bool Within(int64_t limit_us) const {
    int64_t last = last_us_.load(std::memory_order_relaxed);
    return last >= 0 && last <= limit_us;
  }

 private:
  std::atomic<int64_t> last_us_{-1};
};

Status NotQuick();
bool IsNotQuick(const Status& status);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_QUICK_RUN_H_
