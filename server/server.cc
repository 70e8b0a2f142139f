#include "server/server.h"

#include <span>

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "core/buffer_cache.h"
#include "core/graph/ir_text.h"
#include "core/logging.h"
#include "executor/cpu/cpu_device.h"
#include "executor/cpu/team.h"
#include "executor/gpu/gpu_probe.h"
#include "executor/gpu/gpu_support.h"
#include "executor/testing/fake_accelerator.h"
#include "server/malloc_tuning.h"
#include "server/memory_budget.h"
#include "core/memory_account.h"
#include "server/tenancy/transport.h"
#include "server/version.h"

namespace graphd::server {
namespace {
constexpr char kReadiness[] = "readiness";

// The process's resident set, from /proc/self/statm (0 where there is none).
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages_total = 0, pages_resident = 0;
  if (!(statm >> pages_total >> pages_resident)) return 0;
  return pages_resident * sysconf(_SC_PAGESIZE);
}

int WorkerThreads(const ServerOptions& o) {
  if (o.cpu_threads > 0) return o.cpu_threads;
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  return cores > 0 ? cores : 1;
}

// Passes GPU sessions leave out: conv_layout writes oneDNN channels-last layouts the GPU
// kernels do not take (conv_input_scale rewrites what it made); layernorm_fusion writes LayerNormalization, which has no GPU kernel.
constexpr const char* kCpuOnlyPasses[] = {"conv_layout", "conv_input_scale", "layernorm_fusion"};

// The pass pipeline with --disable-passes applied (names were checked by Validate).
// At log level trace, the IR of every traced body is logged before and after each pass.
// `for_gpu`: GPU sessions' pipeline, without kCpuOnlyPasses and the CPU-only fusions
// of other passes (PipelineOptions::cpu_fusions).
std::unique_ptr<const compiler::passes::Pipeline> MakePasses(const ServerOptions& o,
                                                            const compiler::passes::ConstantEvaluator& evaluator,
                                                            bool for_gpu = false) {
  compiler::passes::PipelineOptions options;
  options.disabled.insert(o.disabled_passes.begin(), o.disabled_passes.end());
  if (for_gpu) options.disabled.insert(std::begin(kCpuOnlyPasses), std::end(kCpuOnlyPasses));
  options.cpu_fusions = !for_gpu;
  if (spdlog::should_log(spdlog::level::trace)) {
    options.dump = [](absl::string_view stage, const compiler::passes::FunctionBody& body) {
      GRAPHD_LOG_DEBUG("IR of {} ({}):\n{}", body.name, std::string(stage), GraphToText(*body.graph, &body.results));
    };
  }
  auto pipeline = compiler::passes::MakeDefaultPipeline(&evaluator, std::move(options));
  if (!pipeline.ok()) {
    GRAPHD_LOG_ERROR("graph passes disabled: {}", std::string(pipeline.status().message()));
    return nullptr;
  }
  return *std::move(pipeline);
}
}  // namespace

