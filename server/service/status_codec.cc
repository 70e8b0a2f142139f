#include "server/service/status_codec.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/utf8.h"

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

namespace {
constexpr size_t kMaxSourceLineBytes = 240;
constexpr size_t kMaxNameBytes = 160;

// The largest cut <= `at` that does not split a UTF-8 character.
size_t CharBoundary(absl::string_view text, size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}
}  // namespace

std::string Elide(absl::string_view text, size_t max) {
  // Messages quote what clients sent (string tensors are bytes): the detail's fields
  // are proto3 strings, which a client cannot parse unless they are UTF-8.
  if (!IsValidUtf8(text)) return Elide(ToValidUtf8(text), max);
  if (text.size() <= max) return std::string(text);
  const std::string marker = absl::StrCat(" ... [", text.size(), " bytes in all, the middle elided] ... ");
  const size_t keep = max > marker.size() + 16 ? max - marker.size() : 16;
  const size_t head = CharBoundary(text, keep * 2 / 3);
  size_t tail_start = text.size() - (keep - keep * 2 / 3);
  while (tail_start < text.size() && (static_cast<unsigned char>(text[tail_start]) & 0xC0) == 0x80) ++tail_start;
  return absl::StrCat(text.substr(0, head), marker, text.substr(tail_start));
}

v1::ErrorDetail ErrorDetailOf(const Status& status) {
  v1::ErrorDetail detail;
  // A Python exception raised by user code keeps its class (ValueError, ...).
  auto python_class = errors::PythonClassOf(status);
  detail.set_error_class(python_class ? *python_class : std::string(ErrorClassName(status.code())));
  detail.set_message(Elide(status.message(), kMaxErrorMessageBytes));
  if (auto node = errors::NodeOf(status)) detail.set_node_name(Elide(*node, kMaxNameBytes));
  // Innermost frames first: keep the first and last few, as Python's tracebacks keep
  // what matters of a deep recursion.
  const std::vector<UserLocation> locations = errors::LocationsOf(status);
  const size_t n = locations.size(), limit = kMaxErrorLocations;
  for (size_t i = 0; i < n; ++i) {
    if (n > limit && i >= limit / 2 && i < n - limit / 2) continue;
    const UserLocation& loc = locations[i];
    v1::SourceLocation* out = detail.add_location();
    out->set_file(Elide(loc.file, kMaxNameBytes));
    out->set_line(loc.line);
    out->set_column(loc.column);
    out->set_source_line(Elide(loc.source_line, kMaxSourceLineBytes));
  }
  return detail;
}

grpc::Status ToGrpcStatus(const Status& status, grpc::ServerContextBase* context) {
  if (status.ok()) return grpc::Status::OK;
  if (context != nullptr) {
    context->AddTrailingMetadata(kErrorDetailKey, ErrorDetailOf(status).SerializeAsString());
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), Elide(status.message(), kMaxErrorMessageBytes));
}

}  // namespace graphd::server
