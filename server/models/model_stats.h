// Counters of one served model version, as KServe's ModelStatistics reports them.
// Thread-safe (relaxed atomics: each counter is exact, a snapshot of several is not
// one instant).
#ifndef GRAPHD_SERVER_MODELS_MODEL_STATS_H_
#define GRAPHD_SERVER_MODELS_MODEL_STATS_H_

#include <atomic>
#include <cstdint>
#include <map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace graphd::server::models {

struct Duration {
  std::atomic<uint64_t> count{0};
  std::atomic<uint64_t> ns{0};
  void Add(uint64_t n) {
    count.fetch_add(1, std::memory_order_relaxed);
    ns.fetch_add(n, std::memory_order_relaxed);
  }
};

// Executions by batch size: how many and their summed time.
class BatchSizes {
 public:
  struct Entry {
    uint64_t count = 0;
    uint64_t ns = 0;
  };
  void Add(int64_t batch_size, uint64_t ns) {
    absl::MutexLock lock(&mu_);
    Entry& e = sizes_[batch_size];
    ++e.count;
    e.ns += ns;
  }
  std::map<int64_t, Entry> Snapshot() const {
    absl::MutexLock lock(&mu_);
    return sizes_;
  }

 private:
  mutable absl::Mutex mu_;
  std::map<int64_t, Entry> sizes_ ABSL_GUARDED_BY(mu_);
};

struct ModelStats {
  Duration success;        // whole requests that succeeded
  Duration fail;           // and that failed
  Duration compute_infer;  // model executions
  std::atomic<uint64_t> inference_count{0};  // requests' batch sizes, summed
  std::atomic<uint64_t> execution_count{0};  // model executions
  std::atomic<uint64_t> last_inference_ms{0};  // since the epoch
  BatchSizes batches;
  // Records one model execution of `batch_size` rows that took `ns`.
  void Executed(int64_t batch_size, uint64_t ns) {
    compute_infer.Add(ns);
    execution_count.fetch_add(1, std::memory_order_relaxed);
    batches.Add(batch_size, ns);
  }
};

}  // namespace graphd::server::models

#endif  // GRAPHD_SERVER_MODELS_MODEL_STATS_H_