GraphdServer::GraphdServer(ServerOptions options)
    : options_(std::move(options)),
      device_(std::make_unique<executor::cpu::CpuDevice>()),
      // Worker 0 gets the one OpenMP team while no other task runs, every other task one
      // thread (executor/cpu/team.h: more teams cut libgomp's spin to ~10 us); batches
      // are lead tasks, run by worker 0.
      pool_(std::make_unique<executor::ThreadPool>(
          WorkerThreads(options_),
          [single = options_.openmp_teams == "single"](const executor::ThreadPool& pool, bool lead,
                                                       const std::function<void()>& task) {
            // A team per worker: every worker forks, whatever else runs.
            executor::cpu::TeamScope team(lead || !single,
                                          single ? std::function<bool()>([&pool] { return pool.running() <= 1; })
                                                 : std::function<bool()>());
            task();
          },
          /*lead_tasks=*/options_.openmp_teams == "single")),
      evaluator_(*device_),
      passes_(MakePasses(options_, evaluator_)),
      sessions_(SessionLimits{.max_sessions = options_.max_sessions,
                              .idle_timeout = std::chrono::seconds(options_.session_idle_timeout_seconds)},
                *device_, passes_.get(), SetUpGpu(),
                compiler::FunctionCacheOptions{
                    .max_entries = static_cast<size_t>(options_.function_cache_entries),
                    .max_bytes = options_.function_cache_mb << 20}),
      tenants_(options_.tenants_file),
      models_(models::ModelManagerOptions{.repository = options_.model_repository,
                                          .mode = *models::ControlModeFromName(options_.model_control_mode),
                                          .pool = pool_.get(),
                                          .metrics = &serving_metrics_},
              [this](const std::string& model, int64_t version, models::InstanceKind kind) {
                return sessions_.CreateModelSession(absl::StrCat(model, "/", version), models::InstanceKindName(kind));
              }),
      session_service_(sessions_, CallEnv(), *device_),
      diagnostics_service_(sessions_, CallEnv()),
      inference_service_(models_, CallEnv(),
                         [this] { return !gate_.closed(); }) {
  AddCollectors();
}

PooledCall::Env GraphdServer::CallEnv() {
  return PooledCall::Env{.pool = *pool_,
                         .gate = gate_,
                         .inline_us = options_.inline_run_us,
                         .tenants = &tenants_,
                         .usage = &usage_,
                         .fair = options_.fair_scheduling};
}

void GraphdServer::AddCollectors() {
  auto& compile_seconds = metrics_.AddHistogram("graphd_compile_duration_seconds",
                                                "Time to compile a concrete function (trace or import, passes, plan)",
                                                {}, metrics::LatencyBuckets())
                              .With({});
  sessions_.SetCompileObserver([&compile_seconds](int64_t us) {
    compile_seconds.Observe(static_cast<double>(us) * 1e-6);
    tenancy::CompileEnded(us);  // the tenant's compile-time quota
  });
  sessions_.SetCompileAdmission(tenancy::AdmitCompile);
  metrics_.AddCollector([this](std::string& out) {
    metrics::AppendGauge(out, "graphd_sessions", "Open client sessions", sessions_.size());
    const compiler::FunctionCacheStats cache = sessions_.function_cache_stats();
    metrics::AppendCounter(out, "graphd_compilations_total", "Concrete functions compiled (and ONNX models parsed)",
                           static_cast<double>(cache.compiles));
    metrics::AppendCounter(out, "graphd_function_cache_hits_total", "Function cache lookups that found an entry",
                           static_cast<double>(cache.hits));
    metrics::AppendCounter(out, "graphd_function_cache_misses_total", "Function cache lookups that found none",
                           static_cast<double>(cache.misses));
    metrics::AppendCounter(out, "graphd_function_cache_evictions_total", "Entries the function cache's bounds dropped",
                           static_cast<double>(cache.evictions));
    metrics::AppendGauge(out, "graphd_function_cache_entries", "Entries in the function cache",
                         static_cast<double>(cache.entries));
    metrics::AppendGauge(out, "graphd_function_cache_bytes", "Bytes of constants the function cache holds",
                         static_cast<double>(cache.bytes));
    metrics::AppendGauge(out, "graphd_tensor_memory_bytes", "Bytes of host tensors the server holds",
                         static_cast<double>(RootMemoryAccount().used()));
    metrics::AppendGauge(out, "graphd_tensor_memory_limit_bytes", "The server's tensor memory budget (0: none)",
                         static_cast<double>(RootMemoryAccount().limit()));
    std::vector<std::pair<std::string, double>> tenants;
    for (const auto& [tenant, bytes] : usage_.MemoryByTenant()) tenants.emplace_back(tenant, static_cast<double>(bytes));
    std::sort(tenants.begin(), tenants.end());
    metrics::AppendGauges(out, "graphd_tenant_memory_bytes", "Bytes of host tensors each tenant holds", "tenant",
                          tenants);
    metrics::AppendGauge(out, "graphd_tensor_buffer_cache_bytes",
                         "Bytes of freed host tensor storage kept for reuse (--buffer-cache-mb)",
                         static_cast<double>(BufferCacheBytes()));
    metrics::AppendGauge(out, "graphd_tensor_buffer_cache_capacity_bytes",
                         "Most bytes of freed host tensor storage kept for reuse (0: off)",
                         static_cast<double>(BufferCacheCapacity()));
    metrics::AppendGauge(out, "graphd_process_resident_memory_bytes", "Resident memory of the server process",
                         static_cast<double>(ResidentBytes()));
    const executor::gpu::GpuMemoryStats gpu = sessions_.gpu_memory();
    metrics::AppendGauge(out, "graphd_gpu_memory_in_use_bytes", "GPU memory held by tensors",
                         static_cast<double>(gpu.bytes_in_use));
    metrics::AppendGauge(out, "graphd_gpu_memory_cached_bytes", "GPU memory the caching allocator keeps for reuse",
                         static_cast<double>(gpu.bytes_cached));
  });
}

