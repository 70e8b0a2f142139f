// graphd.v1.DiagnosticsService: Echo (answered on the gRPC thread; the per-call
// overhead anchor for benchmarks) and server info.
#ifndef GRAPHD_SERVER_SERVICE_DIAGNOSTICS_SERVICE_H_
#define GRAPHD_SERVER_SERVICE_DIAGNOSTICS_SERVICE_H_

#include "graphd/v1/diagnostics.grpc.pb.h"
#include "server/session_manager.h"

namespace graphd::server {

class DiagnosticsServiceImpl final : public v1::DiagnosticsService::CallbackService {
 public:
  explicit DiagnosticsServiceImpl(const SessionManager& sessions) : sessions_(sessions) {}

  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* ctx, const v1::EchoRequest* req,
                                 v1::EchoResponse* resp) override;
  grpc::ServerUnaryReactor* GetServerInfo(grpc::CallbackServerContext* ctx,
                                          const v1::GetServerInfoRequest* req,
                                          v1::GetServerInfoResponse* resp) override;

 private:
  const SessionManager& sessions_;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_DIAGNOSTICS_SERVICE_H_
