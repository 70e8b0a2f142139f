// Counters of one served model version, as KServe's ModelStatistics reports them.
// Thread-safe (relaxed atomics: each counter is exact, a snapshot of several is not
// one instant).
#ifndef GRAPHD_SERVER_MODELS_MODEL_STATS_H_
#define GRAPHD_SERVER_MODELS_MODEL_STATS_H_

#include <atomic>
#include <cstdint>

namespace graphd::server::models {

struct Duration {
  std::atomic<uint64_t> count{0};
  std::atomic<uint64_t> ns{0};
  void Add(uint64_t n) {
    count.fetch_add(1, std::memory_order_relaxed);
    ns.fetch_add(n, std::memory_order_relaxed);
  }
};

struct ModelStats {
  Duration success;        // whole requests that succeeded
  Duration fail;           // and that failed
  Duration compute_infer;  // model executions
  std::atomic<uint64_t> inference_count{0};  // requests' batch sizes, summed
  std::atomic<uint64_t> execution_count{0};  // model executions
  std::atomic<uint64_t> last_inference_ms{0};  // since the epoch
};

}  // namespace graphd::server::models

#endif  // GRAPHD_SERVER_MODELS_MODEL_STATS_H_