GpuSetup GraphdServer::SetUpGpu() {
  if (options_.gpu == "off") return GpuSetup{.probe = {.reason = "disabled by --gpu=off"}};
  if (const char* fake = std::getenv("GRAPHD_TEST_FAKE_GPU"); fake != nullptr && *fake != '\0') {
    return SetUpFakeGpu(fake);
  }
  GpuSetup setup{.probe = executor::gpu::ProbeGpus()};
  if (setup.probe.devices.empty()) return setup;
  auto gpu = executor::gpu::GpuDevice::Create(0, *device_);
  if (!gpu.ok()) {
    setup.unusable = std::string(gpu.status().message());
    GRAPHD_LOG_WARN("GPU sessions unavailable: {}", setup.unusable);
    return setup;
  }
  const executor::gpu::GpuDevice* device = gpu->get();
  setup.release_memory = [device](absl::string_view handle) {
    const executor::gpu::GpuDevice::OwnerReport report = device->ReleaseOwner(handle);
    if (report.leaked_bytes > 0) {
      GRAPHD_LOG_WARN("session {} closed holding {} bytes of GPU memory (a call still finishing?); peak {} bytes",
                      std::string(handle), report.leaked_bytes, report.peak_bytes);
    } else {
      GRAPHD_LOG_INFO("session {} closed; its GPU memory peaked at {} bytes", std::string(handle), report.peak_bytes);
    }
    device->TrimCache();
  };
  setup.memory_stats = [device] { return device->MemoryStats(); };
  gpu_device_ = *std::move(gpu);
  // conv_layout rewrites convolution chains for oneDNN's channels-last layouts, which
  // the GPU kernels do not take; GPU sessions keep channels-first convolutions.
  // layernorm_fusion writes LayerNormalization, which has no GPU kernel.
  gpu_passes_ = MakePasses(options_, evaluator_, /*for_gpu=*/true);
  setup.device = gpu_device_.get();
  setup.passes = gpu_passes_.get();
  return setup;
}

