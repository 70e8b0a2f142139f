// graphd: parse options, start the server, wait for SIGTERM/SIGINT (SIGHUP: re-read the
// tenants file), drain, exit 0.
#include <signal.h>

#include <cstdio>

#include "absl/synchronization/mutex.h"
#include "core/logging.h"
#include "server/audit_log.h"
#include "server/config.h"
#include "server/malloc_tuning.h"
#include "server/openmp_env.h"
#include "server/server.h"

int main(int argc, char** argv) {
  // First, before any thread: may re-execute the program (server/openmp_env.h).
  if (auto status = graphd::server::ReexecWithOpenMpEnv(argv); !status.ok()) {
    std::fprintf(stderr, "graphd: %s\n", std::string(status.message()).c_str());
    if (absl::IsInvalidArgument(status)) return 2;
  }
  int exit_code = 0;
  auto options = graphd::server::ParseCommandLine(argc, argv, &exit_code);
  if (!options.ok()) {
    if (exit_code != 0) std::fprintf(stderr, "graphd: %s\n", std::string(options.status().message()).c_str());
    return exit_code;
  }
  // Block the stop signals in every thread; this one waits for them below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);  // re-read the tenants file
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // Debian's abseil is built with its debug checks on, so every Mutex operation would
  // also update a process-wide deadlock graph under one global lock (and every Mutex
  // made and destroyed would add and remove a node): serialising work that shares
  // nothing. The thread-safety annotations (make test) check lock discipline instead.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  (void)graphd::SetLogLevel(options->log_level);  // validated already
  (void)graphd::SetLogFormat(options->log_format);  // validated already
  if (auto status = graphd::server::ConfigureAuditLog(options->audit_log, options->log_format == "json");
      !status.ok()) {
    std::fprintf(stderr, "graphd: %s\n", std::string(status.message()).c_str());
    return 2;
  }
  if (!graphd::server::TuneMalloc(options->malloc_arenas)) {
    GRAPHD_LOG_WARN("malloc settings not applied (not glibc, or a sanitizer's allocator): large requests may run slower");
  }

  graphd::server::GraphdServer server(*options);
  if (auto status = server.Start(); !status.ok()) {
    std::fprintf(stderr, "graphd: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  int signal_number = 0;
  while (sigwait(&stop_signals, &signal_number) == 0 && signal_number == SIGHUP) {
    if (auto status = server.ReloadTenants(); status.ok()) {
      GRAPHD_LOG_INFO("SIGHUP: tenants file read again");
    } else {
      GRAPHD_LOG_ERROR("SIGHUP: {} (the tenants in force stay)", std::string(status.message()));
    }
  }
  GRAPHD_LOG_INFO("received {}", signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
  server.Drain();
  return 0;
}
