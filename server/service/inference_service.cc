#include "server/service/inference_service.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/models/datatypes.h"
#include "server/service/infer_codec.h"
#include "server/service/status_codec.h"
#include "server/version.h"

namespace graphd::server {
namespace {

grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* ctx, const Status& status) {
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status, ctx));
  return reactor;
}

void TensorMetadata(const models::TensorInfo& t, inference::ModelMetadataResponse::TensorMetadata* out) {
  out->set_name(t.name);
  out->set_datatype(std::string(models::V2DataType(t.dtype)));
  for (int64_t d : t.shape) out->add_shape(d);
}

void DurationToProto(const models::Duration& d, inference::StatisticDuration* out) {
  out->set_count(d.count.load(std::memory_order_relaxed));
  out->set_ns(d.ns.load(std::memory_order_relaxed));
}

void StatsToProto(const models::ServedModel& m, inference::ModelStatistics* out) {
  const models::ModelStats& s = m.stats();
  out->set_name(m.name());
  out->set_version(absl::StrCat(m.version()));
  out->set_last_inference(s.last_inference_ms.load(std::memory_order_relaxed));
  out->set_inference_count(s.inference_count.load(std::memory_order_relaxed));
  out->set_execution_count(s.execution_count.load(std::memory_order_relaxed));
  DurationToProto(s.success, out->mutable_inference_stats()->mutable_success());
  DurationToProto(s.fail, out->mutable_inference_stats()->mutable_fail());
  DurationToProto(s.compute_infer, out->mutable_inference_stats()->mutable_compute_infer());
  for (const auto& [size, e] : s.batches.Snapshot()) {
    auto* b = out->add_batch_stats();
    b->set_batch_size(static_cast<uint64_t>(size));
    b->mutable_compute_infer()->set_count(e.count);
    b->mutable_compute_infer()->set_ns(e.ns);
  }
}

uint64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The model's inputs, in its order, from the request's (by name).
StatusOr<std::vector<Tensor>> OrderInputs(const models::ServedModel& model, std::vector<NamedTensor> given) {
  std::vector<Tensor> out(model.inputs().size());
  std::vector<bool> have(out.size(), false);
  for (NamedTensor& g : given) {
    size_t i = 0;
    while (i < model.inputs().size() && model.inputs()[i].name != g.name) ++i;
    if (i == model.inputs().size()) {
      std::vector<std::string> names;
      for (const auto& in : model.inputs()) names.push_back(in.name);
      return errors::InvalidArgument(absl::StrCat("model '", model.name(), "' has no input '", g.name, "' (its inputs: ",
                                                  absl::StrJoin(names, ", "), ")"));
    }
    out[i] = std::move(g.tensor);
    have[i] = true;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!have[i]) {
      return errors::InvalidArgument(absl::StrCat("model '", model.name(), "' needs input '", model.inputs()[i].name,
                                                  "'"));
    }
  }
  return out;
}

// The outputs a request asks for (indices into model.outputs(); all when it names none).
StatusOr<std::vector<int>> WantedOutputs(const models::ServedModel& model, const inference::ModelInferRequest& req) {
  std::vector<int> wanted;
  for (const auto& o : req.outputs()) {
    size_t i = 0;
    while (i < model.outputs().size() && model.outputs()[i].name != o.name()) ++i;
    if (i == model.outputs().size()) {
      std::vector<std::string> names;
      for (const auto& out : model.outputs()) names.push_back(out.name);
      return errors::InvalidArgument(absl::StrCat("model '", model.name(), "' has no output '", o.name(),
                                                  "' (its outputs: ", absl::StrJoin(names, ", "), ")"));
    }
    wanted.push_back(static_cast<int>(i));
  }
  if (wanted.empty()) {
    for (size_t i = 0; i < model.outputs().size(); ++i) wanted.push_back(static_cast<int>(i));
  }
  return wanted;
}

// The response for `outputs` (the model's, in its order).
Status Respond(const models::ServedModel& model, const inference::ModelInferRequest& req, const std::vector<int>& wanted,
               const std::vector<Tensor>& outputs, inference::ModelInferResponse* resp) {
  resp->set_model_name(model.name());
  resp->set_model_version(absl::StrCat(model.version()));
  resp->set_id(req.id());
  for (int i : wanted) RETURN_IF_ERROR(AddInferOutput(model.outputs()[i].name, outputs[i], resp));
  return absl::OkStatus();
}

// Records a finished request in the model's statistics.
void Record(const models::ServedModel& model, const Status& status, std::chrono::steady_clock::time_point start,
            uint64_t rows) {
  const uint64_t ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  models::ModelStats& stats = model.stats();
  (status.ok() ? stats.success : stats.fail).Add(ns);
  if (status.ok()) stats.inference_count.fetch_add(rows, std::memory_order_relaxed);
  stats.last_inference_ms.store(NowMs(), std::memory_order_relaxed);
}

}  // namespace

