// How DescribeFunction shows a trace signature: the arguments of a trace with tensors
// as TensorSpecs and Python values as themselves. (What keys the cache, and the
// reduce_retracing policy, are compiler/cache/signature_key.h.)
#ifndef GRAPHD_COMPILER_TRACER_SIGNATURE_H_
#define GRAPHD_COMPILER_TRACER_SIGNATURE_H_

#include <optional>
#include <string>

#include "compiler/tracer/trace.h"

namespace graphd::compiler::tracer {

// "(float32[?,3], int:2, k=str:'a')": how DescribeFunction lists a signature.
std::string SignatureText(const TraceArgs& args);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_SIGNATURE_H_
