// str() and repr() of tracer values, as Python prints them (tensors as TensorFlow
// prints them: `Tensor("a:0", shape=(), dtype=int32)` for symbolic tensors).
#ifndef GRAPHD_COMPILER_TRACER_REPR_H_
#define GRAPHD_COMPILER_TRACER_REPR_H_

#include <string>

#include "compiler/tracer/value.h"
#include "core/shape.h"

namespace graphd::compiler::tracer {

std::string PyRepr(const Value& v);
std::string PyStr(const Value& v);
// Python's repr of a float (shortest round-trip, "1.0", "inf", "nan", "1e-05").
std::string FloatRepr(double d);
// Python's repr of a str ('...' with escapes).
std::string StrRepr(const std::string& s);
// "(2, 3)", "(None, 3)", "<unknown>" for a tensor shape.
std::string ShapeRepr(const PartialShape& shape);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_REPR_H_