GpuSetup GraphdServer::SetUpFakeGpu(absl::string_view mode) {
  if (mode != "all" && mode != "mixed" && mode != "cuda") {
    GRAPHD_LOG_WARN("GRAPHD_TEST_FAKE_GPU={} ignored (all, mixed or cuda)", std::string(mode));
    return GpuSetup{.probe = {.reason = "GRAPHD_TEST_FAKE_GPU names no fake mode"}};
  }
  // "all": every op it can; "mixed": a stable hash of the op name puts about a third
  // of the op types on the host, so values cross between memory spaces often; "cuda":
  // exactly what the CUDA device claims (a placement preview without a GPU).
  std::function<bool(const Node&)> accepts = [all = mode == "all"](const Node& node) {
    uint32_t h = 2166136261u;
    for (char c : node.op_name()) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    return all || h % 3 != 0;
  };
  if (mode == "cuda") accepts = executor::gpu::GpuKernelClaims;
  executor::DeviceInfo info{.name = "/device:GPU:0",
                            .device_type = "GPU",
                            .description = absl::StrCat("fake GPU for tests (GRAPHD_TEST_FAKE_GPU=", mode, ")")};
  GRAPHD_LOG_WARN("GRAPHD_TEST_FAKE_GPU={}: device=\"gpu\" sessions run on a fake accelerator in host memory",
                  std::string(mode));
  fake_gpu_host_ = std::make_unique<executor::testing::CheckedHost>();
  gpu_device_ = std::make_unique<executor::testing::FakeAccelerator>(*fake_gpu_host_, accepts, info);
  gpu_passes_ = MakePasses(options_, evaluator_, /*for_gpu=*/true);
  const auto* fake = static_cast<const executor::testing::FakeAccelerator*>(gpu_device_.get());
  return GpuSetup{.probe = {.devices = {info}},
                  .device = fake,
                  .passes = gpu_passes_.get(),
                  .memory_stats = [fake] {
                    return executor::gpu::GpuMemoryStats{.bytes_in_use = fake->live_bytes.load()};
                  }};
}

GraphdServer::~GraphdServer() {
  if (grpc_server_) Drain();
}

Status GraphdServer::Start() {
  SetMaxTensorBytes(options_.max_tensor_bytes);
  std::string capacity_source;
  const int64_t capacity = MemoryCapacity(&capacity_source);
  ASSIGN_OR_RETURN(const int64_t memory_limit, ParseMemoryLimit(options_.memory_limit, capacity));
  RootMemoryAccount().set_limit(memory_limit);
  RootMemoryAccount().set_wait(std::chrono::milliseconds(options_.memory_wait_ms));
  if (memory_limit > 0) {
    GRAPHD_LOG_INFO("memory limit for tensors: {} MiB (--memory-limit {}; {} MiB from {})", memory_limit >> 20,
                    options_.memory_limit, capacity >> 20, capacity_source);
  }
  // Freed tensor storage kept for reuse: at most an eighth of the tensor budget, since
  // the cache is charged to no account.
  const int64_t buffer_cache = memory_limit > 0 ? std::min(options_.buffer_cache_mb << 20, memory_limit / 8)
                                                : options_.buffer_cache_mb << 20;
  SetBufferCacheCapacity(buffer_cache);
  executor::cpu::SetIntraOpThreads(WorkerThreads(options_));  // the size of the OpenMP team
  executor::cpu::SetSingleTeam(options_.openmp_teams == "single");
  RETURN_IF_ERROR(tenancy::CheckExposure({{"--listen", options_.listen},
                                          {"--http-listen", options_.http_listen},
                                          {"--metrics-listen", options_.metrics_listen}},
                                         !options_.tls_cert_file.empty(), tenants_.enabled(),
                                         options_.allow_insecure_remote));
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                   tenancy::MakeServerCredentials({.cert_file = options_.tls_cert_file,
                                                   .key_file = options_.tls_key_file,
                                                   .client_ca_file = options_.tls_client_ca_file,
                                                   .reload_seconds = options_.tls_reload_seconds}));
  RETURN_IF_ERROR(tenants_.Reload());
  // Served models load (and warm up) before the port opens: the server is ready when it listens.
  RETURN_IF_ERROR(models_.Start());
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, so a second server on a port in use would start
  // and silently take half the connections (and sessions would vanish at random).
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, options_.reuse_port ? 1 : 0);
  builder.AddListeningPort(options_.listen, credentials, &port_);
  builder.SetMaxReceiveMessageSize(static_cast<int>(options_.max_message_bytes));
  builder.SetMaxSendMessageSize(static_cast<int>(options_.max_message_bytes));
  builder.RegisterService(&session_service_);
  builder.RegisterService(&diagnostics_service_);
  builder.RegisterService(&inference_service_);
  grpc_server_ = builder.BuildAndStart();
  if (!grpc_server_ || port_ == 0) {
    grpc_server_.reset();
    return errors::Unavailable(absl::StrCat("cannot listen on ", options_.listen,
                                            " (address in use or invalid?)",
                                            options_.reuse_port ? "" : "; --reuse-port lets several servers share a port"));
  }
  if (!options_.metrics_listen.empty()) {
    metrics_http_ = std::make_unique<MetricsService>(metrics_);
    if (Status s = metrics_http_->Start(options_.metrics_listen); !s.ok()) {
      grpc_server_->Shutdown();
      grpc_server_.reset();
      return s;
    }
  }
  if (!options_.http_listen.empty()) {
    http_ = std::make_unique<HttpInferenceService>(models_, CallEnv(),
                                                   [this] { return !gate_.closed(); }, options_.max_message_bytes);
    if (Status s = http_->Start(options_.http_listen); !s.ok()) {
      grpc_server_->Shutdown();
      grpc_server_.reset();
      return s;
    }
  }
  // Readiness first: whoever waits for the server ("") then finds readiness set too.
  grpc_server_->GetHealthCheckService()->SetServingStatus(kReadiness, true);
  grpc_server_->GetHealthCheckService()->SetServingStatus("", true);
  reaper_ = std::thread([this] { ReapLoop(); });
  if (models_.mode() == models::ControlMode::kPoll) poller_ = std::thread([this] { PollLoop(); });
  const auto& dev = device_->info();
  GRAPHD_LOG_INFO("graphd {} listening on {} (port {}); devices: {} ({}); {} worker threads",
                  kVersion, options_.listen, port_, dev.name, dev.description,
                  pool_->num_threads());
  const executor::gpu::GpuProbe& gpus = sessions_.gpus();
  if (gpus.devices.empty()) GRAPHD_LOG_INFO("GPU: none ({})", gpus.reason);
  for (const auto& gpu : gpus.devices) GRAPHD_LOG_INFO("GPU: {} ({})", gpu.name, gpu.description);
  return absl::OkStatus();
}

