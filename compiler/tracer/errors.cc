#include "compiler/tracer/errors.h"

#include <map>

namespace graphd::compiler::tracer {
namespace {

// The bases of Python's builtin exception classes graphd raises or lets users catch
// (and of TensorFlow's OperatorNotAllowedInGraphError, see staging_runtime.cc).
const std::multimap<std::string, std::string, std::less<>>& Bases() {
  static const auto* bases = new std::multimap<std::string, std::string, std::less<>>{
      {"Exception", "BaseException"},
      {"ArithmeticError", "Exception"},
      {"ZeroDivisionError", "ArithmeticError"},
      {"OverflowError", "ArithmeticError"},
      {"FloatingPointError", "ArithmeticError"},
      {"LookupError", "Exception"},
      {"IndexError", "LookupError"},
      {"KeyError", "LookupError"},
      {"NameError", "Exception"},
      {"UnboundLocalError", "NameError"},
      {"RuntimeError", "Exception"},
      {"NotImplementedError", "RuntimeError"},
      {"RecursionError", "RuntimeError"},
      {"TypeError", "Exception"},
      {"ValueError", "Exception"},
      {"AssertionError", "Exception"},
      {"AttributeError", "Exception"},
      {"ImportError", "Exception"},
      {"ModuleNotFoundError", "ImportError"},
      {"StopIteration", "Exception"},
      {"SyntaxError", "Exception"},
      {"IndentationError", "SyntaxError"},
      {"TabError", "IndentationError"},
      {"OperatorNotAllowedInGraphError", "TypeError"},
      {"OperatorNotAllowedInGraphError", "NotImplementedError"},
  };
  return *bases;
}

}  // namespace

Status PyError(absl::string_view cls, absl::string_view message) {
  absl::StatusCode code = absl::StatusCode::kInvalidArgument;
  if (cls == "NotImplementedError") code = absl::StatusCode::kUnimplemented;
  if (cls == "RecursionError") code = absl::StatusCode::kResourceExhausted;
  return errors::WithPythonClass(errors::Make(code, message), cls);
}

bool PyClassIsA(absl::string_view cls, absl::string_view base) {
  if (cls == base) return true;
  auto [begin, end] = Bases().equal_range(cls);
  for (auto it = begin; it != end; ++it) {
    if (PyClassIsA(it->second, base)) return true;
  }
  return false;
}

bool IsPyError(const Status& status, absl::string_view cls) {
  auto c = errors::PythonClassOf(status);
  return c.has_value() && PyClassIsA(*c, cls);
}

}  // namespace graphd::compiler::tracer
