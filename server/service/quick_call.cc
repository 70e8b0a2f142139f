#include "server/service/quick_call.h"

#include "server/audit_log.h"
#include "server/service/status_codec.h"

namespace graphd::server {

QuickCall::QuickCall(grpc::CallbackServerContext* context, const PooledCall::Env& env, const char* method,
                     const google::protobuf::MessageLite* request, bool open)
    : context_(context),
      method_(method),
      started_(std::chrono::steady_clock::now()),
      request_bytes_(request != nullptr && AuditLogEnabled() ? static_cast<int64_t>(request->ByteSizeLong()) : 0) {
  auto tenant = open ? tenancy::Authenticate(nullptr, "") : PooledCall::Authenticate(context, env);
  if (tenant.ok()) {
    tenant_ = *std::move(tenant);
  } else {
    auth_ = tenant.status();
  }
}

grpc::ServerUnaryReactor* QuickCall::Finish(const Status& status, const google::protobuf::MessageLite* response) {
  // Everything the audit line needs is read before Finish: the messages and the
  // context may go as soon as the call completes.
  const bool audit = AuditLogEnabled();
  const std::string peer = audit ? context_->peer() : std::string();
  const int64_t response_bytes =
      audit && status.ok() && response != nullptr ? static_cast<int64_t>(response->ByteSizeLong()) : 0;
  const int64_t duration_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started_).count();
  const std::string tenant = audit && tenant_ != nullptr ? tenant_->name() : std::string();
  auto* reactor = context_->DefaultReactor();
  reactor->Finish(status.ok() ? grpc::Status::OK : ToGrpcStatus(status, context_));
  if (audit) {
    WriteAudit({.protocol = "grpc",
                .method = method_,
                .tenant = tenant,
                .session = session_,
                .peer = peer,
                .code = status.code(),
                .duration_us = duration_us,
                .request_bytes = request_bytes_,
                .response_bytes = response_bytes});
  }
  return reactor;
}

}  // namespace graphd::server
