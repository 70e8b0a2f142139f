#include "server/service/status_codec.h"

namespace graphd::server {

absl::string_view ErrorClassName(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk: return "";
    case absl::StatusCode::kCancelled: return "CancelledError";
    case absl::StatusCode::kUnknown: return "UnknownError";
    case absl::StatusCode::kInvalidArgument: return "InvalidArgumentError";
    case absl::StatusCode::kDeadlineExceeded: return "DeadlineExceededError";
    case absl::StatusCode::kNotFound: return "NotFoundError";
    case absl::StatusCode::kAlreadyExists: return "AlreadyExistsError";
    case absl::StatusCode::kPermissionDenied: return "PermissionDeniedError";
    case absl::StatusCode::kResourceExhausted: return "ResourceExhaustedError";
    case absl::StatusCode::kFailedPrecondition: return "FailedPreconditionError";
    case absl::StatusCode::kAborted: return "AbortedError";
    case absl::StatusCode::kOutOfRange: return "OutOfRangeError";
    case absl::StatusCode::kUnimplemented: return "UnimplementedError";
    case absl::StatusCode::kInternal: return "InternalError";
    case absl::StatusCode::kUnavailable: return "UnavailableError";
    case absl::StatusCode::kDataLoss: return "DataLossError";
    case absl::StatusCode::kUnauthenticated: return "UnauthenticatedError";
    default: return "UnknownError";
  }
}

v1::ErrorDetail ErrorDetailOf(const Status& status) {
  v1::ErrorDetail detail;
  // A Python exception raised by user code keeps its class (ValueError, ...).
  auto python_class = errors::PythonClassOf(status);
  detail.set_error_class(python_class ? *python_class : std::string(ErrorClassName(status.code())));
  detail.set_message(std::string(status.message()));
  if (auto node = errors::NodeOf(status)) detail.set_node_name(*node);
  for (const UserLocation& loc : errors::LocationsOf(status)) {
    v1::SourceLocation* out = detail.add_location();
    out->set_file(loc.file);
    out->set_line(loc.line);
    out->set_column(loc.column);
    out->set_source_line(loc.source_line);
  }
  return detail;
}

grpc::Status ToGrpcStatus(const Status& status, grpc::ServerContextBase* context) {
  if (status.ok()) return grpc::Status::OK;
  if (context != nullptr) {
    context->AddTrailingMetadata(kErrorDetailKey, ErrorDetailOf(status).SerializeAsString());
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

}  // namespace graphd::server
