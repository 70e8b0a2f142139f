// The one mapper from absl::Status to grpc::Status. Every non-OK status also carries a
// graphd.v1.ErrorDetail as binary trailing metadata "graphd-error-detail-bin".
// Both are bounded (kMaxErrorMessageBytes, at most kMaxErrorLocations frames, long
// source lines and names elided in the middle, at UTF-8 boundaries) so that the
// trailers stay far below clients' 8 KiB metadata limit whatever the error echoes (a
// 390 KiB source line, a 1000-frame RecursionError, an oversized handle).
#ifndef GRAPHD_SERVER_SERVICE_STATUS_CODEC_H_
#define GRAPHD_SERVER_SERVICE_STATUS_CODEC_H_

#include <grpcpp/server_context.h>

#include "core/status.h"
#include "graphd/v1/error.pb.h"

namespace graphd::server {

inline constexpr char kErrorDetailKey[] = "graphd-error-detail-bin";

// "InvalidArgumentError", ... as tf.errors names the classes.
absl::string_view ErrorClassName(absl::StatusCode code);
inline constexpr size_t kMaxErrorMessageBytes = 1024;
inline constexpr int kMaxErrorLocations = 8;
v1::ErrorDetail ErrorDetailOf(const Status& status);
// `text` when at most `max` bytes, else its head and tail around
// " ... [N bytes elided] ... ", cut at UTF-8 character boundaries; bytes that are not
// well-formed UTF-8 become U+FFFD (a proto3 string must be UTF-8).
std::string Elide(absl::string_view text, size_t max);
// Maps `status`; when not OK and `context` is given, attaches the detail to it.
grpc::Status ToGrpcStatus(const Status& status, grpc::ServerContextBase* context);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_STATUS_CODEC_H_
