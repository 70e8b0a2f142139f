// What each tenant is using now, for the quotas that count (concurrent calls).
// Thread-safe.
#ifndef GRAPHD_SERVER_TENANCY_USAGE_H_
#define GRAPHD_SERVER_TENANCY_USAGE_H_

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/status.h"

namespace graphd::server::tenancy {

class Usage {
 public:
  // Counts a call of `tenant` starting; ResourceExhausted naming the quota and the
  // numbers when it already has `max` running (0: no limit).
  Status BeginCall(const std::string& tenant, int64_t max);
  void EndCall(const std::string& tenant);
  int64_t calls(const std::string& tenant) const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, int64_t> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphd::server::tenancy

#endif  // GRAPHD_SERVER_TENANCY_USAGE_H_
