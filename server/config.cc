#include "server/config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <sstream>

#include "CLI/CLI.hpp"
#include "absl/strings/str_join.h"
#include "compiler/passes/pipeline.h"
#include "core/logging.h"
#include "graphd/v1/config.pb.h"
#include "server/memory_budget.h"
#include "server/version.h"

namespace graphd::server {
namespace {

StatusOr<v1::ServerConfig> LoadConfigFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return errors::InvalidArgument(absl::StrCat("--config: cannot read '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  v1::ServerConfig config;
  // Collects parse errors with line and column.
  struct Collector : google::protobuf::io::ErrorCollector {
    std::string errors;
    void AddError(int line, int column, const std::string& message) override {
      absl::StrAppend(&errors, "line ", line + 1, " column ", column + 1, ": ", message, "; ");
    }
  } collector;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  if (!parser.ParseFromString(text.str(), &config)) {
    return errors::InvalidArgument(absl::StrCat("--config '", path,
                                                "' is not a valid text-format ServerConfig: ",
                                                collector.errors));
  }
  return config;
}

// Fills fields of `options` from `config` where the flag (and its environment
// variable) was not given.
void ApplyConfig(const v1::ServerConfig& c, CLI::App& app, ServerOptions& o) {
  auto unset = [&](const char* flag) { return app.get_option(flag)->count() == 0; };
  if (c.has_listen() && unset("--listen")) o.listen = c.listen();
  if (c.has_log_level() && unset("--log-level")) o.log_level = c.log_level();
  if (c.has_max_sessions() && unset("--max-sessions")) o.max_sessions = c.max_sessions();
  if (c.has_session_idle_timeout_seconds() && unset("--session-idle-timeout")) {
    o.session_idle_timeout_seconds = c.session_idle_timeout_seconds();
  }
  if (c.has_max_message_bytes() && unset("--max-message-bytes")) o.max_message_bytes = c.max_message_bytes();
  if (c.has_cpu_threads() && unset("--cpu-threads")) o.cpu_threads = c.cpu_threads();
  if (c.has_drain_seconds() && unset("--drain-seconds")) o.drain_seconds = c.drain_seconds();
  if (c.has_max_tensor_bytes() && unset("--max-tensor-bytes")) o.max_tensor_bytes = c.max_tensor_bytes();
  if (c.has_inline_run_us() && unset("--inline-run-us")) o.inline_run_us = c.inline_run_us();
  if (c.has_openmp_teams() && unset("--openmp-teams")) o.openmp_teams = c.openmp_teams();
  if (c.has_malloc_arenas() && unset("--malloc-arenas")) o.malloc_arenas = c.malloc_arenas();
  if (c.has_function_cache_entries() && unset("--function-cache-entries")) {
    o.function_cache_entries = c.function_cache_entries();
  }
  if (c.has_function_cache_mb() && unset("--function-cache-mb")) o.function_cache_mb = c.function_cache_mb();
  if (c.has_buffer_cache_mb() && unset("--buffer-cache-mb")) o.buffer_cache_mb = c.buffer_cache_mb();
  if (c.has_gpu() && unset("--gpu")) o.gpu = c.gpu();
  if (c.has_model_repository() && unset("--model-repository")) o.model_repository = c.model_repository();
  if (c.has_model_control_mode() && unset("--model-control-mode")) o.model_control_mode = c.model_control_mode();
  if (c.has_http_listen() && unset("--http-listen")) o.http_listen = c.http_listen();
  if (c.has_metrics_listen() && unset("--metrics-listen")) o.metrics_listen = c.metrics_listen();
  if (c.has_tls_cert_file() && unset("--tls-cert-file")) o.tls_cert_file = c.tls_cert_file();
  if (c.has_tls_key_file() && unset("--tls-key-file")) o.tls_key_file = c.tls_key_file();
  if (c.has_tls_client_ca_file() && unset("--tls-client-ca-file")) o.tls_client_ca_file = c.tls_client_ca_file();
  if (c.has_tls_reload_seconds() && unset("--tls-reload-seconds")) o.tls_reload_seconds = c.tls_reload_seconds();
  if (c.has_tenants_file() && unset("--tenants-file")) o.tenants_file = c.tenants_file();
  if (c.has_fair_scheduling() && unset("--fair-scheduling")) o.fair_scheduling = c.fair_scheduling();
  if (c.has_reuse_port() && unset("--reuse-port")) o.reuse_port = c.reuse_port();
  if (c.has_allow_insecure_remote() && unset("--allow-insecure-remote")) {
    o.allow_insecure_remote = c.allow_insecure_remote();
  }
  if (c.has_repository_poll_seconds() && unset("--repository-poll-seconds")) {
    o.repository_poll_seconds = c.repository_poll_seconds();
  }
  if (c.has_memory_limit() && unset("--memory-limit")) o.memory_limit = c.memory_limit();
  if (c.has_memory_wait_ms() && unset("--memory-wait-ms")) o.memory_wait_ms = c.memory_wait_ms();
  if (c.has_log_format() && unset("--log-format")) o.log_format = c.log_format();
  if (c.has_audit_log() && unset("--audit-log")) o.audit_log = c.audit_log();
  if (c.disable_passes_size() > 0 && unset("--disable-passes")) {
    o.disabled_passes.assign(c.disable_passes().begin(), c.disable_passes().end());
  }
}

}  // namespace

Status Validate(const ServerOptions& o) {
  auto colon = o.listen.rfind(':');
  if (o.listen.empty() || colon == std::string::npos || colon + 1 == o.listen.size()) {
    return errors::InvalidArgument(absl::StrCat("--listen '", o.listen, "' must be HOST:PORT"));
  }
  if (!ValidLogLevel(o.log_level)) {
    return errors::InvalidArgument(absl::StrCat(
        "--log-level '", o.log_level, "' must be trace, debug, info, warn, error or off"));
  }
  if (o.max_sessions < 1) return errors::InvalidArgument("--max-sessions must be >= 1");
  constexpr int64_t kTenYears = int64_t{10} * 365 * 24 * 3600;
  if (o.session_idle_timeout_seconds < 0 || o.session_idle_timeout_seconds > kTenYears) {
    return errors::InvalidArgument(absl::StrCat(
        "--session-idle-timeout must be between 0 (never) and ", kTenYears, " seconds"));
  }
  if (o.max_message_bytes < 1024 || o.max_message_bytes > INT32_MAX) {
    return errors::InvalidArgument(
        absl::StrCat("--max-message-bytes must be between 1024 and ", INT32_MAX));
  }
  if (o.cpu_threads < 0) return errors::InvalidArgument("--cpu-threads must be >= 0 (0: all cores)");
  if (o.openmp_teams != "single" && o.openmp_teams != "per-worker") {
    return errors::InvalidArgument(
        absl::StrCat("--openmp-teams must be single or per-worker, got '", o.openmp_teams, "'"));
  }
  if (o.inline_run_us < 0 || o.inline_run_us > 1000000) {
    return errors::InvalidArgument("--inline-run-us must be between 0 (never) and 1000000");
  }
  if (o.malloc_arenas < 0 || o.malloc_arenas > 1024) {
    return errors::InvalidArgument("--malloc-arenas must be between 0 (glibc's default) and 1024");
  }
  if (o.drain_seconds < 0) return errors::InvalidArgument("--drain-seconds must be >= 0");
  if (o.function_cache_entries < 1 || o.function_cache_entries > (int64_t{1} << 24)) {
    return errors::InvalidArgument("--function-cache-entries must be between 1 and 16777216");
  }
  if (o.function_cache_mb < 1 || o.function_cache_mb > (int64_t{1} << 30)) {
    return errors::InvalidArgument("--function-cache-mb must be between 1 and 1073741824");
  }
  if (o.buffer_cache_mb < 0 || o.buffer_cache_mb > (int64_t{1} << 30)) {
    return errors::InvalidArgument("--buffer-cache-mb must be between 0 (none) and 1073741824");
  }
  if (o.gpu != "auto" && o.gpu != "off") {
    return errors::InvalidArgument(absl::StrCat("--gpu must be auto or off, got '", o.gpu, "'"));
  }
  if (o.max_tensor_bytes < 1024) return errors::InvalidArgument("--max-tensor-bytes must be >= 1024");
  if (o.model_control_mode != "none" && o.model_control_mode != "poll" && o.model_control_mode != "explicit") {
    return errors::InvalidArgument(
        absl::StrCat("--model-control-mode must be none, poll or explicit, got '", o.model_control_mode, "'"));
  }
  if (o.model_control_mode != "none" && o.model_repository.empty()) {
    return errors::InvalidArgument("--model-control-mode poll or explicit needs --model-repository");
  }
  for (const auto& [flag, value] : {std::pair<const char*, const std::string&>{"--http-listen", o.http_listen},
                                    {"--metrics-listen", o.metrics_listen}}) {
    const auto c = value.rfind(':');
    if (!value.empty() && (c == std::string::npos || c + 1 == value.size())) {
      return errors::InvalidArgument(absl::StrCat(flag, " '", value, "' must be HOST:PORT"));
    }
  }
  if (o.tls_cert_file.empty() != o.tls_key_file.empty()) {
    return errors::InvalidArgument("--tls-cert-file and --tls-key-file go together");
  }
  if (!o.tls_client_ca_file.empty() && o.tls_cert_file.empty()) {
    return errors::InvalidArgument("--tls-client-ca-file needs --tls-cert-file and --tls-key-file");
  }
  if (o.tls_reload_seconds < 1 || o.tls_reload_seconds > 86400) {
    return errors::InvalidArgument("--tls-reload-seconds must be between 1 and 86400");
  }
  if (o.repository_poll_seconds < 1 || o.repository_poll_seconds > 86400) {
    return errors::InvalidArgument("--repository-poll-seconds must be between 1 and 86400");
  }
  RETURN_IF_ERROR(ParseMemoryLimit(o.memory_limit, MemoryCapacity()).status());
  if (o.memory_wait_ms < 0 || o.memory_wait_ms > 600000) {
    return errors::InvalidArgument("--memory-wait-ms must be between 0 and 600000");
  }
  if (o.log_format != "text" && o.log_format != "json") {
    return errors::InvalidArgument(absl::StrCat("--log-format must be text or json, got '", o.log_format, "'"));
  }
  if (o.audit_log.empty()) return errors::InvalidArgument("--audit-log must be -, off or a file");
  const std::vector<std::string> passes = compiler::passes::DefaultPassNames();
  for (const std::string& name : o.disabled_passes) {
    if (std::find(passes.begin(), passes.end(), name) == passes.end()) {
      return errors::InvalidArgument(absl::StrCat("--disable-passes: unknown pass '", name, "' (passes: ",
                                                  absl::StrJoin(passes, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

StatusOr<ServerOptions> ParseCommandLine(int argc, char** argv, int* exit_code) {
  ServerOptions o;
  std::string config_path;
  CLI::App app("graphd: graph execution server (sessions, sess.run over gRPC)", "graphd");
  app.set_version_flag("--version", std::string(kVersion));
  app.add_option("--listen", o.listen, "Address to serve on, HOST:PORT")
      ->envname("GRAPHD_LISTEN")->capture_default_str();
  app.add_option("--config", config_path, "Text-format graphd.v1.ServerConfig file")
      ->envname("GRAPHD_CONFIG");
  app.add_option("--log-level", o.log_level, "trace|debug|info|warn|error|off")
      ->envname("GRAPHD_LOG_LEVEL")->capture_default_str();
  app.add_option("--max-sessions", o.max_sessions, "Most sessions open at once")
      ->envname("GRAPHD_MAX_SESSIONS")->capture_default_str();
  app.add_option("--session-idle-timeout", o.session_idle_timeout_seconds,
                 "Seconds before an unused session is closed (0: never)")
      ->envname("GRAPHD_SESSION_IDLE_TIMEOUT")->capture_default_str();
  app.add_option("--max-message-bytes", o.max_message_bytes, "Largest request/response in bytes")
      ->envname("GRAPHD_MAX_MESSAGE_BYTES")->capture_default_str();
  app.add_option("--cpu-threads", o.cpu_threads, "Worker threads for session work (0: cores)")
      ->envname("GRAPHD_CPU_THREADS")->capture_default_str();
  app.add_option("--openmp-teams", o.openmp_teams,
                 "single: one OpenMP team (worker 0's, while no other task runs); per-worker: a team per worker")
      ->envname("GRAPHD_OPENMP_TEAMS")->capture_default_str();
  app.add_option("--inline-run-us", o.inline_run_us,
                 "Run small cache-hit calls whose plan last ran within this many us on the gRPC thread (0: never)")
      ->envname("GRAPHD_INLINE_RUN_US")->capture_default_str();
  app.add_option("--malloc-arenas", o.malloc_arenas,
                 "Most malloc arenas (0: glibc's default); 1 hands large freed blocks back to the system, more trade that for less lock contention")
      ->envname("GRAPHD_MALLOC_ARENAS")->capture_default_str();
  app.add_option("--buffer-cache-mb", o.buffer_cache_mb,
                 "Most MiB of freed tensor storage kept for reuse by the next tensor of the same size, or of a quarter "
                 "of it and up when none of its size is free (0: none)")
      ->envname("GRAPHD_BUFFER_CACHE_MB")->capture_default_str();
  app.add_option("--function-cache-entries", o.function_cache_entries,
                 "Most concrete functions the shared function cache keeps (least recently used go first)")
      ->envname("GRAPHD_FUNCTION_CACHE_ENTRIES")->capture_default_str();
  app.add_option("--function-cache-mb", o.function_cache_mb,
                 "Most MiB of constants the shared function cache's functions hold")
      ->envname("GRAPHD_FUNCTION_CACHE_MB")->capture_default_str();
  app.add_option("--gpu", o.gpu, "auto: device=\"gpu\" sessions use the first usable NVIDIA GPU; off: no GPU")
      ->envname("GRAPHD_GPU")->capture_default_str();
  app.add_option("--max-tensor-bytes", o.max_tensor_bytes,
                 "Largest single tensor a run may create; more fails with RESOURCE_EXHAUSTED")
      ->envname("GRAPHD_MAX_TENSOR_BYTES")->capture_default_str();
  app.add_option("--disable-passes", o.disabled_passes,
                 "Graph passes not to run on traced functions, comma-separated (constant_folding,cse,dce)")
      ->envname("GRAPHD_DISABLE_PASSES")->delimiter(',');
  app.add_option("--model-repository", o.model_repository,
                 "Serve the models of this directory (DIR/NAME/VERSION/model.onnx|.graphdef|.py) over KServe v2")
      ->envname("GRAPHD_MODEL_REPOSITORY");
  app.add_option("--model-control-mode", o.model_control_mode,
                 "none: load every model at start; poll: also follow the repository's changes; explicit: load "
                 "and unload on request")
      ->envname("GRAPHD_MODEL_CONTROL_MODE")->capture_default_str();
  app.add_option("--http-listen", o.http_listen,
                 "Also serve KServe v2 HTTP/REST (/v2/...) on HOST:PORT (default: not)")
      ->envname("GRAPHD_HTTP_LISTEN");
  app.add_option("--tls-cert-file", o.tls_cert_file, "PEM certificate chain: serve gRPC over TLS")
      ->envname("GRAPHD_TLS_CERT_FILE");
  app.add_option("--tls-key-file", o.tls_key_file, "PEM private key of --tls-cert-file")
      ->envname("GRAPHD_TLS_KEY_FILE");
  app.add_option("--tls-client-ca-file", o.tls_client_ca_file,
                 "PEM CA bundle: require client certificates it signed (mutual TLS)")
      ->envname("GRAPHD_TLS_CLIENT_CA_FILE");
  app.add_option("--tls-reload-seconds", o.tls_reload_seconds,
                 "Seconds between looks at the TLS files: changed certificates are served without a restart")
      ->envname("GRAPHD_TLS_RELOAD_SECONDS")->capture_default_str();
  app.add_option("--tenants-file", o.tenants_file,
                 "Text graphd.v1.TenantsConfig: tenants, their tokens' SHA-256 and quotas (re-read on SIGHUP)")
      ->envname("GRAPHD_TENANTS_FILE");
  app.add_option("--fair-scheduling", o.fair_scheduling,
                 "Serve tenants' queued work by weighted fair queuing (false: first come, first served)")
      ->envname("GRAPHD_FAIR_SCHEDULING")->capture_default_str();
  app.add_flag("--allow-insecure-remote", o.allow_insecure_remote,
               "Let a server without TLS and tenants listen on non-loopback addresses (a trusted network only)")
      ->envname("GRAPHD_ALLOW_INSECURE_REMOTE");
  app.add_flag("--reuse-port", o.reuse_port,
               "Let other processes bind the same --listen port (SO_REUSEPORT; they split the connections)")
      ->envname("GRAPHD_REUSE_PORT");
  app.add_option("--metrics-listen", o.metrics_listen,
                 "Serve Prometheus metrics at http://HOST:PORT/metrics (default: not)")
      ->envname("GRAPHD_METRICS_LISTEN");
  app.add_option("--repository-poll-seconds", o.repository_poll_seconds,
                 "Seconds between looks at the repository in poll mode")
      ->envname("GRAPHD_REPOSITORY_POLL_SECONDS")->capture_default_str();
  app.add_option("--memory-limit", o.memory_limit,
                 "Tensor memory the server may hold: auto (80% of the machine's or cgroup's memory), N%, bytes "
                 "(8G, 512M) or off; past it work waits --memory-wait-ms, then fails with RESOURCE_EXHAUSTED")
      ->envname("GRAPHD_MEMORY_LIMIT")->capture_default_str();
  app.add_option("--memory-wait-ms", o.memory_wait_ms,
                 "Milliseconds an allocation past --memory-limit waits for memory to be freed")
      ->envname("GRAPHD_MEMORY_WAIT_MS")->capture_default_str();
  app.add_option("--log-format", o.log_format, "text|json (one JSON object per line) for the log and audit log")
      ->envname("GRAPHD_LOG_FORMAT")->capture_default_str();
  app.add_option("--audit-log", o.audit_log,
                 "One line per RPC (tenant, method, session, status, duration, bytes): - (stderr), off, or a file")
      ->envname("GRAPHD_AUDIT_LOG")->capture_default_str();
  app.add_option("--drain-seconds", o.drain_seconds,
                 "Seconds to finish in-flight work after SIGTERM/SIGINT")
      ->envname("GRAPHD_DRAIN_SECONDS")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    *exit_code = app.exit(e);
    return errors::Cancelled("exit");
  } catch (const CLI::ParseError& e) {
    *exit_code = 2;
    return errors::InvalidArgument(e.what());
  }
  *exit_code = 2;
  if (!config_path.empty()) {
    ASSIGN_OR_RETURN(v1::ServerConfig config, LoadConfigFile(config_path));
    ApplyConfig(config, app, o);
  }
  RETURN_IF_ERROR(Validate(o));
  *exit_code = 0;
  return o;
}

}  // namespace graphd::server
