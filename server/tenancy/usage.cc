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

}  // namespace graphd::server::tenancy
