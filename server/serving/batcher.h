// Dynamic batching for one served model version (config dynamic_batching): requests
// whose inputs agree in dtype and in every dimension but the first (the batch) are
// joined, up to max_batch_size, run as one execution and split back.
//
// A batch forms when the queued compatible requests reach max_batch_size (or the
// largest preferred_batch_size they can reach), or when the oldest has waited
// max_queue_delay_microseconds; then it runs on the worker pool, as a lead task
// (ThreadPool::ScheduleLead: where the pool has one OpenMP team, with it). At most
// max_in_flight batches of a model run at once (as Triton's model instances; default
// one): while they run, the next one fills.
// Requests are taken oldest first; one that does not fit the oldest's shapes waits
// for a later batch. A request whose token is cancelled or past its deadline before
// its batch runs fails alone; a failure of the execution fails its batch. A batch runs
// until the latest deadline of its requests (and stops when all were cancelled). At
// most max_queue requests wait; more are refused with ResourceExhausted.
//
// Thread safety: Submit is safe from many threads. The destructor fails what is still
// queued (Unavailable) and waits for the batch running.
#ifndef GRAPHD_SERVER_SERVING_BATCHER_H_
#define GRAPHD_SERVER_SERVING_BATCHER_H_

#include <chrono>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/cancellation.h"
#include "core/tensor.h"
#include "executor/runtime/thread_pool.h"

namespace graphd::server::serving {

struct BatcherOptions {
  int max_batch_size = 1;
  std::vector<int> preferred_batch_sizes;  // each in [1, max_batch_size]
  std::chrono::microseconds max_queue_delay{0};
  int max_in_flight = 1;  // batches running at once (the model's instance count)
  // Ascending; empty: a batch runs with the rows it has. Else a batch of n rows runs
  // padded with zero rows to the first size >= n (the last must be max_batch_size),
  // so that a model whose first run of a shape is costly (a GPU model measures its
  // convolution algorithms per shape) sees only these shapes; the padding's output
  // rows are dropped.
  std::vector<int64_t> padded_sizes;
  // Requests waiting at most; more are refused (ResourceExhausted) until it drains.
  size_t max_queue = 1024;
};

class Batcher {
 public:
  // Runs one batch: the joined inputs, in the model's input order.
  using RunFn = std::function<StatusOr<std::vector<Tensor>>(std::vector<Tensor> inputs, const CancellationToken& token)>;
  // Told after each execution: its batch size and how long it ran.
  using BatchFn = std::function<void(int64_t batch_size, int64_t ns)>;
  // Told for each request when its batch starts: how long it waited.
  using WaitFn = std::function<void(int64_t ns)>;
  // Gets a request's outputs (its rows of the batch's), or its error.
  using DoneFn = std::function<void(StatusOr<std::vector<Tensor>> outputs)>;

  // `pool` must outlive the batcher.
  Batcher(BatcherOptions options, RunFn run, BatchFn on_batch, executor::ThreadPool& pool, WaitFn on_wait = {});
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Queues a request: `inputs` (checked against the model: same rank, first dimension
  // at least 1 and at most max_batch_size), `token` (must outlive `done`'s call), and
  // `done`, called exactly once, on a worker thread (or here, if the batcher stopped).
  void Submit(std::vector<Tensor> inputs, const CancellationToken* token, DoneFn done);

 private:
  struct Request {
    std::vector<Tensor> inputs;
    const CancellationToken* token;
    DoneFn done;
    std::chrono::steady_clock::time_point arrived;
    int64_t rows;
  };
  void Loop();
  // Takes the batch to run next from the queue (oldest first, compatible requests).
  std::vector<Request> TakeBatch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rows the queue could give the oldest request's batch.
  int64_t ReadyRows() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `batch` and calls each request's done; destroys none of them.
  void RunBatch(std::vector<Request>& batch);

  const BatcherOptions options_;
  const RunFn run_;
  const BatchFn on_batch_;
  const WaitFn on_wait_;
  executor::ThreadPool& pool_;
  absl::Mutex mu_;
  std::deque<Request> queue_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;  // batches executing
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

// Whether a and b may share a batch: equal dtypes, ranks and every dimension but the first.
bool Compatible(const std::vector<Tensor>& a, const std::vector<Tensor>& b);
// The tensors of `parts` (each a request's input i) joined along the first dimension,
// then zero rows (empty strings) up to `rows` rows when that is more.
StatusOr<Tensor> ConcatRows(const std::vector<const Tensor*>& parts, int64_t rows = 0);
// The sizes a GPU model's batches are padded to: the powers of two below
// max_batch_size, and max_batch_size.
std::vector<int64_t> PaddedBatchSizes(int64_t max_batch_size);
// Rows [begin, begin + rows) of `t`.
StatusOr<Tensor> SliceRows(const Tensor& t, int64_t begin, int64_t rows);

}  // namespace graphd::server::serving

#endif  // GRAPHD_SERVER_SERVING_BATCHER_H_
