#include "server/service/session_service.h"

#include "server/malloc_tuning.h"
#include "server/service/graph_codec.h"
#include "server/service/pooled_call.h"
#include "server/service/quick_call.h"
#include "server/service/run_metadata.h"
#include "server/service/status_codec.h"
#include "server/service/tensor_codec.h"

namespace graphd::server {
namespace {

Status ApplyRunOptions(const v1::RunOptions& options, CancellationToken& token) {
  if (options.timeout_in_ms() < 0) {
    return errors::InvalidArgument(
        absl::StrCat("timeout_in_ms must be >= 0, got ", options.timeout_in_ms()));
  }
  if (options.timeout_in_ms() > 0) {
    token.TightenDeadline(CancellationToken::Clock::now() +
                          std::chrono::milliseconds(options.timeout_in_ms()));
  }
  return absl::OkStatus();
}

template <typename Repeated>
RunSignature SignatureOf(const Repeated& feeds, const google::protobuf::RepeatedPtrField<std::string>& fetches,
                         const google::protobuf::RepeatedPtrField<std::string>& targets) {
  RunSignature sig;
  for (const auto& f : feeds) sig.feeds.push_back(f);
  sig.fetches.assign(fetches.begin(), fetches.end());
  sig.targets.assign(targets.begin(), targets.end());
  return sig;
}

}  // namespace

StatusOr<std::shared_ptr<Session>> SessionServiceImpl::SessionFor(PooledCall& call, const std::string& handle) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Session> session, sessions_.Get(handle, call.tenant()));
  call.token().CancelledWith(session->closed(), "its session was closed");
  return session;
}

// The handle a client proposes for its new session: its `graphd-session` route key
// (deploy/proxy routes on it), or "".
static absl::string_view ProposedHandle(const grpc::CallbackServerContext& ctx) {
  const auto& metadata = ctx.client_metadata();
  auto it = metadata.find("graphd-session");
  return it == metadata.end() ? absl::string_view() : absl::string_view(it->second.data(), it->second.size());
}

bool SmallRequest(const google::protobuf::Message& req) { return req.ByteSizeLong() <= kSmallRequestBytes; }

