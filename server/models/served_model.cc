#include "server/models/served_model.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/algorithm/container.h"
#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/memory_account.h"
#include "executor/gpu/gpu_device.h"
#include "executor/memory_owner.h"
#include "graphd/v1/graph.pb.h"
#include "server/models/datatypes.h"
#include "server/service/graph_codec.h"
#include "server/tenancy/compile_meter.h"

namespace graphd::server::models {
namespace {

// The most bytes of one model file (protobuf's own limit is 2 GiB).
constexpr int64_t kMaxModelFileBytes = (int64_t{2} << 30) - 1;
// The name the model has in its internal session.
constexpr char kGraphName[] = "model";

std::vector<int64_t> DimsOf(const PartialShape& shape) {
  return shape.known_rank() ? shape.dims() : std::vector<int64_t>{};
}

std::string ShapeText(const std::vector<int64_t>& dims) { return absl::StrCat("[", absl::StrJoin(dims, ","), "]"); }

// `config`'s tensors matched to the graph's `declared` ones by name (all of them when
// `all`), or the declared ones when the config lists none. Sets `index` to each
// chosen tensor's position in `declared`.
StatusOr<std::vector<TensorInfo>> Match(const std::vector<compiler::ValueInfo>& declared,
                                        const google::protobuf::RepeatedPtrField<v1::ModelTensorConfig>& config,
                                        int max_batch_size, bool all, absl::string_view field,
                                        const std::string& config_path, const std::string& model_path,
                                        std::vector<int>* index) {
  std::vector<TensorInfo> out;
  std::vector<std::string> names;
  for (const auto& d : declared) names.push_back(d.name);
  auto problem = [&](absl::string_view what) {
    return errors::InvalidArgument(absl::StrCat(config_path.empty() ? model_path : config_path, ": ", what));
  };
  for (const auto& d : declared) {
    if (!d.is_tensor()) return problem(absl::StrCat(field, " '", d.name, "' is a sequence or an optional; served models take tensors"));
  }
  if (config.empty()) {
    for (size_t i = 0; i < declared.size(); ++i) {
      TensorInfo t{declared[i].name, declared[i].dtype, DimsOf(declared[i].shape)};
      if (max_batch_size > 0) {
        if (t.shape.empty() || t.shape[0] > 0) {
          return problem(absl::StrCat("max_batch_size > 0, but ", field, " '", t.name, "' of ", model_path,
                                      " has no variable first dimension (its shape: ", ShapeText(t.shape), ")"));
        }
        t.shape[0] = -1;
      }
      out.push_back(std::move(t));
      index->push_back(static_cast<int>(i));
    }
    return out;
  }
  if (all && config.size() != static_cast<int>(declared.size())) {
    return problem(absl::StrCat("the config lists ", config.size(), " ", field, "s; ", model_path, " has ",
                                declared.size(), " (", absl::StrJoin(names, ", "), ")"));
  }
  for (const v1::ModelTensorConfig& c : config) {
    auto it = std::find(names.begin(), names.end(), c.name());
    if (it == names.end()) {
      return problem(absl::StrCat(field, " '", c.name(), "' is not one of ", model_path, "'s (",
                                  absl::StrJoin(names, ", "), ")"));
    }
    const int i = static_cast<int>(it - names.begin());
    ASSIGN_OR_RETURN(DType dtype, DTypeFromConfig(c.data_type(), absl::StrCat(config_path, ": ", field, " '", c.name(), "'")));
    if (dtype != declared[i].dtype) {
      return problem(absl::StrCat(field, " '", c.name(), "' is ", DTypeName(declared[i].dtype), " in ", model_path,
                                  ", not ", DTypeName(dtype)));
    }
    TensorInfo t{c.name(), dtype, {}};
    if (max_batch_size > 0) t.shape.push_back(-1);
    t.shape.insert(t.shape.end(), c.dims().begin(), c.dims().end());
    const PartialShape& model_shape = declared[i].shape;
    bool fits = !model_shape.known_rank() || model_shape.rank() == static_cast<int>(t.shape.size());
    for (size_t k = 0; fits && model_shape.known_rank() && k < t.shape.size(); ++k) {
      const int64_t m = model_shape.dim(static_cast<int>(k));
      if (m >= 0 && t.shape[k] >= 0 && m != t.shape[k]) fits = false;
      if (k == 0 && max_batch_size > 0 && m >= 0) fits = false;  // the batch must be free
    }
    if (!fits) {
      return problem(absl::StrCat(field, " '", c.name(), "': the config's shape ", ShapeText(t.shape),
                                  max_batch_size > 0 ? " (batch first)" : "", " does not fit ", model_path, "'s ",
                                  model_shape.ToString()));
    }
    // What the model knows and the config leaves open.
    for (size_t k = 0; model_shape.known_rank() && k < t.shape.size(); ++k) {
      if (t.shape[k] < 0 && !(k == 0 && max_batch_size > 0)) t.shape[k] = model_shape.dim(static_cast<int>(k));
    }
    out.push_back(std::move(t));
    index->push_back(i);
  }
  return out;
}

// A tensor of `dtype` and `dims` filled with zeros, or (`random`) with values from a
// fixed-seed generator in [0, 1) (integers: 0..9; bools alternate).
StatusOr<Tensor> WarmupTensor(DType dtype, const std::vector<int64_t>& dims, bool random) {
  ASSIGN_OR_RETURN(Shape shape, Shape::Make(dims));
  ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, shape));
  if (dtype == DType::kString) return t;  // empty strings
  std::memset(t.raw_data(), 0, t.bytes());
  if (!random) return t;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / static_cast<double>(uint64_t{1} << 53);
  };
  const int64_t n = t.num_elements();
  switch (dtype) {
    case DType::kFloat32:
      for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(next());
      break;
    case DType::kFloat64:
      for (int64_t i = 0; i < n; ++i) t.data<double>()[i] = next();
      break;
    case DType::kInt32:
      for (int64_t i = 0; i < n; ++i) t.data<int32_t>()[i] = static_cast<int32_t>(next() * 10);
      break;
    case DType::kInt64:
      for (int64_t i = 0; i < n; ++i) t.data<int64_t>()[i] = static_cast<int64_t>(next() * 10);
      break;
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) t.data<bool>()[i] = (i % 2) == 1;
      break;
    default:
      break;  // zeros
  }
  return t;
}

}  // namespace

