#include "server/tenancy/tenants.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <fstream>
#include <set>
#include <sstream>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/models/repository.h"
#include "server/text_proto.h"

namespace graphd::server::tenancy {
namespace {

constexpr size_t kMaxFileBytes = 4 << 20;

}  // namespace

Digest Sha256(absl::string_view data) {
  Digest d;
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), d.data());
  return d;
}

StatusOr<std::shared_ptr<const TenantSet>> LoadTenants(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::InvalidArgument(absl::StrCat("--tenants-file ", path, " cannot be read"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > kMaxFileBytes) return errors::InvalidArgument(absl::StrCat(path, ": over 4 MiB"));
  v1::TenantsConfig config;
  RETURN_IF_ERROR(ParseTextProto(text, path, &config));
  auto set = std::make_shared<TenantSet>();
  std::set<std::string> names, tokens;
  for (const v1::Tenant& t : config.tenant()) {
    auto bad = [&](absl::string_view what) {
      return errors::InvalidArgument(absl::StrCat(path, ": tenant '", t.name(), "': ", what));
    };
    if (!models::ValidModelName(t.name())) return bad("the name must be letters, digits, '_', '-' or '.'");
    if (!names.insert(t.name()).second) return bad("appears twice");
    const std::string hex = absl::AsciiStrToLower(t.token_sha256());
    if (hex.size() != 64 || !absl::c_all_of(hex, [](char c) { return absl::ascii_isxdigit(c); })) {
      return bad("token_sha256 must be 64 hex digits (printf %s TOKEN | sha256sum)");
    }
    if (!tokens.insert(hex).second) return bad("shares its token with another tenant");
    for (int64_t v : {t.weight(), t.max_sessions(), t.max_concurrent_calls(), t.max_memory_bytes(),
                      t.max_compile_seconds_per_minute(), t.max_source_bytes()}) {
      if (v < 0) return bad("weights and quotas are 0 (none) or positive");
    }
    const std::string bytes = absl::HexStringToBytes(hex);
    Digest d;
    std::copy(bytes.begin(), bytes.end(), d.begin());
    set->tenants.push_back(t);
    set->digests.push_back(d);
  }
  return std::shared_ptr<const TenantSet>(std::move(set));
}

Status Tenants::Reload() {
  if (!enabled()) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto set, LoadTenants(path_));
  absl::MutexLock lock(&mu_);
  set_ = std::move(set);
  return absl::OkStatus();
}

StatusOr<std::shared_ptr<const v1::Tenant>> Authenticate(const Tenants* tenants, absl::string_view authorization) {
  static const Tenants* none = new Tenants("");
  return (tenants != nullptr ? *tenants : *none).Authenticate(authorization);
}

Status MayUseModel(const v1::Tenant& tenant, absl::string_view model) {
  if (tenant.allowed_models().empty() || absl::c_linear_search(tenant.allowed_models(), model)) {
    return absl::OkStatus();
  }
  return errors::Make(absl::StatusCode::kPermissionDenied,
                      absl::StrCat("tenant '", tenant.name(), "' may not use model '", model, "'"));
}

StatusOr<std::shared_ptr<const v1::Tenant>> Tenants::Authenticate(absl::string_view authorization) const {
  static const auto* anonymous = new std::shared_ptr<const v1::Tenant>(std::make_shared<v1::Tenant>());
  if (!enabled()) return *anonymous;
  constexpr absl::string_view kBearer = "Bearer ";
  if (!absl::StartsWithIgnoreCase(authorization, kBearer) || authorization.size() == kBearer.size()) {
    return errors::Make(absl::StatusCode::kUnauthenticated, 
        "this server needs a bearer token: send `authorization: Bearer TOKEN` (graphd.connect(..., token=...))");
  }
  const Digest digest = Sha256(authorization.substr(kBearer.size()));
  std::shared_ptr<const TenantSet> set;
  {
    absl::MutexLock lock(&mu_);
    set = set_;
  }
  // Every tenant is compared, each in constant time: the time does not say which matched.
  int found = -1;
  for (size_t i = 0; set != nullptr && i < set->digests.size(); ++i) {
    if (CRYPTO_memcmp(digest.data(), set->digests[i].data(), digest.size()) == 0) found = static_cast<int>(i);
  }
  if (found < 0) return errors::Make(absl::StatusCode::kUnauthenticated, "the bearer token is not valid");
  // Aliases the set: the tenant lives as long as the caller holds it, across reloads.
  return std::shared_ptr<const v1::Tenant>(set, &set->tenants[found]);
}

}  // namespace graphd::server::tenancy