grpc::ServerUnaryReactor* SessionServiceImpl::CreateSession(grpc::CallbackServerContext* ctx,
                                                            const v1::CreateSessionRequest* req,
                                                            v1::CreateSessionResponse* resp) {
  return PooledCall::Start(ctx, env_, "CreateSession", "", req, resp, [=, this](PooledCall& call) -> Status {
    ASSIGN_OR_RETURN(GraphDef def, GraphDefFromProto(req->graph_def()));
    ASSIGN_OR_RETURN(auto session, sessions_.Create(def, req->options().device(), call.tenant(), call.tenant_config().max_sessions(),
                                                      /*own_functions=*/call.tenant_config().max_memory_bytes() > 0,
                                                      ProposedHandle(*ctx)));
    resp->set_session_handle(session->handle());
    resp->set_graph_version(session->graph_version());
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* SessionServiceImpl::ExtendSession(grpc::CallbackServerContext* ctx,
                                                            const v1::ExtendSessionRequest* req,
                                                            v1::ExtendSessionResponse* resp) {
  return PooledCall::Start(ctx, env_, "ExtendSession", req->session_handle(), req, resp,
                           [=, this](PooledCall& call) -> Status {
                             ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
                             ASSIGN_OR_RETURN(GraphDef def, GraphDefFromProto(req->graph_def()));
                             ASSIGN_OR_RETURN(int64_t version,
                                              session->Extend(def, req->current_graph_version()));
                             resp->set_new_graph_version(version);
                             return absl::OkStatus();
                           });
}

grpc::ServerUnaryReactor* SessionServiceImpl::Run(grpc::CallbackServerContext* ctx,
                                                  const v1::RunRequest* req, v1::RunResponse* resp) {
  return PooledCall::Start(ctx, env_, "Run", req->session_handle(), req, resp,
                           [=, this](PooledCall& call) -> Status {
    RETURN_IF_ERROR(ApplyRunOptions(req->options(), call.token()));
    ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
    std::vector<std::string> feed_names;
    std::vector<Tensor> feeds;
    for (const v1::NamedTensor& feed : req->feed()) {
      ASSIGN_OR_RETURN(Tensor t, TensorFromProto(feed.tensor(), absl::StrCat("feed '", feed.name(), "'")));
      feed_names.push_back(feed.name());
      feeds.push_back(std::move(t));
    }
    RunSignature sig = SignatureOf(feed_names, req->fetch(), req->target());
    executor::RunTrace steps;
    executor::RunTrace* trace = TraceFor(req->options(), steps);
    ASSIGN_OR_RETURN(RunResult result,
                     session->Run(sig, std::move(feeds), call.token(), trace));
    if (static_cast<int>(result.fetches.size()) != req->fetch_size()) {
      return errors::Internal(absl::StrCat("the run returned ", result.fetches.size(),
                                           " tensors for ", req->fetch_size(), " fetches"));
    }
    for (size_t i = 0; i < result.fetches.size(); ++i) {
      v1::NamedTensor* out = resp->add_tensor();
      out->set_name(req->fetch(static_cast<int>(i)));
      TensorToProto(result.fetches[i], out->mutable_tensor());
    }
    resp->set_stdout(std::move(result.stdout_text));
    resp->set_stderr(std::move(result.stderr_text));
    FillRunMetadata(call, result.timings.compile_us, result.timings.execute_us, trace,
                    resp->mutable_metadata());
    return absl::OkStatus();
  }, SmallRequest(*req));
}

grpc::ServerUnaryReactor* SessionServiceImpl::MakeCallable(grpc::CallbackServerContext* ctx,
                                                           const v1::MakeCallableRequest* req,
                                                           v1::MakeCallableResponse* resp) {
  return PooledCall::Start(ctx, env_, "MakeCallable", req->session_handle(), req, resp,
                           [=, this](PooledCall& call) -> Status {
    ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
    const v1::CallableOptions& o = req->options();
    ASSIGN_OR_RETURN(int64_t handle,
                     session->MakeCallable(SignatureOf(o.feed(), o.fetch(), o.target()), call.token()));
    resp->set_handle(handle);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* SessionServiceImpl::RunCallable(grpc::CallbackServerContext* ctx,
                                                          const v1::RunCallableRequest* req,
                                                          v1::RunCallableResponse* resp) {
  return PooledCall::Start(ctx, env_, "RunCallable", req->session_handle(), req, resp,
                           [=, this](PooledCall& call) -> Status {
    RETURN_IF_ERROR(ApplyRunOptions(req->options(), call.token()));
    ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
    std::vector<Tensor> feeds;
    for (int i = 0; i < req->feed_size(); ++i) {
      ASSIGN_OR_RETURN(Tensor t, TensorFromProto(req->feed(i), absl::StrCat("feed #", i)));
      feeds.push_back(std::move(t));
    }
    executor::RunTrace steps;
    executor::RunTrace* trace = TraceFor(req->options(), steps);
    ASSIGN_OR_RETURN(RunResult result, session->RunCallable(req->handle(), std::move(feeds), call.token(),
                                                            trace));
    for (const Tensor& t : result.fetches) TensorToProto(t, resp->add_fetch());
    resp->set_stdout(std::move(result.stdout_text));
    resp->set_stderr(std::move(result.stderr_text));
    FillRunMetadata(call, result.timings.compile_us, result.timings.execute_us, trace,
                    resp->mutable_metadata());
    return absl::OkStatus();
  }, SmallRequest(*req));
}

grpc::ServerUnaryReactor* SessionServiceImpl::ReleaseCallable(grpc::CallbackServerContext* ctx,
                                                              const v1::ReleaseCallableRequest* req,
                                                              v1::ReleaseCallableResponse*) {
  return PooledCall::Start(ctx, env_, "ReleaseCallable", req->session_handle(), req, nullptr,
                           [=, this](PooledCall& call) -> Status {
                             ASSIGN_OR_RETURN(auto session, SessionFor(call, req->session_handle()));
                             return session->ReleaseCallable(req->handle());
                           });
}

grpc::ServerUnaryReactor* SessionServiceImpl::CloseSession(grpc::CallbackServerContext* ctx,
                                                           const v1::CloseSessionRequest* req,
                                                           v1::CloseSessionResponse*) {
  // Answered on the gRPC thread, not queued behind the workers: closing is how a client
  // stops a call of the session that holds a worker (its running calls are cancelled),
  // and a tenant at its max_concurrent_calls can still close sessions.
  QuickCall call(ctx, env_, "CloseSession", req);
  call.set_session(req->session_handle());
  if (!call.authenticated()) return call.Finish(call.auth_status());
  Status closed = sessions_.Close(req->session_handle(), call.tenant().name());
  if (closed.ok()) ReleaseFreeMemory();  // its plans and buffers, unless a call still holds them
  return call.Finish(closed);
}

grpc::ServerUnaryReactor* SessionServiceImpl::ListDevices(grpc::CallbackServerContext* ctx,
                                                          const v1::ListDevicesRequest* req,
                                                          v1::ListDevicesResponse* resp) {
  QuickCall call(ctx, env_, "ListDevices", req);
  if (!call.authenticated()) return call.Finish(call.auth_status());
  const executor::DeviceInfo& info = device_.info();
  v1::DeviceAttributes* d = resp->add_device();
  d->set_name(info.name);
  d->set_device_type(info.device_type);
  d->set_memory_limit(info.memory_limit);
  d->set_description(info.description);
  for (const executor::DeviceInfo& gpu : sessions_.gpus().devices) {
    v1::DeviceAttributes* g = resp->add_device();
    g->set_name(gpu.name);
    g->set_device_type(gpu.device_type);
    g->set_memory_limit(gpu.memory_limit);
    g->set_description(gpu.description);
  }
  return call.Finish(absl::OkStatus(), resp);
}

}  // namespace graphd::server