StatusOr<std::unique_ptr<ServedModel>> ServedModel::Load(const RepositoryModel& model, int64_t version,
                                                         std::shared_ptr<Session> session,
                                                         const CancellationToken& token,
                                                         executor::ThreadPool* pool,
                                                         const serving::ServingMetrics* metrics) {
  auto it = model.versions.find(version);
  if (it == model.versions.end()) return errors::NotFound(absl::StrCat("model '", model.name, "' has no version ", version));
  const VersionFile& file = it->second;
  std::unique_ptr<ServedModel> served(new ServedModel());
  served->name_ = model.name;
  served->version_ = version;
  served->version_label_ = absl::StrCat(version);
  served->kind_ = file.kind;
  served->max_batch_size_ = model.config.max_batch_size();
  served->graph_name_ = kGraphName;
  served->session_ = std::move(session);
  ASSIGN_OR_RETURN(std::string bytes, ReadModelFile(file.path, kMaxModelFileBytes));
  served->file_bytes_ = static_cast<int64_t>(bytes.size());
  auto at_file = [&file](const Status& s) {
    return errors::InvalidArgument(absl::StrCat(file.path, ": ", s.message()));
  };
  LoadedGraph loaded;
  GraphFunctions& graphs = served->session_->graph_functions();
  switch (file.kind) {
    case ModelKind::kOnnx: {
      // The file's bytes are freed once parsed: a large model is not held three times.
      auto l = graphs.LoadOnnx(kGraphName, {.bytes = bytes, .parsed = [&bytes] { std::string().swap(bytes); }},
                               /*reduce_retracing=*/false, &token);
      if (!l.ok()) return at_file(l.status());
      loaded = *std::move(l);
      break;
    }
    case ModelKind::kGraphDef: {
      const v1::ModelConfig& c = model.config;
      if (c.input().empty() || c.output().empty()) {
        return errors::InvalidArgument(absl::StrCat(model.config_path.empty() ? file.path : model.config_path,
                                                    ": a GraphDef model needs its inputs and outputs in config.pbtxt"));
      }
      v1::GraphDef proto;
      if (!proto.ParseFromString(bytes)) return at_file(errors::InvalidArgument("not a binary graphd.v1.GraphDef"));
      auto def = GraphDefFromProto(proto);
      if (!def.ok()) return at_file(def.status());
      std::vector<std::string> ins, outs;
      for (const auto& t : c.input()) ins.push_back(t.name());
      for (const auto& t : c.output()) outs.push_back(t.name());
      auto l = graphs.LoadGraphDef(kGraphName, *def, ins, outs);
      if (!l.ok()) return at_file(l.status());
      loaded = *std::move(l);
      // Its arguments and results are the config's, in order: name them so.
      for (size_t i = 0; i < ins.size(); ++i) loaded.inputs[i].name = ins[i];
      for (size_t i = 0; i < outs.size(); ++i) loaded.outputs[i].name = outs[i];
      break;
    }
    case ModelKind::kSource:
      RETURN_IF_ERROR(served->LoadSource(bytes, file.path, model.config, token, &loaded.inputs, &loaded.outputs));
      break;
  }
  std::vector<int> input_index;
  ASSIGN_OR_RETURN(served->inputs_, Match(loaded.inputs, model.config.input(), served->max_batch_size_, /*all=*/true,
                                          "input", model.config_path, file.path, &input_index));
  // The call takes the graph's inputs in its order: keep inputs() in that order too.
  std::vector<TensorInfo> ordered(served->inputs_.size());
  for (size_t i = 0; i < input_index.size(); ++i) ordered[input_index[i]] = served->inputs_[i];
  served->inputs_ = std::move(ordered);
  ASSIGN_OR_RETURN(served->outputs_, Match(loaded.outputs, model.config.output(), served->max_batch_size_,
                                           /*all=*/false, "output", model.config_path, file.path,
                                           &served->output_index_));
  // A batched GPU model's batches are padded to a few sizes, each warmed below: a
  // GPU session measures its convolution algorithms on the first run of a shape.
  const bool on_gpu = served->session_->device().info().device_type == "GPU";
  if (on_gpu && pool != nullptr && model.config.has_dynamic_batching()) {
    served->padded_sizes_ = serving::PaddedBatchSizes(served->max_batch_size_);
  }
  RETURN_IF_ERROR(served->Warmup(model.config, token));
  if (metrics != nullptr) {
    const std::string version_label = absl::StrCat(version);
    served->compute_ = &metrics->compute.With({model.name, version_label});
    served->queue_ = &metrics->queue.With({model.name, version_label});
    served->batch_size_ = &metrics->batch_size.With({model.name});
    served->inflight_ = &metrics->inflight.With({model.name});
    served->duration_ = &metrics->duration.With({model.name, version_label});
    served->requests_ok_ = &metrics->requests.With({model.name, version_label, "OK"});
  }
  if (pool != nullptr && model.config.has_dynamic_batching()) {
    const v1::ModelDynamicBatching& b = model.config.dynamic_batching();
    serving::BatcherOptions options{
        .max_batch_size = served->max_batch_size_,
        .preferred_batch_sizes = {b.preferred_batch_size().begin(), b.preferred_batch_size().end()},
        .max_queue_delay = std::chrono::microseconds(b.max_queue_delay_microseconds()),
        .max_in_flight = 0,
        .padded_sizes = served->padded_sizes_};
    // A group without a count runs one batch at a time on the CPU (a batch takes the
    // worker pool) and two on a GPU, so that one batch's inputs are joined and copied
    // in and its outputs sent back while the other computes.
    const int per_group = on_gpu ? 2 : 1;
    for (const v1::ModelInstanceGroup& g : model.config.instance_group()) {
      options.max_in_flight += g.count() > 0 ? g.count() : per_group;
    }
    if (model.config.instance_group_size() == 0) options.max_in_flight = per_group;
    const ServedModel* self = served.get();
    served->batcher_ = std::make_unique<serving::Batcher>(
        std::move(options),
        [self](std::vector<Tensor> inputs, const CancellationToken& t) { return self->Execute(std::move(inputs), t); },
        [self](int64_t rows, int64_t ns) { self->Executed(rows, ns); }, *pool,
        [self](int64_t ns) {
          if (self->queue_ != nullptr) self->queue_->Observe(static_cast<double>(ns) * 1e-9);
        });
  }
  return served;
}

