// One RPC whose work runs on the executor's thread pool. It owns the run's
// cancellation token: the gRPC deadline becomes the token's deadline and client
// cancellation cancels it. Deletes itself when gRPC is done with it.
//
// PooledCall is the call's state and what its work sees (token, tenant, meters);
// Start makes the unary reactor. Reactors of other kinds (a client-streaming upload:
// model_upload.h) derive from it too: they Admit the call, Schedule its work when
// their messages are in, and turn Done()/SendFinish into their gRPC reactions.
//
// Quick calls skip the hand-off to a worker (a thread wake-up of tens of
// microseconds, most of a small call's overhead): when the caller allows it (a small
// request), Env::inline_us > 0 and the pool has a free slot with nothing queued
// (ThreadPool::TryBeginInline, so --cpu-threads still bounds the tasks running and
// queued work keeps its turn), the work first runs on the gRPC thread inside a
// QuickScope(Env::inline_us). The session layer then goes ahead only with a cached
// function whose latest run took at most that long, and otherwise returns NotQuick()
// without doing anything (server/quick_run.h); the work is then scheduled on the pool
// as usual and runs again there without the limit.
#ifndef GRAPHD_SERVER_SERVICE_POOLED_CALL_H_
#define GRAPHD_SERVER_SERVICE_POOLED_CALL_H_

#include <google/protobuf/message_lite.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <string>

#include "core/cancellation.h"
#include "executor/runtime/thread_pool.h"
#include "server/service/call_gate.h"
#include "server/tenancy/tenants.h"
#include "server/tenancy/usage.h"

namespace graphd::server {

class PooledCall {
 public:
  using Clock = std::chrono::steady_clock;
  using Work = std::function<Status(PooledCall&)>;

  // Where calls run and who admits them; both must outlive every call.
  struct Env {
    executor::ThreadPool& pool;
    CallGate& gate;
    // Longest latest run of a plan that may run on the gRPC thread; 0: never.
    int64_t inline_us = 0;
    // Who may call (null or disabled: everyone, as the anonymous tenant "").
    const tenancy::Tenants* tenants = nullptr;
    // Each tenant's calls running, against its max_concurrent_calls (null: not counted).
    tenancy::Usage* usage = nullptr;
    // Queue each tenant's work as a flow of its own in the pool (weighted fair
    // queuing by the tenant's weight); false: one first-come-first-served queue.
    bool fair = true;
  };

  // The tenant `context`'s `authorization: Bearer TOKEN` metadata names (see
  // tenancy/tenants.h); Unauthenticated when it names none.
  static StatusOr<std::shared_ptr<const v1::Tenant>> Authenticate(grpc::CallbackServerContext* context,
                                                                  const Env& env);

  // Schedules `work` on the pool (first trying it inline when `may_run_inline`; see
  // above) and returns the reactor for the handler to return. While the gate is
  // closed (draining) the call fails with UNAVAILABLE at once, without a valid token
  // (when the server has tenants) with UNAUTHENTICATED, and past the tenant's
  // max_concurrent_calls with RESOURCE_EXHAUSTED. `work` may run twice:
  // once inline returning NotQuick() having done nothing, then on the pool.
  // `request` and `response` (may be null: an empty one) are the RPC's messages, for
  // the audit log's byte counts (server/audit_log.h): every call, refused or not,
  // writes its line when it is done.
  static grpc::ServerUnaryReactor* Start(grpc::CallbackServerContext* context, const Env& env,
                                         const char* method, std::string session,
                                         const google::protobuf::MessageLite* request,
                                         const google::protobuf::MessageLite* response, Work work,
                                         bool may_run_inline = false);

  // Work that hands the call to someone else (the model's batcher) returns
  // Deferred(): the call is then finished by FinishDeferred, exactly once, from any
  // thread, and the token stays valid until then.
  static Status Deferred();
  static bool IsDeferred(const Status& status);
  void FinishDeferred(const Status& status);

  CancellationToken& token() { return token_; }
  // The caller's tenant ("" without tenants).
  const std::string& tenant() const { return tenant_->name(); }
  const v1::Tenant& tenant_config() const { return *tenant_; }
  bool ran_inline() const { return quick_us_ > 0; }
  // Microseconds between the RPC's arrival and its work starting.
  int64_t queue_us() const { return queue_us_; }
  // Microseconds since the RPC arrived.
  int64_t elapsed_us() const;

  virtual ~PooledCall() = default;

 protected:
  // `request` (may be null) is measured for the audit log; `response` (may be null)
  // is measured when the call succeeds.
  PooledCall(grpc::CallbackServerContext* context, const char* method, std::string session,
             const google::protobuf::MessageLite* request, const google::protobuf::MessageLite* response);
  // Authenticates the caller, enters the gate and counts the call against its
  // tenant's max_concurrent_calls (see Start); on error nothing is held and the
  // caller Completes the call with it.
  Status Admit(const Env& env);
  // Runs `work` here when Env::inline_us allows and a pool slot is free (see Start):
  // true when it finished the call, false when the work must be Scheduled.
  bool RunInline(const Env& env, const Work& work);
  // Runs `work` on the pool, in the tenant's flow, then Completes the call.
  void Schedule(const Env& env, Work work);
  // Finishes the RPC with `status` (noted for the audit log).
  void Complete(const Status& status);
  // Runs `work` and finishes the RPC; false (and nothing finished) when the work
  // returned NotQuick().
  bool Run(const Work& work);
  // The reactor's OnDone: writes the audit line and leaves the gate (the reactor
  // deletes itself after).
  void Done();
  // The reactor's Finish.
  virtual void SendFinish(const grpc::Status& status) = 0;

  void set_session(std::string session) { session_ = std::move(session); }
  void add_request_bytes(int64_t bytes) { request_bytes_ += bytes; }
  tenancy::Usage::Meters meters() const { return meters_; }

 private:
  grpc::CallbackServerContext* context_;
  CallGate* gate_ = nullptr;  // set once the gate let the call in
  tenancy::Usage* usage_ = nullptr;  // set when the call was counted against its tenant
  const char* method_;
  std::string session_;
  Clock::time_point arrived_;
  int64_t queue_us_ = 0;
  int64_t quick_us_ = 0;
  CancellationToken token_;
  std::shared_ptr<const v1::Tenant> tenant_;
  const google::protobuf::MessageLite* response_;
  int64_t request_bytes_ = 0;
  int64_t response_bytes_ = 0;
  std::string peer_;
  absl::StatusCode code_ = absl::StatusCode::kUnknown;
  // The tenant's memory account and compile meter, current while the work runs
  // (null without tenants: the server's root account, no compile quota).
  tenancy::Usage::Meters meters_{nullptr, nullptr};
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_POOLED_CALL_H_
