// graphd.v1.DiagnosticsService: Echo (answered on the gRPC thread; the per-call
// overhead anchor for benchmarks) and server info.
#ifndef GRAPHD_SERVER_SERVICE_DIAGNOSTICS_SERVICE_H_
#define GRAPHD_SERVER_SERVICE_DIAGNOSTICS_SERVICE_H_

#include "graphd/v1/diagnostics.grpc.pb.h"
#include "server/service/pooled_call.h"
#include "server/session_manager.h"

namespace graphd::server {

class DiagnosticsServiceImpl final : public v1::DiagnosticsService::CallbackService {
 public:
  // `env` (its tenants) decides who may call.
  DiagnosticsServiceImpl(const SessionManager& sessions, PooledCall::Env env) : sessions_(sessions), env_(env) {}

  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* ctx, const v1::EchoRequest* req,
                                 v1::EchoResponse* resp) override;
  grpc::ServerUnaryReactor* GetServerInfo(grpc::CallbackServerContext* ctx,
                                          const v1::GetServerInfoRequest* req,
                                          v1::GetServerInfoResponse* resp) override;

 private:
  const SessionManager& sessions_;
  const PooledCall::Env env_;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_DIAGNOSTICS_SERVICE_H_
