// Python exceptions raised by user code, as Status: the class name travels in the
// status (errors::WithPythonClass), the location is attached where the error surfaces
// in the user's code (errors::WithLocation).
#ifndef GRAPHD_COMPILER_TRACER_ERRORS_H_
#define GRAPHD_COMPILER_TRACER_ERRORS_H_

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace graphd::compiler::tracer {

// A Python exception of class `cls` ("ValueError", ...). Its status code follows the
// class: NotImplementedError -> UNIMPLEMENTED, RecursionError -> RESOURCE_EXHAUSTED,
// everything else INVALID_ARGUMENT.
Status PyError(absl::string_view cls, absl::string_view message);

// True when `status` carries a Python exception of class `cls` or a subclass of it.
bool IsPyError(const Status& status, absl::string_view cls);

// The builtin exception classes graphd raises or lets user code catch, as (class,
// base) pairs, every class after its base (BaseException has none); a class with two
// bases has two pairs.
const std::vector<std::pair<std::string, std::string>>& PyExceptionBases();

// Python's issubclass for the builtin exception classes (by name; unknown classes
// are subclasses of themselves only).
bool PyClassIsA(absl::string_view cls, absl::string_view base);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_ERRORS_H_
