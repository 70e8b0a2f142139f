// One loaded version of a served model. The model lives in an internal session of its
// own (not a client's: no handle, never expires), through which every request runs;
// its compiled functions are in the server's function cache, so they are shared with
// client sessions that load the same bytes, and concurrent first calls compile once.
//
// Thread safety: immutable after Load; Run is safe from many threads.
#ifndef GRAPHD_SERVER_MODELS_SERVED_MODEL_H_
#define GRAPHD_SERVER_MODELS_SERVED_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/cancellation.h"
#include "core/tensor.h"
#include "server/models/model_stats.h"
#include "server/models/repository.h"
#include "server/serving/batcher.h"
#include "server/serving/serving_metrics.h"
#include "server/session.h"

namespace graphd::server::models {

// An input or output as clients see it: its v2 name, dtype and shape (-1: any size;
// with max_batch_size > 0 the first dimension is the batch, always -1).
struct TensorInfo {
  std::string name;
  DType dtype = DType::kInvalid;
  std::vector<int64_t> shape;
};

class ServedModel {
 public:
  // Loads `version` of `model` into `session` (a fresh internal session), checks the
  // config against the model, then runs the config's warmup requests (or, without
  // any, one request of batch 1 when every input's shape is otherwise known).
  // InvalidArgument naming the file for a model that does not load or does not agree
  // with its config. With dynamic_batching in the config, batches run on `pool`
  // (which must outlive the model; null: no batching).
  static StatusOr<std::unique_ptr<ServedModel>> Load(const RepositoryModel& model, int64_t version,
                                                     std::shared_ptr<Session> session,
                                                     const CancellationToken& token,
                                                     executor::ThreadPool* pool = nullptr,
                                                     const serving::ServingMetrics* metrics = nullptr);

  const std::string& name() const { return name_; }
  int64_t version() const { return version_; }
  absl::string_view platform() const { return PlatformOf(kind_); }
  int max_batch_size() const { return max_batch_size_; }
  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  // Bytes the model's files held (what loading it cost, roughly).
  int64_t file_bytes() const { return file_bytes_; }

  // Runs the model: `inputs` one per inputs(), in order. InvalidArgument naming the
  // input for a dtype or shape that does not fit (a batch over max_batch_size too).
  // Returns the outputs in outputs() order.
  StatusOr<std::vector<Tensor>> Run(std::vector<Tensor> inputs, const CancellationToken& token) const;

  // Batched models: `inputs` are checked (as Run does), then queued for the next
  // batch; `done` gets this request's outputs (outputs() order) or its error, exactly
  // once, maybe before Submit returns. `token` must outlive that call.
  bool batching() const { return batcher_ != nullptr; }
  void Submit(std::vector<Tensor> inputs, const CancellationToken* token, serving::Batcher::DoneFn done) const;

  // What its requests did (the service records them).
  ModelStats& stats() const { return stats_; }

  // "1", "2": the version as labels and responses show it.
  const std::string& version_label() const { return version_label_; }
  // This version's request series (null without metrics): looked up once, not per request.
  metrics::Gauge* inflight_series() const { return inflight_; }
  metrics::Histogram* duration_series() const { return duration_; }
  metrics::Counter* ok_series() const { return requests_ok_; }

 private:
  ServedModel() = default;
  Status CheckInput(const TensorInfo& info, const Tensor& t) const;
  Status CheckInputs(const std::vector<Tensor>& inputs) const;
  // Records one execution (statistics, metrics).
  void Executed(int64_t rows, int64_t ns) const;
  // The model, unchecked.
  StatusOr<std::vector<Tensor>> Execute(std::vector<Tensor> inputs, const CancellationToken& token) const;
  Status Warmup(const v1::ModelConfig& config, const CancellationToken& token) const;
  // The source model's function: loads `source`, traces the function once and sets
  // function_, module_id_, result_keys_ and returns_sequence_; `inputs`/`outputs` get
  // what it takes and returns.
  Status LoadSource(const std::string& source, const std::string& path, const v1::ModelConfig& config,
                    const CancellationToken& token, std::vector<compiler::ValueInfo>* inputs,
                    std::vector<compiler::ValueInfo>* outputs);
  StatusOr<std::vector<Tensor>> ExecuteSource(std::vector<Tensor> inputs, const CancellationToken& token) const;

  std::string name_;
  int64_t version_ = 0;
  ModelKind kind_ = ModelKind::kOnnx;
  int max_batch_size_ = 0;
  std::vector<TensorInfo> inputs_;
  std::vector<TensorInfo> outputs_;
  // Per outputs() entry, its index among the graph's outputs.
  std::vector<int> output_index_;
  int64_t file_bytes_ = 0;
  std::string graph_name_;  // in session_'s graph functions
  // Source models: the module and function called, and where each of the function's
  // results (the graph's outputs before output_index_ picks) is in what it returns:
  // a dict's key, the position in a tuple/list, or the one tensor.
  int64_t module_id_ = 0;
  std::string function_;
  std::vector<std::string> result_keys_;  // a dict's keys, in order
  bool returns_dict_ = false;
  bool returns_sequence_ = false;
  std::shared_ptr<Session> session_;
  mutable ModelStats stats_;
  std::string version_label_;
  metrics::Gauge* inflight_ = nullptr;
  metrics::Histogram* duration_ = nullptr;
  metrics::Counter* requests_ok_ = nullptr;
  // This version's series (null without metrics).
  metrics::Histogram* compute_ = nullptr;
  metrics::Histogram* queue_ = nullptr;
  metrics::Histogram* batch_size_ = nullptr;
  // What batches are padded to (serving::BatcherOptions; empty: not padded), and the
  // sizes warmed when the config names no warmup.
  std::vector<int64_t> padded_sizes_;
  std::unique_ptr<serving::Batcher> batcher_;  // last: it stops before the rest goes
};

}  // namespace graphd::server::models

#endif  // GRAPHD_SERVER_MODELS_SERVED_MODEL_H_
