// A unary RPC answered on the gRPC thread (health, metadata, echo): authenticates
// the caller like PooledCall (health stays open: `open`), finishes with gRPC's
// default reactor and writes the call's audit line (server/audit_log.h).
//
//   QuickCall call(ctx, env_, "ModelMetadata", req);
//   if (!call.authenticated()) return call.Finish(call.auth_status());
//   ...
//   return call.Finish(absl::OkStatus(), resp);
#ifndef GRAPHD_SERVER_SERVICE_QUICK_CALL_H_
#define GRAPHD_SERVER_SERVICE_QUICK_CALL_H_

#include <google/protobuf/message_lite.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "server/service/pooled_call.h"

namespace graphd::server {

class QuickCall {
 public:
  QuickCall(grpc::CallbackServerContext* context, const PooledCall::Env& env, const char* method,
            const google::protobuf::MessageLite* request, bool open = false);

  bool authenticated() const { return auth_.ok(); }
  const Status& auth_status() const { return auth_; }
  // The caller's tenant; valid when authenticated().
  const v1::Tenant& tenant() const { return *tenant_; }
  // What the audit line names as the call's session or model.
  void set_session(std::string session) { session_ = std::move(session); }

  // Finishes the RPC with `status`; `response` (may be null) for the byte count.
  grpc::ServerUnaryReactor* Finish(const Status& status, const google::protobuf::MessageLite* response = nullptr);

 private:
  grpc::CallbackServerContext* context_;
  const char* method_;
  std::chrono::steady_clock::time_point started_;
  int64_t request_bytes_;
  Status auth_;
  std::shared_ptr<const v1::Tenant> tenant_;
  std::string session_;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_QUICK_CALL_H_
