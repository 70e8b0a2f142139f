// Error handling for every graphd module: absl::Status / absl::StatusOr with
// return-early macros, canonical constructors that remember the C++ origin, and
// payloads that tell the service layer which graph node an error is about.
#ifndef GRAPHD_CORE_STATUS_H_
#define GRAPHD_CORE_STATUS_H_

#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/str_join.h"
#include "core/source.h"

namespace graphd {

using absl::Status;
using absl::StatusOr;

// Payload keys (type URLs) carried by errors across module boundaries.
inline constexpr absl::string_view kNodePayload = "graphd/node";
inline constexpr absl::string_view kOriginPayload = "graphd/origin";
inline constexpr absl::string_view kLocationPayload = "graphd/location";
inline constexpr absl::string_view kPythonClassPayload = "graphd/python-class";

// A place in the user's source, as shown in a traceback.
struct UserLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string source_line;
  bool operator==(const UserLocation&) const = default;
};

namespace errors {

// Builds a status with `code` and message, recording the C++ file:line that made it
// (shown in debug logs, never to users).
Status Make(absl::StatusCode code, absl::string_view message,
            std::source_location loc = std::source_location::current());

#define GRAPHD_DEFINE_ERROR(Name, Code)                                     \
  inline Status Name(absl::string_view message,                             \
                     std::source_location loc = std::source_location::current()) { \
    return Make(absl::StatusCode::Code, message, loc);                     \
  }
GRAPHD_DEFINE_ERROR(InvalidArgument, kInvalidArgument)
GRAPHD_DEFINE_ERROR(NotFound, kNotFound)
GRAPHD_DEFINE_ERROR(FailedPrecondition, kFailedPrecondition)
GRAPHD_DEFINE_ERROR(Unimplemented, kUnimplemented)
GRAPHD_DEFINE_ERROR(ResourceExhausted, kResourceExhausted)
GRAPHD_DEFINE_ERROR(DeadlineExceeded, kDeadlineExceeded)
GRAPHD_DEFINE_ERROR(Cancelled, kCancelled)
GRAPHD_DEFINE_ERROR(Aborted, kAborted)
GRAPHD_DEFINE_ERROR(Internal, kInternal)
GRAPHD_DEFINE_ERROR(Unavailable, kUnavailable)
GRAPHD_DEFINE_ERROR(OutOfRange, kOutOfRange)
#undef GRAPHD_DEFINE_ERROR

// Tags `status` (if not OK and not yet tagged) as being about graph node `node`.
Status WithNode(Status status, absl::string_view node);
// The node an error is about, if tagged.
std::optional<std::string> NodeOf(const Status& status);
// "file.cc:123" where the error was made, if recorded.
std::optional<std::string> OriginOf(const Status& status);

// Appends the user-source location of `range` to `status` (if not OK and `range` is
// valid). Errors collect one location per frame as they propagate outwards, so the
// first is the innermost (where the error happened).
Status WithLocation(Status status, const SourceRange& range);
std::vector<UserLocation> LocationsOf(const Status& status);

// Marks `status` as a Python exception of class `cls` ("ValueError", "SyntaxError",
// ...) raised by user code, unless it already names one.
Status WithPythonClass(Status status, absl::string_view cls);
std::optional<std::string> PythonClassOf(const Status& status);

}  // namespace errors
}  // namespace graphd

#define GRAPHD_STATUS_CONCAT_INNER(a, b) a##b
#define GRAPHD_STATUS_CONCAT(a, b) GRAPHD_STATUS_CONCAT_INNER(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define RETURN_IF_ERROR(expr)                           \
  do {                                                  \
    ::absl::Status graphd_status_ = (expr);             \
    if (!graphd_status_.ok()) return graphd_status_;    \
  } while (0)

// `lhs = value of expr` (a StatusOr), or returns its error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(GRAPHD_STATUS_CONCAT(graphd_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return std::move(tmp).status(); \
  lhs = std::move(tmp).value()

#endif  // GRAPHD_CORE_STATUS_H_
