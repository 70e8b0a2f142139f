#include "server/session_manager.h"

#include <algorithm>
#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "core/logging.h"

namespace graphd::server {
namespace {
Status HandleTaken(absl::string_view handle) {
  return errors::Make(absl::StatusCode::kAlreadyExists,
                      absl::StrCat("a session with handle ", handle, " exists; propose another (graphd-session metadata)"));
}

Status NotFound(absl::string_view handle) {
  return errors::NotFound(absl::StrCat("session ", handle,
                                       " not found (closed, expired or on another replica)"));
}
}  // namespace

SessionManager::SessionManager(SessionLimits limits, const executor::Device& device,
                               const compiler::passes::Pipeline* passes, GpuSetup gpu,
                               compiler::FunctionCacheOptions cache)
    : limits_(limits),
      device_(device),
      gpu_(std::move(gpu)),
      cache_(cache),
      cpu_target_(MakeCompileTarget(device.info().name, device, passes)),
      gpu_target_(gpu_.device != nullptr ? MakeCompileTarget(gpu_.device->info().name, *gpu_.device, gpu_.passes)
                                         : compiler::CompileTarget{}) {}

void SessionManager::Release(std::vector<std::shared_ptr<Session>> sessions) const {
  std::vector<std::string> gpu_handles;
  for (const auto& s : sessions) {
    s->MarkClosed();  // calls still running in it stop at their next check
    if (gpu_.device != nullptr && &s->device() == gpu_.device) gpu_handles.push_back(s->handle());
    cache_.EraseOwner(s->cache_owner());  // its own concrete functions (and their device memory)
  }
  sessions.clear();  // the last reference unless a call is still running
  if (!gpu_.release_memory) return;
  for (const std::string& handle : gpu_handles) gpu_.release_memory(handle);
}

bool IsSessionHandle(absl::string_view handle) {
  return handle.size() == 32 &&
         std::all_of(handle.begin(), handle.end(), [](char c) { return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f'); });
}

std::string SessionManager::NewHandle() const {
  // 128 bits from the OS's random source.
  std::random_device rd;
  std::string bytes(16, '\0');
  for (int i = 0; i < 16; i += 4) {
    uint32_t v = rd();
    std::memcpy(&bytes[i], &v, 4);
  }
  return absl::BytesToHexString(bytes);
}

Status SessionManager::CheckLimits(absl::string_view tenant, int64_t tenant_max) const {
  if (static_cast<int>(sessions_.size()) >= limits_.max_sessions) {
    return errors::ResourceExhausted(absl::StrCat("the server already has ", sessions_.size(),
                                                  " open sessions (--max-sessions=", limits_.max_sessions,
                                                  "); close one or retry later"));
  }
  if (tenant_max > 0) {
    int64_t mine = 0;
    for (const auto& [handle, s] : sessions_) mine += s->tenant() == tenant;
    if (mine >= tenant_max) {
      return errors::ResourceExhausted(absl::StrCat("tenant '", tenant, "' has ", mine,
                                                    " open sessions, its max_sessions quota is ", tenant_max,
                                                    "; close one first"));
    }
  }
  return absl::OkStatus();
}

StatusOr<std::shared_ptr<Session>> SessionManager::Create(const GraphDef& initial, absl::string_view device,
                                                          absl::string_view tenant, int64_t tenant_max_sessions,
                                                          bool own_functions, absl::string_view handle) {
  if (!handle.empty() && !IsSessionHandle(handle)) {
    return errors::InvalidArgument(absl::StrCat("the proposed session handle (graphd-session metadata, ",
                                                handle.size(), " bytes) is not 32 lowercase hex digits"));
  }
  std::string type = absl::AsciiStrToUpper(device);
  const executor::Device* chosen = &device_;
  const compiler::CompileTarget* target = &cpu_target_;
  uint64_t owner = 0;
  if (!type.empty() && type != device_.info().device_type) {
    if (type != "GPU") return errors::InvalidArgument(absl::StrCat("unknown device '", device, "' (use cpu or gpu)"));
    RETURN_IF_ERROR(CheckGpuUsable());
    chosen = gpu_.device;
    target = &gpu_target_;
    // GPU memory is accounted per session and goes back when it closes: its concrete
    // functions are its own.
    own_functions = true;
  }
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckLimits(tenant, tenant_max_sessions));
    if (!handle.empty() && sessions_.contains(handle)) return HandleTaken(handle);
  }
  if (own_functions) {
    owner = next_owner_.fetch_add(1);
    cache_.AddOwner(owner);
  }
  auto session = std::make_shared<Session>(
      handle.empty() ? NewHandle() : std::string(handle),
      CompileContext{.device = *chosen, .target = *target, .cache = cache_, .owner = owner},
      std::string(tenant));
  Status added = session->Extend(initial, 0).status();
  bool taken = false;  // proposed by two creations at once: the other one won
  if (added.ok()) {
    absl::MutexLock lock(&mu_);
    added = CheckLimits(tenant, tenant_max_sessions);
    if (added.ok() && !sessions_.emplace(session->handle(), session).second) {
      taken = true;
      added = HandleTaken(session->handle());
    }
  }
  if (taken) {
    // Not Release(): it frees device memory by handle, which is the other session's.
    session->MarkClosed();
    if (own_functions) cache_.EraseOwner(owner);
    return added;
  }
  if (!added.ok()) {
    Release({std::move(session)});  // its functions (owner) and device memory go
    return added;
  }
  return session;
}

StatusOr<std::shared_ptr<Session>> SessionManager::CreateModelSession(const std::string& name,
                                                                      absl::string_view device) {
  const bool gpu = device == "gpu" || (device == "auto" && gpu_.device != nullptr);
  if (gpu) RETURN_IF_ERROR(CheckGpuUsable());
  const uint64_t owner = next_owner_.fetch_add(1);
  cache_.AddOwner(owner);
  compiler::FunctionCache* cache = &cache_;
  // The owner number keeps the handle (the GPU memory owner too) unique while a
  // reloaded version's old and new sessions both live.
  auto session = new Session(absl::StrCat("model:", name, "#", owner),
                             CompileContext{.device = gpu ? *gpu_.device : device_,
                                            .target = gpu ? gpu_target_ : cpu_target_,
                                            .cache = cache_,
                                            .owner = owner});
  std::function<void(absl::string_view)> release = gpu ? gpu_.release_memory : nullptr;
  return std::shared_ptr<Session>(session, [cache, owner, release](Session* s) {
    const std::string handle = s->handle();
    delete s;
    cache->EraseOwner(owner);
    if (release) release(handle);
  });
}

Status SessionManager::CheckGpuUsable() const {
  if (gpu_.probe.devices.empty()) {
    return errors::FailedPrecondition(absl::StrCat("no GPU device on this server (", gpu_.probe.reason, ")"));
  }
  if (gpu_.device == nullptr) {
    return errors::FailedPrecondition(absl::StrCat("the server found ", gpu_.probe.devices[0].description,
                                                   " but cannot use it: ", gpu_.unusable, "; use device=\"cpu\""));
  }
  return absl::OkStatus();
}

StatusOr<std::shared_ptr<Session>> SessionManager::Get(absl::string_view handle, absl::string_view tenant) const {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end() || it->second->tenant() != tenant) return NotFound(handle);
  return it->second;
}

Status SessionManager::Close(absl::string_view handle, absl::string_view tenant) {
  std::vector<std::shared_ptr<Session>> closed;  // destroyed outside the lock
  {
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(handle);
    if (it == sessions_.end() || it->second->tenant() != tenant) return NotFound(handle);
    closed.push_back(std::move(it->second));
    sessions_.erase(it);
  }
  Release(std::move(closed));
  return absl::OkStatus();
}

int SessionManager::ExpireIdle(Session::Clock::time_point now) {
  if (limits_.idle_timeout.count() == 0) return 0;
  std::vector<std::shared_ptr<Session>> expired;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      // A session a call still holds (use_count > 1: the call's reference) is in use,
      // however long ago that call started: expiring it would cancel the call.
      if (now - it->second->last_used() > limits_.idle_timeout && it->second.use_count() == 1) {
        expired.push_back(std::move(it->second));
        sessions_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  for (const auto& s : expired) GRAPHD_LOG_INFO("session {} expired after being idle", s->handle());
  const int count = static_cast<int>(expired.size());
  Release(std::move(expired));
  return count;
}

int SessionManager::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(sessions_.size());
}

}  // namespace graphd::server
