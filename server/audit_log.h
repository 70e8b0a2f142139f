// The audit log (--audit-log, --log-format): one line per RPC the server answers
// (gRPC and HTTP), saying who called what and how it ended: time, protocol, method,
// tenant, session (or model), peer, status code, duration and bytes in and out.
// Text lines are `key=value` pairs after the time and "audit"; JSON lines are one
// object each. Lines from many threads never interleave. Thread-safe.
#ifndef GRAPHD_SERVER_AUDIT_LOG_H_
#define GRAPHD_SERVER_AUDIT_LOG_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/status.h"

namespace graphd::server {

struct AuditRecord {
  absl::string_view protocol;  // "grpc" or "http"
  absl::string_view method;    // the RPC's name, or "POST /v2/models/m/infer"
  absl::string_view tenant;    // "" without tenants (or before authentication)
  absl::string_view session;   // the session handle or model name, "" for none
  absl::string_view peer;      // gRPC's peer string or the HTTP client's address
  absl::StatusCode code = absl::StatusCode::kOk;
  int http_status = 0;         // HTTP: the response's status, written instead of `code`
  int64_t duration_us = 0;
  int64_t request_bytes = 0;
  int64_t response_bytes = 0;
};

// Where lines go: "-" standard error, "off" nowhere, else a file opened for
// appending (InvalidArgument naming --audit-log when it cannot be). `json`: one JSON
// object per line. Called once, before serving.
Status ConfigureAuditLog(const std::string& destination, bool json);
bool AuditLogEnabled();
void WriteAudit(const AuditRecord& record);
// The line WriteAudit writes for `record` at `unix_micros` (without the newline).
std::string FormatAudit(const AuditRecord& record, int64_t unix_micros, bool json);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_AUDIT_LOG_H_
