#include "server/service/pooled_call.h"

#include <algorithm>

#include "absl/hash/hash.h"

#include "executor/gpu/gpu_device.h"
#include "executor/memory_owner.h"

#include "core/current_cancellation.h"
#include "core/logging.h"
#include "server/audit_log.h"
#include "server/quick_run.h"
#include "server/service/status_codec.h"

namespace graphd::server {
namespace {
// gRPC reports "no deadline" as a time point far in the future.
constexpr auto kNoDeadline = std::chrono::hours(24 * 365);
constexpr char kDeferredPayload[] = "graphd.dev/deferred";
}  // namespace

PooledCall::PooledCall(grpc::CallbackServerContext* context, const char* method, std::string session,
                       const google::protobuf::MessageLite* request, const google::protobuf::MessageLite* response)
    : context_(context),
      method_(method),
      session_(std::move(session)),
      arrived_(Clock::now()),
      response_(response),
      request_bytes_(request != nullptr && AuditLogEnabled() ? static_cast<int64_t>(request->ByteSizeLong()) : 0) {
  auto deadline = context->deadline();
  auto now = std::chrono::system_clock::now();
  if (deadline < now + kNoDeadline) {
    token_.TightenDeadline(arrived_ + std::chrono::duration_cast<Clock::duration>(deadline - now));
  }
}

StatusOr<std::shared_ptr<const v1::Tenant>> PooledCall::Authenticate(grpc::CallbackServerContext* context,
                                                                     const Env& env) {
  if (env.tenants == nullptr || !env.tenants->enabled()) {
    return tenancy::Authenticate(nullptr, "");  // the anonymous tenant, no metadata read
  }
  absl::string_view authorization;
  const auto& metadata = context->client_metadata();
  if (auto it = metadata.find("authorization"); it != metadata.end()) {
    authorization = absl::string_view(it->second.data(), it->second.size());
  }
  return env.tenants->Authenticate(authorization);
}

Status PooledCall::Admit(const Env& env) {
  ASSIGN_OR_RETURN(tenant_, Authenticate(context_, env));
  if (!env.gate.TryEnter()) return errors::Unavailable("the server is shutting down; retry on another replica");
  const bool counted = env.usage != nullptr && tenant_->max_concurrent_calls() > 0;  // no quota: nothing to count
  if (counted) {
    if (Status quota = env.usage->BeginCall(tenant_->name(), tenant_->max_concurrent_calls()); !quota.ok()) {
      env.gate.Exit();
      return quota;
    }
  }
  gate_ = &env.gate;
  usage_ = counted ? env.usage : nullptr;
  if (env.usage != nullptr && env.tenants != nullptr && env.tenants->enabled()) meters_ = env.usage->For(*tenant_);
  return absl::OkStatus();
}

void PooledCall::Schedule(const Env& env, Work work) {
  const v1::Tenant& tenant_config = *tenant_;
  const uint64_t flow = env.fair ? absl::HashOf(tenant_config.name()) : 0;
  env.pool.Schedule(flow, std::max<int64_t>(tenant_config.weight(), 1),
                    [this, work = std::move(work)] { Run(work); });
}

bool PooledCall::RunInline(const Env& env, const Work& work) {
  if (env.inline_us <= 0 || !env.pool.TryBeginInline()) return false;
  quick_us_ = env.inline_us;
  bool finished;
  env.pool.RunInline([&] {
    QuickScope quick(env.inline_us);  // the session layer checks it after its cache lookup
    finished = Run(work);
  });  // Finish() inside the handler: gRPC sends it after we return
  env.pool.EndInline();
  if (!finished) quick_us_ = 0;
  return finished;
}

namespace {

// The unary reactor.
class UnaryCall final : public PooledCall, public grpc::ServerUnaryReactor {
 public:
  UnaryCall(grpc::CallbackServerContext* context, const char* method, std::string session,
            const google::protobuf::MessageLite* request, const google::protobuf::MessageLite* response)
      : PooledCall(context, method, std::move(session), request, response) {}

