#include "server/service/diagnostics_service.h"

#include "server/version.h"

#include "server/service/status_codec.h"

namespace graphd::server {

grpc::ServerUnaryReactor* DiagnosticsServiceImpl::Echo(grpc::CallbackServerContext* ctx,
                                                       const v1::EchoRequest* req,
                                                       v1::EchoResponse* resp) {
  auto* reactor = ctx->DefaultReactor();
  if (auto tenant = PooledCall::Authenticate(ctx, env_); !tenant.ok()) {
    reactor->Finish(ToGrpcStatus(tenant.status(), ctx));
    return reactor;
  }
  resp->set_payload(req->payload());
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* DiagnosticsServiceImpl::GetServerInfo(
    grpc::CallbackServerContext* ctx, const v1::GetServerInfoRequest*,
    v1::GetServerInfoResponse* resp) {
  if (auto tenant = PooledCall::Authenticate(ctx, env_); !tenant.ok()) {
    auto* reactor = ctx->DefaultReactor();
    reactor->Finish(ToGrpcStatus(tenant.status(), ctx));
    return reactor;
  }
  resp->set_version(kVersion);
  resp->set_active_sessions(sessions_.size());
  const executor::gpu::GpuMemoryStats gpu = sessions_.gpu_memory();
  resp->set_gpu_bytes_in_use(gpu.bytes_in_use);
  resp->set_gpu_bytes_cached(gpu.bytes_cached);
  const compiler::FunctionCacheStats cache = sessions_.function_cache_stats();
  v1::FunctionCacheStats* out = resp->mutable_function_cache();
  out->set_hits(cache.hits);
  out->set_misses(cache.misses);
  out->set_compiles(cache.compiles);
  out->set_waits(cache.waits);
  out->set_evictions(cache.evictions);
  out->set_entries(cache.entries);
  out->set_bytes(cache.bytes);
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace graphd::server
