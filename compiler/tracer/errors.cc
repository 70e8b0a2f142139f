#include "compiler/tracer/errors.h"

namespace graphd::compiler::tracer {

Status PyError(absl::string_view cls, absl::string_view message) {
  absl::StatusCode code = absl::StatusCode::kInvalidArgument;
  if (cls == "NotImplementedError") code = absl::StatusCode::kUnimplemented;
  if (cls == "RecursionError") code = absl::StatusCode::kResourceExhausted;
  return errors::WithPythonClass(errors::Make(code, message), cls);
}

bool IsPyError(const Status& status, absl::string_view cls) {
  auto c = errors::PythonClassOf(status);
  return c.has_value() && *c == cls;
}

}  // namespace graphd::compiler::tracer
