#include "server/tenancy/usage.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace graphd::server::tenancy {

Status Usage::BeginCall(const std::string& tenant, int64_t max) {
  absl::MutexLock lock(&mu_);
  int64_t& n = calls_[tenant];
  if (max > 0 && n >= max) {
    return errors::ResourceExhausted(absl::StrCat("tenant '", tenant, "' has ", n,
                                                  " calls running, its max_concurrent_calls quota is ", max,
                                                  "; retry when one ends"));
  }
  ++n;
  return absl::OkStatus();
}

void Usage::EndCall(const std::string& tenant) {
  absl::MutexLock lock(&mu_);
  auto it = calls_.find(tenant);
  if (it != calls_.end() && --it->second == 0) calls_.erase(it);
}

int64_t Usage::calls(const std::string& tenant) const {
  absl::MutexLock lock(&mu_);
  auto it = calls_.find(tenant);
  return it == calls_.end() ? 0 : it->second;
}

namespace {

// The meters of every Usage (see the header: they live as long as the process), kept
// reachable from here so that leak checkers see them as live.
struct Immortal {
  absl::Mutex mu;
  std::vector<std::unique_ptr<MemoryAccount>> memory ABSL_GUARDED_BY(mu);
  std::vector<std::unique_ptr<CompileMeter>> compile ABSL_GUARDED_BY(mu);
};

Immortal& ImmortalMeters() {
  static Immortal* const meters = new Immortal;  // never destroyed
  return *meters;
}

}  // namespace

Usage::Meters Usage::For(const v1::Tenant& tenant) {
  Meters meters;
  {
    absl::MutexLock lock(&mu_);
    auto [it, added] = meters_.try_emplace(tenant.name());
    if (added) {
      // Never deleted (see the header): a handful per tenant name ever configured.
      Immortal& all = ImmortalMeters();
      absl::MutexLock keep(&all.mu);
      it->second.memory = all.memory
                              .emplace_back(std::make_unique<MemoryAccount>(
                                  absl::StrCat("the max_memory_bytes quota of tenant '", tenant.name(), "'"), 0,
                                  &RootMemoryAccount()))
                              .get();
      it->second.compile = all.compile.emplace_back(std::make_unique<CompileMeter>(tenant.name())).get();
    }
    meters = it->second;
  }
  meters.memory->set_limit(tenant.max_memory_bytes());
  meters.compile->set_quota_seconds(tenant.max_compile_seconds_per_minute());
  return meters;
}

std::vector<std::pair<std::string, int64_t>> Usage::MemoryByTenant() const {
  std::vector<std::pair<std::string, int64_t>> out;
  absl::MutexLock lock(&mu_);
  for (const auto& [name, meters] : meters_) out.emplace_back(name, meters.memory->used());
  return out;
}

}  // namespace graphd::server::tenancy