void GraphdServer::Drain() {
  if (!grpc_server_) return;
  GRAPHD_LOG_INFO("draining: readiness NOT_SERVING, {} calls in flight, waiting up to {}s",
                  gate_.inside(), options_.drain_seconds);
  grpc_server_->GetHealthCheckService()->SetServingStatus(kReadiness, false);
  gate_.Close();
  bool idle = gate_.WaitIdle(absl::Now() + absl::Seconds(options_.drain_seconds));
  if (!idle) GRAPHD_LOG_WARN("drain time over; cancelling {} calls", gate_.inside());
  if (http_) http_->Stop();
  if (metrics_http_) metrics_http_->Stop();
  grpc_server_->Shutdown(std::chrono::system_clock::now());
  grpc_server_->Wait();
  grpc_server_.reset();
  stop_reaper_.Notify();
  if (reaper_.joinable()) reaper_.join();
  if (poller_.joinable()) poller_.join();
  pool_.reset();  // waits for queued work
  GRAPHD_LOG_INFO("stopped");
}

void GraphdServer::PollLoop() {
  while (!stop_reaper_.WaitForNotificationWithTimeout(absl::Seconds(options_.repository_poll_seconds))) {
    models_.Poll();
  }
}

void GraphdServer::ReapLoop() {
  while (!stop_reaper_.WaitForNotificationWithTimeout(absl::Seconds(1))) {
    if (sessions_.ExpireIdle(Session::Clock::now()) > 0) ReleaseFreeMemory();
  }
}

}  // namespace graphd::server
