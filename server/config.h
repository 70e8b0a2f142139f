// Server options: embedded defaults, overridden by a text-format graphd.v1.ServerConfig
// file (--config), then by GRAPHD_* environment variables, then by flags.
#ifndef GRAPHD_SERVER_CONFIG_H_
#define GRAPHD_SERVER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace graphd::server {

struct ServerOptions {
  std::string listen = "127.0.0.1:50051";
  std::string log_level = "info";
  int max_sessions = 1024;
  int64_t session_idle_timeout_seconds = 3600;
  int64_t max_message_bytes = 64 << 20;
  int cpu_threads = 0;  // 0: number of cores
  // "single": one OpenMP team, worker 0's while no other task runs; "per-worker": a
  // team for every worker (executor/cpu/team.h).
  std::string openmp_teams = "single";
  int64_t drain_seconds = 10;
  int64_t max_tensor_bytes = int64_t{2} << 30;
  // A small cache-hit call whose plan last ran within this many microseconds runs
  // on the gRPC thread instead of a worker (0: never); see service/pooled_call.h.
  int64_t inline_run_us = 200;
  // Most glibc malloc arenas (0: glibc's default, 8 per core); see malloc_tuning.h for
  // why one.
  int malloc_arenas = 1;
  // Most MiB of freed tensor storage kept for reuse (core/buffer_cache.h; 0: none).
  int64_t buffer_cache_mb = 1024;
  // "auto": device="gpu" sessions use the first usable NVIDIA GPU; "off": none.
  std::string gpu = "auto";
  // The function cache every session compiles into (compiler/cache/function_cache.h).
  int64_t function_cache_entries = 4096;
  int64_t function_cache_mb = 4096;
  // Served models (server/models/model_manager.h): the repository ("": none), how it
  // is kept in step (none, poll, explicit) and how often poll mode looks.
  std::string model_repository;
  std::string model_control_mode = "none";
  int64_t repository_poll_seconds = 15;
  // KServe v2 HTTP/REST endpoints (service/http_service.h): HOST:PORT, "" for none.
  std::string http_listen;
  // Prometheus /metrics (service/metrics_service.h): HOST:PORT, "" for none.
  std::string metrics_listen;
  // Transport security and tenants (server/tenancy/): TLS files ("": plaintext), how
  // often they are looked at for changes, the tenants file ("": no tenants), and
  // whether a plaintext server without tenants may listen on non-loopback addresses.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  int tls_reload_seconds = 10;
  std::string tenants_file;
  bool allow_insecure_remote = false;
  // Let several processes bind --listen's port at once (SO_REUSEPORT: the kernel splits
  // connections between them); off, a port in use stops the start.
  bool reuse_port = false;
  // Weighted fair queuing of the worker pool across tenants (false: one FIFO queue).
  bool fair_scheduling = true;
  // The tensor memory budget (server/memory_budget.h) and how long work past it
  // waits for memory to be freed before failing with RESOURCE_EXHAUSTED.
  std::string memory_limit = "auto";
  int64_t memory_wait_ms = 1000;
  // "text" or "json" (one object per line) for the log and the audit log; where the
  // audit log (one line per RPC, server/audit_log.h) goes: "-" standard error,
  // "off", or a file appended to.
  std::string log_format = "text";
  std::string audit_log = "-";
  // Graph passes not to run on traced source functions (constant_folding, cse, dce).
  std::vector<std::string> disabled_passes;
};

// Checks every field; the error names the flag.
Status Validate(const ServerOptions& options);

// Parses argv, the GRAPHD_* environment and the --config file. Any non-OK result
// means "exit with *exit_code without serving": 0 after --help/--version (already
// printed), 2 for a bad flag, file or value (the error names it).
StatusOr<ServerOptions> ParseCommandLine(int argc, char** argv, int* exit_code);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_CONFIG_H_
