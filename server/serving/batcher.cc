#include "server/serving/batcher.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace graphd::server::serving {
namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

bool Compatible(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].dtype() != b[i].dtype() || a[i].shape().rank() != b[i].shape().rank() || a[i].shape().rank() == 0) {
      return false;
    }
    for (int d = 1; d < a[i].shape().rank(); ++d) {
      if (a[i].shape().dim(d) != b[i].shape().dim(d)) return false;
    }
  }
  return true;
}

StatusOr<Tensor> ConcatRows(const std::vector<const Tensor*>& parts, int64_t rows) {
  std::vector<int64_t> dims = parts[0]->shape().dims();
  dims[0] = 0;
  for (const Tensor* p : parts) dims[0] += p->shape().dim(0);
  dims[0] = std::max(dims[0], rows);
  ASSIGN_OR_RETURN(Shape shape, Shape::Make(std::move(dims)));
  ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(parts[0]->dtype(), shape));
  if (out.dtype() == DType::kString) {
    std::string* dst = out.data<std::string>();
    std::string* const end = dst + out.num_elements();
    for (const Tensor* p : parts) {
      for (int64_t i = 0; i < p->num_elements(); ++i) *dst++ = p->data<std::string>()[i];
    }
    for (; dst != end; ++dst) dst->clear();
    return out;
  }
  char* dst = static_cast<char*>(out.raw_data());
  for (const Tensor* p : parts) {
    if (p->bytes() > 0) std::memcpy(dst, p->raw_data(), p->bytes());
    dst += p->bytes();
  }
  const size_t padding = static_cast<size_t>(static_cast<char*>(out.raw_data()) + out.bytes() - dst);
  if (padding > 0) std::memset(dst, 0, padding);
  return out;
}

std::vector<int64_t> PaddedBatchSizes(int64_t max_batch_size) {
  std::vector<int64_t> sizes;
  for (int64_t s = 1; s < max_batch_size; s *= 2) sizes.push_back(s);
  if (max_batch_size > 0) sizes.push_back(max_batch_size);
  return sizes;
}

StatusOr<Tensor> SliceRows(const Tensor& t, int64_t begin, int64_t rows) {
  std::vector<int64_t> dims = t.shape().dims();
  const int64_t row_elements = dims[0] == 0 ? 0 : t.num_elements() / dims[0];
  dims[0] = rows;
  ASSIGN_OR_RETURN(Shape shape, Shape::Make(std::move(dims)));
  ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.dtype(), shape));
  if (t.dtype() == DType::kString) {
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      out.data<std::string>()[i] = t.data<std::string>()[begin * row_elements + i];
    }
    return out;
  }
  const size_t row_bytes = static_cast<size_t>(row_elements) * DTypeSize(t.dtype());
  std::memcpy(out.raw_data(), static_cast<const char*>(t.raw_data()) + begin * row_bytes, rows * row_bytes);
  return out;
}

Batcher::Batcher(BatcherOptions options, RunFn run, BatchFn on_batch, executor::ThreadPool& pool, WaitFn on_wait)
    : options_(std::move(options)),
      run_(std::move(run)),
      on_batch_(std::move(on_batch)),
      on_wait_(std::move(on_wait)),
      pool_(pool) {
  thread_ = std::thread([this] { Loop(); });
}

Batcher::~Batcher() {
  std::deque<Request> left;
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    mu_.Await(absl::Condition(+[](int* running) { return *running == 0; }, &running_));
    left.swap(queue_);
  }
  thread_.join();
  for (Request& r : left) r.done(errors::Unavailable("the model was unloaded before this request ran"));
}

void Batcher::Submit(std::vector<Tensor> inputs, const CancellationToken* token, DoneFn done) {
  const int64_t rows = inputs.empty() || inputs[0].shape().rank() == 0 ? 0 : inputs[0].shape().dim(0);
  Status refused;
  {
    absl::MutexLock lock(&mu_);
    if (stop_) {
      refused = errors::Unavailable("the model was unloaded");
    } else if (queue_.size() >= options_.max_queue) {
      refused = errors::ResourceExhausted(absl::StrCat("the model's batch queue is full (", options_.max_queue,
                                                       " requests waiting); retry later"));
    } else {
      queue_.push_back(Request{std::move(inputs), token, std::move(done), Clock::now(), rows});
      return;
    }
  }
  done(refused);
}

// How far ReadyRows and TakeBatch look past the oldest request for compatible ones.
constexpr size_t kMaxScan = 256;

int64_t Batcher::ReadyRows() const {
  const Request& head = queue_.front();
  int64_t rows = 0;
  size_t scanned = 0;
  for (const Request& r : queue_) {
    if (rows + r.rows > options_.max_batch_size || ++scanned > kMaxScan) break;
    if (&r == &head || Compatible(head.inputs, r.inputs)) rows += r.rows;
  }
  return rows;
}

