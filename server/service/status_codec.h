// The one mapper from absl::Status to grpc::Status. Every non-OK status also carries a
// graphd.v1.ErrorDetail as binary trailing metadata "graphd-error-detail-bin".
#ifndef GRAPHD_SERVER_SERVICE_STATUS_CODEC_H_
#define GRAPHD_SERVER_SERVICE_STATUS_CODEC_H_

#include <grpcpp/server_context.h>

#include "core/status.h"
#include "graphd/v1/error.pb.h"

namespace graphd::server {

inline constexpr char kErrorDetailKey[] = "graphd-error-detail-bin";

// "InvalidArgumentError", ... as tf.errors names the classes.
absl::string_view ErrorClassName(absl::StatusCode code);
v1::ErrorDetail ErrorDetailOf(const Status& status);
// Maps `status`; when not OK and `context` is given, attaches the detail to it.
grpc::Status ToGrpcStatus(const Status& status, grpc::ServerContextBase* context);

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SERVICE_STATUS_CODEC_H_
