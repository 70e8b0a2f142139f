#include "server/service/diagnostics_service.h"

#include "server/version.h"

#include "server/service/quick_call.h"

namespace graphd::server {

grpc::ServerUnaryReactor* DiagnosticsServiceImpl::Echo(grpc::CallbackServerContext* ctx,
                                                       const v1::EchoRequest* req,
                                                       v1::EchoResponse* resp) {
  QuickCall call(ctx, env_, "Echo", req);
  if (!call.authenticated()) return call.Finish(call.auth_status());
  if (!req->empty_reply()) resp->set_payload(req->payload());
  return call.Finish(absl::OkStatus(), resp);
}

grpc::ServerUnaryReactor* DiagnosticsServiceImpl::GetServerInfo(
    grpc::CallbackServerContext* ctx, const v1::GetServerInfoRequest* req,
    v1::GetServerInfoResponse* resp) {
  QuickCall call(ctx, env_, "GetServerInfo", req);
  if (!call.authenticated()) return call.Finish(call.auth_status());
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
  return call.Finish(absl::OkStatus(), resp);
}

}  // namespace graphd::server
