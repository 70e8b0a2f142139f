// graphd.v1.SessionService: translates requests into SessionManager/Session calls
// and results back into responses. Nothing here knows about graphs or kernels.
#ifndef GRAPHD_SERVER_SERVICE_SESSION_SERVICE_H_
#define GRAPHD_SERVER_SERVICE_SESSION_SERVICE_H_

#include "executor/device.h"
#include "executor/runtime/thread_pool.h"
#include "graphd/v1/session.grpc.pb.h"
#include "server/service/pooled_call.h"
#include "server/session_manager.h"

namespace graphd::server {

// Requests up to this size may first run inline (see PooledCall): decoding one twice
// when it turns out not to be quick costs little.
inline constexpr size_t kSmallRequestBytes = 64 << 10;
bool SmallRequest(const google::protobuf::Message& req);

class SessionServiceImpl final : public v1::SessionService::CallbackService {
 public:
  // All arguments must outlive the service.
  SessionServiceImpl(SessionManager& sessions, PooledCall::Env env, const executor::Device& device)
      : sessions_(sessions), env_(env), device_(device) {}

  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* ctx,
                                          const v1::CreateSessionRequest* req,
                                          v1::CreateSessionResponse* resp) override;
  grpc::ServerUnaryReactor* ExtendSession(grpc::CallbackServerContext* ctx,
                                          const v1::ExtendSessionRequest* req,
                                          v1::ExtendSessionResponse* resp) override;
  grpc::ServerUnaryReactor* Run(grpc::CallbackServerContext* ctx, const v1::RunRequest* req,
                                v1::RunResponse* resp) override;
  grpc::ServerUnaryReactor* MakeCallable(grpc::CallbackServerContext* ctx,
                                         const v1::MakeCallableRequest* req,
                                         v1::MakeCallableResponse* resp) override;
  grpc::ServerUnaryReactor* RunCallable(grpc::CallbackServerContext* ctx,
                                        const v1::RunCallableRequest* req,
                                        v1::RunCallableResponse* resp) override;
  grpc::ServerUnaryReactor* ReleaseCallable(grpc::CallbackServerContext* ctx,
                                            const v1::ReleaseCallableRequest* req,
                                            v1::ReleaseCallableResponse* resp) override;
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* ctx,
                                         const v1::CloseSessionRequest* req,
                                         v1::CloseSessionResponse* resp) override;
  grpc::ServerUnaryReactor* ListDevices(grpc::CallbackServerContext* ctx,
                                        const v1::ListDevicesRequest* req,
                                        v1::ListDevicesResponse* resp) override;

  // Function source (function_service.cc).
  grpc::ServerUnaryReactor* LoadModule(grpc::CallbackServerContext* ctx, const v1::LoadModuleRequest* req,
                                       v1::LoadModuleResponse* resp) override;
  grpc::ServerUnaryReactor* Call(grpc::CallbackServerContext* ctx, const v1::CallRequest* req,
                                 v1::CallResponse* resp) override;
  grpc::ServerUnaryReactor* ToCode(grpc::CallbackServerContext* ctx, const v1::ToCodeRequest* req,
                                   v1::ToCodeResponse* resp) override;
  grpc::ServerUnaryReactor* DescribeFunction(grpc::CallbackServerContext* ctx,
                                             const v1::DescribeFunctionRequest* req,
                                             v1::DescribeFunctionResponse* resp) override;

  // Traced graphs (graph_service.cc).
  grpc::ServerUnaryReactor* LoadGraph(grpc::CallbackServerContext* ctx, const v1::LoadGraphRequest* req,
                                      v1::LoadGraphResponse* resp) override;
  grpc::ServerReadReactor<v1::LoadGraphChunk>* LoadGraphStream(grpc::CallbackServerContext* ctx,
                                                               v1::LoadGraphResponse* resp) override;
  grpc::ServerUnaryReactor* CallGraph(grpc::CallbackServerContext* ctx, const v1::CallGraphRequest* req,
                                      v1::CallGraphResponse* resp) override;

 private:
  // The caller's session `handle` (NOT_FOUND as SessionManager::Get), with the call's
  // cancellation token linked to it: closing the session (or its expiry) stops the call.
  StatusOr<std::shared_ptr<Session>> SessionFor(PooledCall& call, const std::string& handle) const;

  SessionManager& sessions_;
  PooledCall::Env env_;
  const executor::Device& device_;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_SESSION_SERVICE_H_