  // Start's steps, which need the protected members.
  grpc::ServerUnaryReactor* Begin(const Env& env, Work work, bool may_run_inline) {
    if (Status admitted = Admit(env); !admitted.ok()) {
      Complete(admitted);
      return this;
    }
    if (!(may_run_inline && RunInline(env, work))) Schedule(env, std::move(work));
    return this;
  }

  void OnCancel() override { token().Cancel(); }
  void OnDone() override {
    Done();
    delete this;
  }
  // Both reactions above are trivial (no blocking, a few instructions), so gRPC may
  // run them on the thread that completes the call instead of scheduling them on
  // its callback executor: one thread hop less per call, as for gRPC's own
  // DefaultReactor (which the echo uses).
  bool InternalInlineable() override { return true; }

 private:
  void SendFinish(const grpc::Status& status) override { Finish(status); }
};

}  // namespace

grpc::ServerUnaryReactor* PooledCall::Start(grpc::CallbackServerContext* context, const Env& env,
                                            const char* method, std::string session,
                                            const google::protobuf::MessageLite* request,
                                            const google::protobuf::MessageLite* response, Work work,
                                            bool may_run_inline) {
  auto* call = new UnaryCall(context, method, std::move(session), request, response);
  return call->Begin(env, std::move(work), may_run_inline);
}

void PooledCall::Complete(const Status& status) {
  code_ = status.code();
  // The tenant's call slot goes back before the answer does: a client that waits for
  // each answer before its next call never finds its own finished call still counted.
  if (usage_ != nullptr) {
    usage_->EndCall(tenant_->name());
    usage_ = nullptr;
  }
  if (AuditLogEnabled()) {  // read before Finish: the messages may go once it is sent
    peer_ = context_->peer();
    if (status.ok() && response_ != nullptr) response_bytes_ = static_cast<int64_t>(response_->ByteSizeLong());
  }
  SendFinish(ToGrpcStatus(status, context_));
}

void PooledCall::Done() {
  if (AuditLogEnabled()) {
    WriteAudit({.protocol = "grpc",
                .method = method_,
                .tenant = tenant_ != nullptr ? absl::string_view(tenant_->name()) : absl::string_view(),
                .session = session_,
                .peer = peer_,
                .code = code_,
                .duration_us = elapsed_us(),
                .request_bytes = request_bytes_,
                .response_bytes = response_bytes_});
  }
  if (gate_ != nullptr) gate_->Exit();  // (the tenant's call slot went back in Complete)
}

int64_t PooledCall::elapsed_us() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - arrived_).count();
}

Status PooledCall::Deferred() {
  Status s = errors::Internal("deferred");
  s.SetPayload(kDeferredPayload, absl::Cord("1"));
  return s;
}

bool PooledCall::IsDeferred(const Status& status) { return status.GetPayload(kDeferredPayload).has_value(); }

void PooledCall::FinishDeferred(const Status& status) { Complete(status); }

bool PooledCall::Run(const Work& work) {
  queue_us_ = elapsed_us();
  Status status = token_.Check();
  if (status.ok()) {
    {
      executor::ScopedMemoryOwner owner(session_);  // device memory charged to the session
      ScopedMemoryAccount account(meters_.memory);   // host tensors charged to the tenant
      tenancy::ScopedCompileMeter compile(meters_.compile);
      ScopedCancellation cancellation(&token_);      // passes and imports below check it
      status = work(*this);
    }  // restored before anything else: after a Deferred() return `this` may be gone
    // The GPU streams and library handles this thread used go back to the shared pool.
    executor::gpu::ReleaseThreadState();
    // Someone else finishes the call, maybe already: `this` may be gone.
    if (IsDeferred(status)) return true;
  }
  if (quick_us_ > 0 && IsNotQuick(status)) return false;
  if (spdlog::should_log(spdlog::level::debug)) {  // keep formatting off the hot path
    GRAPHD_LOG_DEBUG("rpc {} session={} status={} {}us{}", method_, session_,
                     absl::StatusCodeToString(status.code()), elapsed_us(),
                     status.ok() ? "" : absl::StrCat(" origin=", errors::OriginOf(status).value_or("?")));
  }
  Complete(status);
  return true;
}

}  // namespace graphd::server