grpc::ServerUnaryReactor* InferenceServiceImpl::ServerLive(grpc::CallbackServerContext* ctx,
                                                           const inference::ServerLiveRequest*,
                                                           inference::ServerLiveResponse* resp) {
  resp->set_live(true);
  return Finish(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ServerReady(grpc::CallbackServerContext* ctx,
                                                            const inference::ServerReadyRequest*,
                                                            inference::ServerReadyResponse* resp) {
  resp->set_ready(ready_());
  return Finish(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ModelReady(grpc::CallbackServerContext* ctx,
                                                           const inference::ModelReadyRequest* req,
                                                           inference::ModelReadyResponse* resp) {
  auto model = models_.Find(req->name(), req->version());
  if (!model.ok() && model.status().code() == absl::StatusCode::kInvalidArgument) return Finish(ctx, model.status());
  resp->set_ready(model.ok() && ready_());
  return Finish(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ServerMetadata(grpc::CallbackServerContext* ctx,
                                                               const inference::ServerMetadataRequest*,
                                                               inference::ServerMetadataResponse* resp) {
  resp->set_name("graphd");
  resp->set_version(kVersion);
  resp->add_extensions("model_repository");
  resp->add_extensions("statistics");
  return Finish(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ModelMetadata(grpc::CallbackServerContext* ctx,
                                                              const inference::ModelMetadataRequest* req,
                                                              inference::ModelMetadataResponse* resp) {
  auto model = models_.Find(req->name(), req->version());
  if (!model.ok()) return Finish(ctx, model.status());
  const models::ServedModel& m = **model;
  resp->set_name(m.name());
  for (int64_t v : models_.Versions(m.name())) resp->add_versions(absl::StrCat(v));
  resp->set_platform(std::string(m.platform()));
  for (const auto& t : m.inputs()) TensorMetadata(t, resp->add_inputs());
  for (const auto& t : m.outputs()) TensorMetadata(t, resp->add_outputs());
  return Finish(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ModelInfer(grpc::CallbackServerContext* ctx,
                                                           const inference::ModelInferRequest* req,
                                                           inference::ModelInferResponse* resp) {
  return PooledCall::Start(ctx, env_, "ModelInfer", req->model_name(), [=, this](PooledCall& call) -> Status {
    ASSIGN_OR_RETURN(std::shared_ptr<const models::ServedModel> model,
                     models_.Find(req->model_name(), req->model_version()));
    const auto start = std::chrono::steady_clock::now();
    std::vector<int> wanted;
    std::vector<Tensor> inputs;
    Status prepared = [&]() -> Status {
      ASSIGN_OR_RETURN(wanted, WantedOutputs(*model, *req));
      ASSIGN_OR_RETURN(std::vector<NamedTensor> given, InferInputsFromProto(*req));
      ASSIGN_OR_RETURN(inputs, OrderInputs(*model, std::move(given)));
      return absl::OkStatus();
    }();
    if (!prepared.ok()) {
      Record(*model, prepared, start, 0);
      return prepared;
    }
    const uint64_t rows = model->max_batch_size() > 0 && !inputs.empty() && inputs[0].shape().rank() > 0
                              ? static_cast<uint64_t>(inputs[0].shape().dim(0))
                              : 1;
    if (model->batching()) {
      PooledCall* pending = &call;
      model->Submit(std::move(inputs), &call.token(),
                    [pending, req, resp, model, wanted = std::move(wanted), start, rows](
                        StatusOr<std::vector<Tensor>> outputs) {
                      Status status = outputs.ok() ? Respond(*model, *req, wanted, *outputs, resp) : outputs.status();
                      Record(*model, status, start, rows);
                      pending->FinishDeferred(status);
                    });
      return PooledCall::Deferred();
    }
    auto outputs = model->Run(std::move(inputs), call.token());
    Status status = outputs.ok() ? Respond(*model, *req, wanted, *outputs, resp) : outputs.status();
    Record(*model, status, start, rows);
    return status;
  });
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ModelStatistics(grpc::CallbackServerContext* ctx,
                                                                const inference::ModelStatisticsRequest* req,
                                                                inference::ModelStatisticsResponse* resp) {
  std::vector<std::string> names;
  if (!req->name().empty()) {
    names.push_back(req->name());
  } else {
    for (const auto& e : models_.Index()) {
      if (names.empty() || names.back() != e.name) names.push_back(e.name);
    }
  }
  for (const std::string& name : names) {
    if (!req->version().empty()) {
      auto model = models_.Find(name, req->version());
      if (!model.ok()) return Finish(ctx, model.status());
      StatsToProto(**model, resp->add_model_stats());
      continue;
    }
    std::vector<int64_t> versions = models_.Versions(name);
    if (versions.empty() && !req->name().empty()) return Finish(ctx, models_.Find(name, "").status());
    for (int64_t v : versions) {
      auto model = models_.Find(name, absl::StrCat(v));
      if (model.ok()) StatsToProto(**model, resp->add_model_stats());  // unloaded meanwhile: skipped
    }
  }
  return Finish(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* InferenceServiceImpl::RepositoryIndex(grpc::CallbackServerContext* ctx,
                                                                const inference::RepositoryIndexRequest* req,
                                                                inference::RepositoryIndexResponse* resp) {
  for (const models::ModelIndexEntry& e : models_.Index()) {
    if (req->ready() && e.state != "READY") continue;
    auto* out = resp->add_models();
    out->set_name(e.name);
    if (e.version > 0) out->set_version(absl::StrCat(e.version));
    out->set_state(e.state);
    out->set_reason(e.reason);
  }
  return Finish(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* InferenceServiceImpl::RepositoryModelLoad(grpc::CallbackServerContext* ctx,
                                                                    const inference::RepositoryModelLoadRequest* req,
                                                                    inference::RepositoryModelLoadResponse*) {
  return PooledCall::Start(ctx, env_, "RepositoryModelLoad", req->model_name(),
                           [=, this](PooledCall&) -> Status { return models_.Load(req->model_name()); });
}

grpc::ServerUnaryReactor* InferenceServiceImpl::RepositoryModelUnload(
    grpc::CallbackServerContext* ctx, const inference::RepositoryModelUnloadRequest* req,
    inference::RepositoryModelUnloadResponse*) {
  return Finish(ctx, models_.Unload(req->model_name()));
}

}  // namespace graphd::server
