// Trace signatures as tf.function's cache sees them: the arguments of a trace with
// tensors as TensorSpecs and Python values as themselves. Used for
// `reduce_retracing=True`, where a shape miss traces a generalised signature (the
// dims that differ become None) that later calls of either shape reuse.
// Pure functions over values; no state.
#ifndef GRAPHD_COMPILER_TRACER_SIGNATURE_H_
#define GRAPHD_COMPILER_TRACER_SIGNATURE_H_

#include <optional>
#include <string>

#include "compiler/tracer/trace.h"

namespace graphd::compiler::tracer {

// True when a trace for `general` also serves a call whose trace arguments are
// `call`: same arity and keywords, equal Python values, each tensor of the spec's
// dtype with a shape the spec's shape stands for.
bool SignatureAccepts(const TraceArgs& general, const TraceArgs& call);

// The most specific signature serving both `previous` and `call`, when they differ
// only in tensor dims (same Python values, dtypes and ranks); nullopt otherwise.
std::optional<TraceArgs> GeneralizeSignature(const TraceArgs& previous, const TraceArgs& call);

// "(float32[?,3], int:2, k=str:'a')": how DescribeFunction lists a signature.
std::string SignatureText(const TraceArgs& args);

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_SIGNATURE_H_