Status ServedModel::Warmup(const v1::ModelConfig& config, const CancellationToken& token) const {
  std::vector<std::vector<Tensor>> requests;
  for (const v1::ModelWarmup& w : config.model_warmup()) {
    std::vector<Tensor> inputs;
    for (const TensorInfo& in : inputs_) {
      auto it = w.inputs().find(in.name);
      if (it == w.inputs().end()) {
        return errors::InvalidArgument(absl::StrCat("model_warmup '", w.name(), "' gives no input '", in.name, "'"));
      }
      std::vector<int64_t> dims;
      if (max_batch_size_ > 0) dims.push_back(std::max<uint32_t>(w.batch_size(), 1));
      dims.insert(dims.end(), it->second.dims().begin(), it->second.dims().end());
      ASSIGN_OR_RETURN(DType dtype, DTypeFromConfig(it->second.data_type(), "model_warmup"));
      ASSIGN_OR_RETURN(Tensor t, WarmupTensor(dtype, dims, it->second.random_data()));
      inputs.push_back(std::move(t));
    }
    requests.push_back(std::move(inputs));
  }
  if (config.model_warmup().empty()) {
    // Without warmup requests: one of batch 1 when the shapes allow it, or one of each
    // size the batches are padded to.
    const std::vector<int64_t> sizes = padded_sizes_.empty() ? std::vector<int64_t>{1} : padded_sizes_;
    for (int64_t size : sizes) {
      std::vector<Tensor> inputs;
      for (const TensorInfo& in : inputs_) {
        std::vector<int64_t> dims = in.shape;
        if (max_batch_size_ > 0 && !dims.empty()) dims[0] = size;
        if (in.dtype == DType::kString || absl::c_any_of(dims, [](int64_t d) { return d < 0; })) {
          return absl::OkStatus();  // nothing to guess from
        }
        ASSIGN_OR_RETURN(Tensor t, WarmupTensor(in.dtype, dims, /*random=*/false));
        inputs.push_back(std::move(t));
      }
      requests.push_back(std::move(inputs));
    }
  }
  for (auto& inputs : requests) {
    // Not Run: warmup requests are not the model's traffic (its statistics).
    Status checked = CheckInputs(inputs);
    auto run = checked.ok() ? Execute(std::move(inputs), token) : StatusOr<std::vector<Tensor>>(checked);
    if (!run.ok()) {
      return errors::InvalidArgument(absl::StrCat("warming up version ", version_, " failed: ", run.status().message()));
    }
  }
  return absl::OkStatus();
}

