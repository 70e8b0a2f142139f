// One unary RPC whose work runs on the executor's thread pool (never on a gRPC
// thread). It owns the run's cancellation token: the gRPC deadline becomes the
// token's deadline and client cancellation cancels it. Deletes itself when gRPC is
// done with it.
#ifndef GRAPHD_SERVER_SERVICE_POOLED_CALL_H_
#define GRAPHD_SERVER_SERVICE_POOLED_CALL_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <string>

#include "core/cancellation.h"
#include "executor/runtime/thread_pool.h"
#include "server/service/call_gate.h"

namespace graphd::server {

class PooledCall : public grpc::ServerUnaryReactor {
 public:
  using Clock = std::chrono::steady_clock;
  using Work = std::function<Status(PooledCall&)>;

  // Where calls run and who admits them; both must outlive every call.
  struct Env {
    executor::ThreadPool& pool;
    CallGate& gate;
  };

  // Schedules `work` on the pool and returns the reactor for the handler to return.
  // While the gate is closed (draining) the call fails with UNAVAILABLE at once.
  static grpc::ServerUnaryReactor* Start(grpc::CallbackServerContext* context, const Env& env,
                                         const char* method, std::string session, Work work);

  CancellationToken& token() { return token_; }
  // Microseconds between the RPC's arrival and its work starting.
  int64_t queue_us() const { return queue_us_; }
  // Microseconds since the RPC arrived.
  int64_t elapsed_us() const;

  void OnCancel() override { token_.Cancel(); }
  void OnDone() override;

 private:
  PooledCall(grpc::CallbackServerContext* context, CallGate* gate, const char* method,
             std::string session);
  void Run(const Work& work);

  grpc::CallbackServerContext* context_;
  CallGate* gate_;  // nullptr when the gate refused the call
  const char* method_;
  std::string session_;
  Clock::time_point arrived_;
  int64_t queue_us_ = 0;
  CancellationToken token_;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_POOLED_CALL_H_