std::vector<Batcher::Request> Batcher::TakeBatch() {
  // The size to aim for: the largest preferred size the queue reaches, else as many as fit.
  int64_t target = options_.max_batch_size;
  const int64_t ready = ReadyRows();
  if (!options_.preferred_batch_sizes.empty()) {
    int64_t best = 0;
    for (int p : options_.preferred_batch_sizes) {
      if (p <= ready) best = std::max<int64_t>(best, p);
    }
    if (best > 0) target = best;
  }
  std::vector<Request> batch;
  int64_t rows = 0;
  size_t scanned = 0;
  for (auto it = queue_.begin(); it != queue_.end() && ++scanned <= kMaxScan;) {
    // The oldest request always goes (it fits max_batch_size: checked on submit), so
    // every batch taken makes progress.
    if (!batch.empty() && rows + it->rows > target) break;
    if (batch.empty() || Compatible(batch[0].inputs, it->inputs)) {
      rows += it->rows;
      batch.push_back(std::move(*it));
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
  return batch;
}

void Batcher::Loop() {
  absl::MutexLock lock(&mu_);
  while (true) {
    // Wait for a request and for the batch before to finish.
    auto can_start = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stop_ || (!queue_.empty() && running_ < options_.max_in_flight);
    };
    mu_.Await(absl::Condition(&can_start));
    if (stop_) return;
    // Then for the batch to fill, until the oldest request's delay is over.
    const absl::Time deadline =
        absl::FromChrono(std::chrono::system_clock::now()) +
        absl::FromChrono(options_.max_queue_delay - (Clock::now() - queue_.front().arrived));
    auto full = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      if (stop_) return true;
      const int64_t ready = ReadyRows();
      if (ready >= options_.max_batch_size) return true;
      return !options_.preferred_batch_sizes.empty() &&
             std::find(options_.preferred_batch_sizes.begin(), options_.preferred_batch_sizes.end(), ready) !=
                 options_.preferred_batch_sizes.end() &&
             ready == *std::max_element(options_.preferred_batch_sizes.begin(), options_.preferred_batch_sizes.end());
    };
    mu_.AwaitWithDeadline(absl::Condition(&full), deadline);
    if (stop_) return;
    std::vector<Request> batch = TakeBatch();
    if (batch.empty()) continue;
    ++running_;
    // The batch's requests (their callbacks may hold the last reference to what owns
    // this batcher) are destroyed after the task let go of the batcher.
    // A lead task: the pool runs it with the OpenMP team (thread_pool.h).
    pool_.ScheduleLead([this, batch = std::move(batch)]() mutable {
      RunBatch(batch);
      absl::MutexLock done(&mu_);
      --running_;
    });
  }
}

void Batcher::RunBatch(std::vector<Request>& batch) {
  // Requests given up on before their batch runs fail alone.
  std::vector<Request*> live;
  for (Request& r : batch) {
    if (Status s = r.token->Check(); !s.ok()) {
      r.done(s);
    } else {
      live.push_back(&r);
    }
  }
  if (live.empty()) return;
  if (on_wait_) {
    const auto now = Clock::now();
    for (const Request* r : live) on_wait_(std::chrono::duration_cast<std::chrono::nanoseconds>(now - r->arrived).count());
  }
  int64_t rows = 0;
  for (const Request* r : live) rows += r->rows;
  auto fail_all = [&live](const Status& s) {
    for (Request* r : live) r->done(s);
  };
  int64_t padded = rows;
  for (int64_t size : options_.padded_sizes) {
    if (size >= rows) {
      padded = size;
      break;
    }
  }
  // One request, not padded: its inputs run as they are, its outputs are its own.
  const bool alone = live.size() == 1 && padded == rows;
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < live[0]->inputs.size(); ++i) {
    std::vector<const Tensor*> parts;
    for (const Request* r : live) parts.push_back(&r->inputs[i]);
    auto joined = alone ? StatusOr<Tensor>(live[0]->inputs[i]) : ConcatRows(parts, padded);
    if (!joined.ok()) return fail_all(joined.status());
    inputs.push_back(*std::move(joined));
  }
  // The batch runs for everyone in it: until the latest of their deadlines.
  Clock::time_point deadline = Clock::time_point::min();
  for (const Request* r : live) deadline = std::max(deadline, r->token->deadline());
  CancellationToken token(deadline);
  auto start = Clock::now();
  auto outputs = run_(std::move(inputs), token);
  const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
  if (!outputs.ok()) return fail_all(outputs.status());
  if (on_batch_) on_batch_(rows, ns);
  if (alone) return live[0]->done(*std::move(outputs));
  for (const Tensor& out : *outputs) {
    if (out.shape().rank() == 0 || out.shape().dim(0) != padded) {
      return fail_all(errors::Internal(absl::StrCat("a batched output has shape ", out.shape().ToString(),
                                                    ", not ", padded, " rows: the model does not batch")));
    }
  }
  int64_t begin = 0;
  for (Request* r : live) {
    std::vector<Tensor> mine;
    Status status;
    for (const Tensor& out : *outputs) {
      auto slice = SliceRows(out, begin, r->rows);
      if (!slice.ok()) {
        status = slice.status();
        break;
      }
      mine.push_back(*std::move(slice));
    }
    begin += r->rows;
    if (status.ok()) {
      r->done(std::move(mine));
    } else {
      r->done(status);
    }
  }
}

}  // namespace graphd::server::serving