Status ServedModel::CheckInput(const TensorInfo& info, const Tensor& t) const {
  if (t.dtype() != info.dtype) {
    return errors::InvalidArgument(absl::StrCat("input '", info.name, "' of model '", name_, "' must be ",
                                                V2DataType(info.dtype), ", got ", V2DataType(t.dtype())));
  }
  bool fits = t.shape().rank() == static_cast<int>(info.shape.size());
  for (size_t k = 0; fits && k < info.shape.size(); ++k) {
    if (info.shape[k] >= 0 && info.shape[k] != t.shape().dim(static_cast<int>(k))) fits = false;
  }
  if (!fits) {
    return errors::InvalidArgument(absl::StrCat("input '", info.name, "' of model '", name_, "' must have shape ",
                                                ShapeText(info.shape), " (-1: any), got ", t.shape().ToString()));
  }
  if (max_batch_size_ > 0 && t.shape().dim(0) > max_batch_size_) {
    return errors::InvalidArgument(absl::StrCat("input '", info.name, "' of model '", name_, "': batch ",
                                                t.shape().dim(0), " is over max_batch_size ", max_batch_size_));
  }
  return absl::OkStatus();
}

Status ServedModel::CheckInputs(const std::vector<Tensor>& inputs) const {
  if (inputs.size() != inputs_.size()) {
    return errors::InvalidArgument(absl::StrCat("model '", name_, "' takes ", inputs_.size(), " inputs, got ",
                                                inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) RETURN_IF_ERROR(CheckInput(inputs_[i], inputs[i]));
  return absl::OkStatus();
}

StatusOr<std::vector<Tensor>> ServedModel::Run(std::vector<Tensor> inputs, const CancellationToken& token) const {
  RETURN_IF_ERROR(CheckInputs(inputs));
  const int64_t rows = max_batch_size_ > 0 && !inputs.empty() ? inputs[0].shape().dim(0) : 1;
  auto start = std::chrono::steady_clock::now();
  auto outputs = Execute(std::move(inputs), token);
  if (outputs.ok()) {
    Executed(rows, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  }
  return outputs;
}

void ServedModel::Executed(int64_t rows, int64_t ns) const {
  stats_.Executed(rows, static_cast<uint64_t>(ns));
  if (compute_ != nullptr) compute_->Observe(static_cast<double>(ns) * 1e-9);
  if (batch_size_ != nullptr) batch_size_->Observe(static_cast<double>(rows));
}

void ServedModel::Submit(std::vector<Tensor> inputs, const CancellationToken* token,
                         serving::Batcher::DoneFn done) const {
  if (Status s = CheckInputs(inputs); !s.ok()) return done(s);
  batcher_->Submit(std::move(inputs), token, std::move(done));
}

StatusOr<std::vector<Tensor>> ServedModel::Execute(std::vector<Tensor> inputs, const CancellationToken& token) const {
  // A served model is the server's, whichever tenant's request runs it (or a batch of
  // several tenants'): its compiles and tensors are charged to the server's account.
  ScopedMemoryAccount server_memory(nullptr);
  tenancy::ScopedCompileMeter no_compile_quota(nullptr);
  // Device memory (a GPU model's) is charged to the model's own session, and the GPU
  // streams this thread took go back to the pool when the unit of work ends (a batch
  // on the pool's thread is one; so are warmup and an unbatched request).
  executor::ScopedMemoryOwner device_owner(session_->handle());
  absl::Cleanup release_gpu_streams = [] { executor::gpu::ReleaseThreadState(); };
  if (kind_ == ModelKind::kSource) return ExecuteSource(std::move(inputs), token);
  std::vector<GraphValue> values;
  values.reserve(inputs.size());
  for (Tensor& t : inputs) values.push_back(GraphValue::FromTensor(std::move(t)));
  ASSIGN_OR_RETURN(GraphCallResult result,
                   session_->graph_functions().Call(graph_name_, std::move(values), session_->variables(), token));
  std::vector<Tensor> outputs;
  outputs.reserve(output_index_.size());
  for (int i : output_index_) outputs.push_back(std::move(result.outputs[i].tensor));
  return outputs;
}

}  // namespace graphd::server::models
