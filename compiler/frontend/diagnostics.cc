#include "compiler/frontend/diagnostics.h"

namespace graphd::compiler {
namespace {

Status Located(Status status, const SourceRange& at, absl::string_view cls) {
  return errors::WithPythonClass(errors::WithLocation(std::move(status), at), cls);
}

}  // namespace

Status SyntaxError(const SourceRange& at, absl::string_view message) {
  return Located(errors::InvalidArgument(message), at, "SyntaxError");
}

Status IndentationError(const SourceRange& at, absl::string_view message) {
  return Located(errors::InvalidArgument(message), at, "IndentationError");
}

Status TabError(const SourceRange& at, absl::string_view message) {
  return Located(errors::InvalidArgument(message), at, "TabError");
}

Status NotSupported(const SourceRange& at, absl::string_view message) {
  return Located(errors::Unimplemented(message), at, "NotImplementedError");
}

Status TooDeep(const SourceRange& at, absl::string_view message) {
  return Located(errors::ResourceExhausted(message), at, "RecursionError");
}

}  // namespace graphd::compiler
