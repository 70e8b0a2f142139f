// Tenants and their bearer tokens (--tenants-file, proto/graphd/v1/tenants.proto).
// A request's `authorization: Bearer TOKEN` metadata names its tenant: the token's
// SHA-256 is compared, in constant time, with every tenant's (the file stores only the
// digests). Without a tenants file every request is the anonymous tenant "".
//
// Thread-safe: Authenticate may run on any thread while Reload (SIGHUP) swaps the set.
#ifndef GRAPHD_SERVER_TENANCY_TENANTS_H_
#define GRAPHD_SERVER_TENANCY_TENANTS_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/status.h"
#include "graphd/v1/tenants.pb.h"

namespace graphd::server::tenancy {

using Digest = std::array<unsigned char, 32>;

struct TenantSet {
  std::vector<v1::Tenant> tenants;
  std::vector<Digest> digests;  // one per tenant
};

// Reads and checks a tenants file. InvalidArgument naming the file (and line:column
// for a syntax error) and the tenant.
StatusOr<std::shared_ptr<const TenantSet>> LoadTenants(const std::string& path);

// SHA-256 of `data`.
Digest Sha256(absl::string_view data);

class Tenants {
 public:
  // `path` "": no tenants (authentication off).
  explicit Tenants(std::string path) : path_(std::move(path)) {}
  // Reads the file; the error names it. Called at start and on SIGHUP (on failure the
  // tenants in force stay).
  Status Reload();
  bool enabled() const { return !path_.empty(); }

  // The tenant `authorization` (the metadata's value: "Bearer TOKEN") names.
  // Unauthenticated when it is missing, malformed or unknown (the message never says
  // which of a known tenant's fields failed). With tenants off: the anonymous tenant.
  StatusOr<std::shared_ptr<const v1::Tenant>> Authenticate(absl::string_view authorization) const;

 private:
  const std::string path_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const TenantSet> set_ ABSL_GUARDED_BY(mu_);
};

// As Tenants::Authenticate; `tenants` null: no tenants (the anonymous tenant).
StatusOr<std::shared_ptr<const v1::Tenant>> Authenticate(const Tenants* tenants, absl::string_view authorization);

// PermissionDenied unless `tenant` may use served model `model` (its allowed_models;
// empty: all).
Status MayUseModel(const v1::Tenant& tenant, absl::string_view model);

}  // namespace graphd::server::tenancy

#endif  // GRAPHD_SERVER_TENANCY_TENANTS_H_
