// Owns the open sessions: creation under a limit, lookup by handle, close, and
// expiry of idle sessions. Thread-safe.
#ifndef GRAPHD_SERVER_SESSION_MANAGER_H_
#define GRAPHD_SERVER_SESSION_MANAGER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "executor/gpu/gpu_device.h"
#include "executor/gpu/gpu_probe.h"
#include "server/compile_context.h"
#include "server/session.h"

namespace graphd::server {

struct SessionLimits {
  int max_sessions = 1024;
  // Zero: sessions never expire.
  std::chrono::seconds idle_timeout{3600};
};

// What device="gpu" sessions get: the GPUs found at start (executor/gpu/gpu_probe.h),
// and when one is usable its device (ops without a GPU kernel fall back to the CPU),
// the passes for its sessions, and what to call (with the session's handle) after a
// GPU session closed, so that its accounting is settled and cached device memory goes
// back to the driver.
struct GpuSetup {
  executor::gpu::GpuProbe probe;
  const executor::Device* device = nullptr;  // null: no usable GPU
  std::string unusable;                      // why a GPU found cannot be used
  const compiler::passes::Pipeline* passes = nullptr;
  std::function<void(absl::string_view handle)> release_memory;
  // The device's memory now (null: none to report).
  std::function<executor::gpu::GpuMemoryStats()> memory_stats;
};

// Whether `handle` has the form of a session handle: 32 lowercase hex digits.
bool IsSessionHandle(absl::string_view handle);

class SessionManager {
 public:
  // `device`, `passes` (for sessions' traced functions; may be null) and the GPU
  // setup's device and passes must outlive the manager.
  // `cache` bounds the function cache every session compiles into.
  SessionManager(SessionLimits limits, const executor::Device& device,
                 const compiler::passes::Pipeline* passes = nullptr, GpuSetup gpu = {},
                 compiler::FunctionCacheOptions cache = {});

  // Opens a session holding `initial` (version 1, or 0 when empty) on the device type
  // `device` ("" or "cpu", or "gpu": FAILED_PRECONDITION "no GPU device" with the
  // probe's reason on a server without one, or naming why the GPU found cannot be
  // used). RESOURCE_EXHAUSTED at the limit; a graph error creates no session.
  // `tenant` owns it: Get and Close find it only for that tenant.
  // `tenant_max_sessions` (0: none) is the tenant's max_sessions quota.
  // `own_functions`: the session's concrete functions are its own, not shared with
  // other sessions, and go when it closes (a tenant with a memory quota: what its
  // compiles allocate is charged to it, and must go back when its sessions close).
  // `handle`: the handle the client proposed (its `graphd-session` route key, so that
  // a proxy routes the session's calls by it: deploy/proxy), 32 lowercase hex digits;
  // "" draws a random one. INVALID_ARGUMENT for another form, ALREADY_EXISTS when a
  // session has it.
  StatusOr<std::shared_ptr<Session>> Create(const GraphDef& initial, absl::string_view device = "",
                                            absl::string_view tenant = "", int64_t tenant_max_sessions = 0,
                                            bool own_functions = false, absl::string_view handle = "");
  // A session for a served model version (server/models): not listed, not counted
  // against the limit, never expired. Its concrete functions are its own (an owner in
  // the function cache), erased when the last reference to it goes, and a GPU
  // session's device memory goes back then too, so an unloaded model's memory goes
  // back. `device`: "cpu", "gpu" (FAILED_PRECONDITION naming why on a server without a
  // usable GPU) or "auto" (the GPU when there is a usable one, else the CPU).
  StatusOr<std::shared_ptr<Session>> CreateModelSession(const std::string& name, absl::string_view device = "cpu");
  // NOT_FOUND "session <h> not found (closed, expired or on another replica)", also
  // for another tenant's session (its existence is not revealed).
  StatusOr<std::shared_ptr<Session>> Get(absl::string_view handle, absl::string_view tenant = "") const;
  Status Close(absl::string_view handle, absl::string_view tenant = "");
  // Closes sessions idle longer than the timeout at `now`; returns how many.
  int ExpireIdle(Session::Clock::time_point now);
  int size() const;
  // The server's function cache (shared by every session).
  compiler::FunctionCacheStats function_cache_stats() const { return cache_.stats(); }
  // See FunctionCache::SetCompileObserver; before serving.
  void SetCompileObserver(std::function<void(int64_t us)> observer) { cache_.SetCompileObserver(std::move(observer)); }
  // See FunctionCache::SetCompileAdmission; before serving.
  void SetCompileAdmission(std::function<Status()> admission) { cache_.SetCompileAdmission(std::move(admission)); }
  const executor::gpu::GpuProbe& gpus() const { return gpu_.probe; }
  // The GPU device's memory (zeros without one).
  executor::gpu::GpuMemoryStats gpu_memory() const {
    return gpu_.memory_stats ? gpu_.memory_stats() : executor::gpu::GpuMemoryStats{};
  }

 private:
  std::string NewHandle() const;
  // ResourceExhausted when the server, or `tenant` (at `tenant_max`), is at its limit.
  Status CheckLimits(absl::string_view tenant, int64_t tenant_max) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // FailedPrecondition naming why when the server has no usable GPU.
  Status CheckGpuUsable() const;

  const SessionLimits limits_;
  const executor::Device& device_;
  // Drops `sessions` (outside the lock) and returns GPU memory if one was a GPU session.
  void Release(std::vector<std::shared_ptr<Session>> sessions) const;

  const GpuSetup gpu_;
  mutable compiler::FunctionCache cache_;
  const compiler::CompileTarget cpu_target_;
  const compiler::CompileTarget gpu_target_;  // planner unusable without gpu_.device
  mutable std::atomic<uint64_t> next_owner_{1};
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Session>> sessions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SESSION_MANAGER_H_
