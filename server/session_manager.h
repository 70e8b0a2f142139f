// Owns the open sessions: creation under a limit, lookup by handle, close, and
// expiry of idle sessions. Thread-safe.
#ifndef GRAPHD_SERVER_SESSION_MANAGER_H_
#define GRAPHD_SERVER_SESSION_MANAGER_H_

#include <chrono>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "executor/gpu/gpu_probe.h"
#include "server/session.h"

namespace graphd::server {

struct SessionLimits {
  int max_sessions = 1024;
  // Zero: sessions never expire.
  std::chrono::seconds idle_timeout{3600};
};

class SessionManager {
 public:
  // `device` and `passes` (for sessions' traced functions; may be null) must outlive
  // the manager. `gpus`: the GPUs found at start (executor/gpu/gpu_probe.h).
  SessionManager(SessionLimits limits, const executor::Device& device,
                 const compiler::passes::Pipeline* passes = nullptr, executor::gpu::GpuProbe gpus = {});

  // Opens a session holding `initial` (version 1, or 0 when empty) on the device type
  // `device` ("" or "cpu"; "gpu" is FAILED_PRECONDITION "no GPU device" with the
  // probe's reason on a server without one, and UNIMPLEMENTED while the GPU device
  // has no kernels, naming the GPU found). RESOURCE_EXHAUSTED at the limit; a graph
  // error creates no session.
  StatusOr<std::shared_ptr<Session>> Create(const GraphDef& initial, absl::string_view device = "");
  // NOT_FOUND "session <h> not found (closed, expired or on another replica)".
  StatusOr<std::shared_ptr<Session>> Get(absl::string_view handle) const;
  Status Close(absl::string_view handle);
  // Closes sessions idle longer than the timeout at `now`; returns how many.
  int ExpireIdle(Session::Clock::time_point now);
  int size() const;
  const executor::gpu::GpuProbe& gpus() const { return gpus_; }

 private:
  std::string NewHandle() const;

  const SessionLimits limits_;
  const executor::Device& device_;
  const compiler::passes::Pipeline* const passes_;
  const executor::gpu::GpuProbe gpus_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Session>> sessions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SESSION_MANAGER_H_
