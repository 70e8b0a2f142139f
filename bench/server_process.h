// Starts a graphd binary on a free loopback port for a benchmark, and stops it
// (SIGTERM, then wait) when destroyed.
#ifndef GRAPHD_BENCH_SERVER_PROCESS_H_
#define GRAPHD_BENCH_SERVER_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace graphd::bench {

class ServerProcess {
 public:
  // Starts `binary` with --listen 127.0.0.1:<free port> plus `extra_args`, and waits
  // (up to 20 s) for health SERVING.
  static absl::StatusOr<std::unique_ptr<ServerProcess>> Start(const std::string& binary,
                                                              std::vector<std::string> extra_args);
  ~ServerProcess();

  const std::string& target() const { return target_; }
  pid_t pid() const { return pid_; }

 private:
  ServerProcess(pid_t pid, std::string target) : pid_(pid), target_(std::move(target)) {}
  pid_t pid_;
  std::string target_;
};

// The directory of the running executable (to find build/bin/graphd beside it).
std::string ExecutableDir();

}  // namespace graphd::bench

#endif  // GRAPHD_BENCH_SERVER_PROCESS_H_
