#include "server/service/diagnostics_service.h"

#include "server/version.h"

namespace graphd::server {

grpc::ServerUnaryReactor* DiagnosticsServiceImpl::Echo(grpc::CallbackServerContext* ctx,
                                                       const v1::EchoRequest* req,
                                                       v1::EchoResponse* resp) {
  resp->set_payload(req->payload());
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* DiagnosticsServiceImpl::GetServerInfo(
    grpc::CallbackServerContext* ctx, const v1::GetServerInfoRequest*,
    v1::GetServerInfoResponse* resp) {
  resp->set_version(kVersion);
  resp->set_active_sessions(sessions_.size());
  const executor::gpu::GpuMemoryStats gpu = sessions_.gpu_memory();
  resp->set_gpu_bytes_in_use(gpu.bytes_in_use);
  resp->set_gpu_bytes_cached(gpu.bytes_cached);
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace graphd::server
