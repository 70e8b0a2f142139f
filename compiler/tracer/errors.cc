#include "compiler/tracer/errors.h"

#include <map>

namespace graphd::compiler::tracer {
namespace {

// Each class's base(s), by name, classes after their bases.
const std::multimap<std::string, std::string, std::less<>>& Bases() {
  static const auto* bases = [] {
    auto* m = new std::multimap<std::string, std::string, std::less<>>;
    for (const auto& [cls, base] : PyExceptionBases()) m->emplace(cls, base);
    return m;
  }();
  return *bases;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& PyExceptionBases() {
  static const auto* bases = new std::vector<std::pair<std::string, std::string>>{
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
      // TensorFlow's error for a tensor used as a Python bool, also raised where
      // TensorFlow raises NotImplementedError (see staging_runtime.cc): both.
      {"OperatorNotAllowedInGraphError", "TypeError"},
      {"OperatorNotAllowedInGraphError", "NotImplementedError"},
  };
  return *bases;
}

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
