#include "server/service/inference_service.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/models/datatypes.h"
#include "server/service/infer_codec.h"
#include "server/service/quick_call.h"
#include "server/service/session_service.h"
#include "server/service/status_codec.h"
#include "server/version.h"

namespace graphd::server {
namespace {

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

}  // namespace

grpc::ServerUnaryReactor* InferenceServiceImpl::ServerLive(grpc::CallbackServerContext* ctx,
                                                           const inference::ServerLiveRequest* req,
                                                           inference::ServerLiveResponse* resp) {
  QuickCall call(ctx, env_, "ServerLive", req, /*open=*/true);
  resp->set_live(true);
  return call.Finish(absl::OkStatus(), resp);
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ServerReady(grpc::CallbackServerContext* ctx,
                                                            const inference::ServerReadyRequest* req,
                                                            inference::ServerReadyResponse* resp) {
  QuickCall call(ctx, env_, "ServerReady", req, /*open=*/true);
  resp->set_ready(ready_());
  return call.Finish(absl::OkStatus(), resp);
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ModelReady(grpc::CallbackServerContext* ctx,
                                                           const inference::ModelReadyRequest* req,
                                                           inference::ModelReadyResponse* resp) {
  QuickCall call(ctx, env_, "ModelReady", req);
  call.set_session(req->name());
  if (!call.authenticated()) return call.Finish(call.auth_status());
  auto model = models_.Find(req->name(), req->version());
  if (!model.ok() && model.status().code() == absl::StatusCode::kInvalidArgument) return call.Finish(model.status());
  resp->set_ready(model.ok() && ready_());
  return call.Finish(absl::OkStatus(), resp);
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ServerMetadata(grpc::CallbackServerContext* ctx,
                                                               const inference::ServerMetadataRequest* req,
                                                               inference::ServerMetadataResponse* resp) {
  QuickCall call(ctx, env_, "ServerMetadata", req);
  if (!call.authenticated()) return call.Finish(call.auth_status());
  resp->set_name("graphd");
  resp->set_version(kVersion);
  resp->add_extensions("model_repository");
  resp->add_extensions("statistics");
  return call.Finish(absl::OkStatus(), resp);
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ModelMetadata(grpc::CallbackServerContext* ctx,
                                                              const inference::ModelMetadataRequest* req,
                                                              inference::ModelMetadataResponse* resp) {
  QuickCall call(ctx, env_, "ModelMetadata", req);
  call.set_session(req->name());
  if (!call.authenticated()) return call.Finish(call.auth_status());
  if (Status allowed = tenancy::MayUseModel(call.tenant(), req->name()); !allowed.ok()) return call.Finish(allowed);
  auto model = models_.Find(req->name(), req->version());
  if (!model.ok()) return call.Finish(model.status());
  const models::ServedModel& m = **model;
  resp->set_name(m.name());
  for (int64_t v : models_.Versions(m.name())) resp->add_versions(absl::StrCat(v));
  resp->set_platform(std::string(m.platform()));
  for (const auto& t : m.inputs()) TensorMetadata(t, resp->add_inputs());
  for (const auto& t : m.outputs()) TensorMetadata(t, resp->add_outputs());
  return call.Finish(absl::OkStatus(), resp);
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ModelInfer(grpc::CallbackServerContext* ctx,
                                                           const inference::ModelInferRequest* req,
                                                           inference::ModelInferResponse* resp) {
  // A small request may run on the gRPC thread when its model ran quickly last time
  // (pooled_call.h); a batched model's request is only queued there.
  return PooledCall::Start(ctx, env_, "ModelInfer", req->model_name(), req, resp, [=, this](PooledCall& call) -> Status {
    RETURN_IF_ERROR(tenancy::MayUseModel(call.tenant_config(), req->model_name()));
    ASSIGN_OR_RETURN(serving::InferRequest request, InferRequestFromProto(*req));
    // `done` runs before Infer returns (the result is returned from here, so that a
    // NotQuick() attempt goes on to the pool), or later from a batch (it finishes the
    // call itself; `call` is not touched after Infer then).
    // No mutex per request (absl's deadlock detector makes creating one costly): the
    // first of `done` and the return below to flip `state` leaves the result to the other.
    struct Handoff {
      std::atomic<int> state{0};  // 0: neither yet; 1: done ran first; 2: returned first
      Status result;
    };
    auto handoff = std::make_shared<Handoff>();
    PooledCall* pending = &call;
    serving::Infer(models_, std::move(request), &call.token(),
                   [handoff, pending, resp](StatusOr<serving::InferResponse> r) {
                     Status status = r.ok() ? InferResponseToProto(*r, resp) : r.status();
                     handoff->result = status;
                     int expected = 0;
                     if (handoff->state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return;
                     pending->FinishDeferred(status);  // Infer returned already: finish the call here
                   });
    int expected = 0;
    if (handoff->state.compare_exchange_strong(expected, 2, std::memory_order_acq_rel)) return PooledCall::Deferred();
    return handoff->result;  // `done` ran before Infer returned
  }, SmallRequest(*req));
}

grpc::ServerUnaryReactor* InferenceServiceImpl::ModelStatistics(grpc::CallbackServerContext* ctx,
                                                                const inference::ModelStatisticsRequest* req,
                                                                inference::ModelStatisticsResponse* resp) {
  QuickCall call(ctx, env_, "ModelStatistics", req);
  call.set_session(req->name());
  if (!call.authenticated()) return call.Finish(call.auth_status());
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
      if (!model.ok()) return call.Finish(model.status());
      StatsToProto(**model, resp->add_model_stats());
      continue;
    }
    std::vector<int64_t> versions = models_.Versions(name);
    if (versions.empty() && !req->name().empty()) return call.Finish(models_.Find(name, "").status());
    for (int64_t v : versions) {
      auto model = models_.Find(name, absl::StrCat(v));
      if (model.ok()) StatsToProto(**model, resp->add_model_stats());  // unloaded meanwhile: skipped
    }
  }
  return call.Finish(absl::OkStatus(), resp);
}

grpc::ServerUnaryReactor* InferenceServiceImpl::RepositoryIndex(grpc::CallbackServerContext* ctx,
                                                                const inference::RepositoryIndexRequest* req,
                                                                inference::RepositoryIndexResponse* resp) {
  QuickCall call(ctx, env_, "RepositoryIndex", req);
  if (!call.authenticated()) return call.Finish(call.auth_status());
  for (const models::ModelIndexEntry& e : models_.Index()) {
    if (req->ready() && e.state != "READY") continue;
    auto* out = resp->add_models();
    out->set_name(e.name);
    if (e.version > 0) out->set_version(absl::StrCat(e.version));
    out->set_state(e.state);
    out->set_reason(e.reason);
  }
  return call.Finish(absl::OkStatus(), resp);
}

grpc::ServerUnaryReactor* InferenceServiceImpl::RepositoryModelLoad(grpc::CallbackServerContext* ctx,
                                                                    const inference::RepositoryModelLoadRequest* req,
                                                                    inference::RepositoryModelLoadResponse*) {
  return PooledCall::Start(ctx, env_, "RepositoryModelLoad", req->model_name(), req, nullptr,
                           [=, this](PooledCall&) -> Status { return models_.Load(req->model_name()); });
}

grpc::ServerUnaryReactor* InferenceServiceImpl::RepositoryModelUnload(
    grpc::CallbackServerContext* ctx, const inference::RepositoryModelUnloadRequest* req,
    inference::RepositoryModelUnloadResponse*) {
  // Waits for a load or poll in progress: on a worker, like a load.
  return PooledCall::Start(ctx, env_, "RepositoryModelUnload", req->model_name(), req, nullptr,
                           [=, this](PooledCall&) -> Status { return models_.Unload(req->model_name()); });
}

}  // namespace graphd::server
