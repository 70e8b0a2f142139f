// Transport security: the gRPC server credentials (TLS with gRPC's file-watching
// certificate provider, so certificates swapped on disk are served without a restart;
// mutual TLS with a client CA), and the safe default: a server without TLS and without
// tenants listens on loopback addresses only unless --allow-insecure-remote says
// otherwise.
#ifndef GRAPHD_SERVER_TENANCY_TRANSPORT_H_
#define GRAPHD_SERVER_TENANCY_TRANSPORT_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace graphd::server::tenancy {

struct TlsFiles {
  std::string cert_file;       // PEM certificate chain ("": no TLS)
  std::string key_file;        // PEM private key
  std::string client_ca_file;  // PEM CA bundle: clients must present a certificate it signed ("": none)
  int reload_seconds = 10;     // how often the files are looked at for changes
};

// TLS credentials for `files` (the files are read now, so a missing or unreadable one
// is an error naming it), or insecure credentials when no certificate is given.
StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(const TlsFiles& files);

// True for 127.0.0.0/8, ::1 and "localhost" (the host part of HOST:PORT).
bool IsLoopback(absl::string_view listen);

// The safe default: FailedPrecondition naming the address when a listener in
// `listens` ("" entries skipped) is not loopback while the server has neither TLS nor
// tenants, unless `allow_insecure_remote`.
Status CheckExposure(const std::vector<std::pair<std::string, std::string>>& listens, bool tls, bool tenants,
                     bool allow_insecure_remote);

}  // namespace graphd::server::tenancy

#endif  // GRAPHD_SERVER_TENANCY_TRANSPORT_H_
