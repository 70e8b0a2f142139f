#include "server/tenancy/transport.h"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"

namespace graphd::server::tenancy {
namespace {

Status Readable(const std::string& path, absl::string_view flag) {
  std::ifstream in(path);
  if (!in) return errors::InvalidArgument(absl::StrCat(flag, " ", path, " cannot be read"));
  std::string first;
  std::getline(in, first);
  if (!absl::StrContains(first, "-----BEGIN")) {
    return errors::InvalidArgument(absl::StrCat(flag, " ", path, " is not a PEM file"));
  }
  return absl::OkStatus();
}

}  // namespace

StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(const TlsFiles& f) {
  if (f.cert_file.empty()) return grpc::InsecureServerCredentials();
  RETURN_IF_ERROR(Readable(f.cert_file, "--tls-cert-file"));
  RETURN_IF_ERROR(Readable(f.key_file, "--tls-key-file"));
  if (!f.client_ca_file.empty()) RETURN_IF_ERROR(Readable(f.client_ca_file, "--tls-client-ca-file"));
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      f.key_file, f.cert_file, f.client_ca_file, static_cast<unsigned int>(f.reload_seconds));
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (!f.client_ca_file.empty()) {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

bool IsLoopback(absl::string_view listen) {
  absl::string_view host = listen.substr(0, listen.rfind(':'));
  if (absl::ConsumePrefix(&host, "[")) absl::ConsumeSuffix(&host, "]");
  return host == "localhost" || host == "::1" || absl::StartsWith(host, "127.");
}

Status CheckExposure(const std::vector<std::pair<std::string, std::string>>& listens, bool tls, bool tenants,
                     bool allow_insecure_remote) {
  if (tls || tenants || allow_insecure_remote) return absl::OkStatus();
  for (const auto& [flag, listen] : listens) {
    if (listen.empty() || IsLoopback(listen)) continue;
    return errors::FailedPrecondition(absl::StrCat(
        flag, " ", listen, " is not a loopback address, and the server has neither TLS nor tenants: it would be "
        "insecure. Give --tls-cert-file/--tls-key-file and/or --tenants-file, or --allow-insecure-remote on a "
        "network you trust (the Docker image's default)"));
  }
  return absl::OkStatus();
}

}  // namespace graphd::server::tenancy
