// The graphd process's server: devices, sessions, served models, worker pool, gRPC
// services (session, diagnostics, KServe v2 inference, health, reflection), the
// idle-session reaper and, in poll mode, the model repository's poller.
//
// Lifecycle: Start() binds and serves; Drain() (from the signal handler's thread)
// turns readiness NOT_SERVING, refuses new session work, waits up to drain_seconds for
// in-flight calls, then stops gRPC (cancelling what is left). Not copyable.
#ifndef GRAPHD_SERVER_SERVER_H_
#define GRAPHD_SERVER_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <thread>

#include "absl/synchronization/notification.h"
#include "executor/device.h"
#include "executor/gpu/gpu_device.h"
#include "executor/runtime/thread_pool.h"
#include "compiler/passes/pipeline.h"
#include "server/config.h"
#include "server/constant_evaluator.h"
#include "server/service/call_gate.h"
#include "server/metrics/registry.h"
#include "server/models/model_manager.h"
#include "server/serving/serving_metrics.h"
#include "server/service/diagnostics_service.h"
#include "server/service/http_service.h"
#include "server/service/inference_service.h"
#include "server/service/metrics_service.h"
#include "server/service/session_service.h"
#include "server/session_manager.h"
#include "server/tenancy/tenants.h"

namespace graphd::server {

class GraphdServer {
 public:
  explicit GraphdServer(ServerOptions options);
  ~GraphdServer();
  GraphdServer(const GraphdServer&) = delete;
  GraphdServer& operator=(const GraphdServer&) = delete;

  // Binds the listen address and starts serving. Unavailable when it cannot bind.
  Status Start();
  // Graceful stop, as described above. Returns when gRPC has stopped.
  void Drain();
  // Reads the tenants file again (SIGHUP); on failure the tenants in force stay.
  Status ReloadTenants() { return tenants_.Reload(); }
  // The bound port (useful with --listen host:0).
  int port() const { return port_; }
  // The HTTP/REST port (0 without --http-listen).
  int http_port() const { return http_ ? http_->port() : 0; }
  int metrics_port() const { return metrics_http_ ? metrics_http_->port() : 0; }

 private:
  void ReapLoop();
  // The metrics computed at scrape time (sessions, function cache, memory).
  void AddCollectors();
  // How the services' calls run and are admitted.
  PooledCall::Env CallEnv();
  void PollLoop();
  // Probes the GPUs, creates gpu_device_ and gpu_passes_ when one is usable.
  GpuSetup SetUpGpu();
  // GRAPHD_TEST_FAKE_GPU=all|mixed|cuda: a fake accelerator as the GPU (tests only).
  GpuSetup SetUpFakeGpu(absl::string_view mode);

  const ServerOptions options_;
  std::unique_ptr<executor::Device> device_;
  std::unique_ptr<executor::ThreadPool> pool_;
  // Graph passes for traced source functions; constant folding runs on device_.
  ExecutorConstantEvaluator evaluator_;
  std::unique_ptr<const compiler::passes::Pipeline> passes_;
  // GPU sessions (issue 6): the first GPU when usable, and the passes for its sessions.
  std::unique_ptr<executor::Device> gpu_device_;
  std::unique_ptr<executor::Device> fake_gpu_host_;  // GRAPHD_TEST_FAKE_GPU only
  std::unique_ptr<const compiler::passes::Pipeline> gpu_passes_;
  SessionManager sessions_;
  CallGate gate_;
  tenancy::Tenants tenants_;
  tenancy::Usage usage_;
  metrics::Registry metrics_;
  serving::ServingMetrics serving_metrics_{metrics_};
  models::ModelManager models_;
  SessionServiceImpl session_service_;
  DiagnosticsServiceImpl diagnostics_service_;
  InferenceServiceImpl inference_service_;
  std::unique_ptr<HttpInferenceService> http_;  // with --http-listen
  std::unique_ptr<MetricsService> metrics_http_;  // with --metrics-listen
  std::unique_ptr<grpc::Server> grpc_server_;
  int port_ = 0;
  absl::Notification stop_reaper_;
  std::thread reaper_;
  std::thread poller_;  // poll mode: follows the model repository
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVER_H_
