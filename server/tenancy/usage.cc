#include "server/tenancy/usage.h"

#include "absl/strings/str_cat.h"

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

Usage::Meters Usage::For(const v1::Tenant& tenant) {
  Meters meters;
  {
    absl::MutexLock lock(&mu_);
    auto [it, added] = meters_.try_emplace(tenant.name());
    if (added) {
      // Never deleted (see the header): a handful per tenant name ever configured.
      it->second.memory = new MemoryAccount(absl::StrCat("the max_memory_bytes quota of tenant '", tenant.name(), "'"),
                                            0, &RootMemoryAccount());
      it->second.compile = new CompileMeter(tenant.name());
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
