// What each tenant is using now, for the quotas that count: calls running
// (max_concurrent_calls), host tensor memory held (max_memory_bytes, a MemoryAccount
// under the server's root account) and compile time in the last minute
// (max_compile_seconds_per_minute). Thread-safe.
#ifndef GRAPHD_SERVER_TENANCY_USAGE_H_
#define GRAPHD_SERVER_TENANCY_USAGE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/memory_account.h"
#include "core/status.h"
#include "graphd/v1/tenants.pb.h"
#include "server/tenancy/compile_meter.h"

namespace graphd::server::tenancy {

class Usage {
 public:
  // Counts a call of `tenant` starting; ResourceExhausted naming the quota and the
  // numbers when it already has `max` running (0: no limit).
  Status BeginCall(const std::string& tenant, int64_t max);
  void EndCall(const std::string& tenant);
  int64_t calls(const std::string& tenant) const;

  // `tenant`'s memory account and compile meter, their limits set from its quotas
  // (which a reload may have changed). Both live as long as the process: buffers
  // charged to an account may outlive this object.
  struct Meters {
    MemoryAccount* memory;
    CompileMeter* compile;
  };
  Meters For(const v1::Tenant& tenant);
  // (tenant, bytes held) for every tenant seen so far.
  std::vector<std::pair<std::string, int64_t>> MemoryByTenant() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, int64_t> calls_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Meters> meters_ ABSL_GUARDED_BY(mu_);  // never erased
};

}  // namespace graphd::server::tenancy

#endif  // GRAPHD_SERVER_TENANCY_USAGE_H_
