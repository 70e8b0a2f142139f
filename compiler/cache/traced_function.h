// The source front end's compile step: a tf.function traced once for a call signature
// (twice when its first trace creates variables, as tf.function does) and compiled
// into a CompiledFunction whose FrontEndData (TracedFunction) keeps what a call needs
// besides the plan: the output structure and what print() wrote while tracing.
//
// The caller (the session's module) holds the module's trace lock: a trace runs the
// module's Python code.
#ifndef GRAPHD_COMPILER_CACHE_TRACED_FUNCTION_H_
#define GRAPHD_COMPILER_CACHE_TRACED_FUNCTION_H_

#include <memory>
#include <string>

#include "compiler/cache/compile.h"
#include "compiler/tracer/module.h"
#include "core/cancellation.h"

namespace graphd::compiler {

struct TracedFunction : FrontEndData {
  tracer::ConcreteFunction function;
  // The first trace when it created variables (it owns the init plan's nodes).
  tracer::ConcreteFunction first_trace;
  std::string trace_stdout;  // what print() wrote while tracing
  // The first trace created variables, so a second one (where creating them is an
  // error) made the function; tf.function counts the two as one.
  bool twice = false;
};

// The TracedFunction of a CompiledFunction made by CompileTrace.
inline const TracedFunction& TracedOf(const CompiledFunction& c) {
  return static_cast<const TracedFunction&>(*c.front_end);
}

// Traces `function` (a FunctionObj of `runtime`) for `args` and compiles it for
// `target`. `first`: no trace of it ran before, so it may create variables; if it
// does, their initialisers become the init plan and a second trace, where creating
// variables is an error, is the function. `*traces` counts the successful traces
// (also when a later step fails). The tracer runs the target's passes on each body as
// it finishes it.
StatusOr<std::shared_ptr<CompiledFunction>> CompileTrace(tracer::ModuleRuntime& runtime,
                                                         const tracer::Value& function,
                                                         const tracer::TraceArgs& args, bool first,
                                                         const CancellationToken& token,
                                                         const CompileTarget& target, int* traces);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_CACHE_TRACED_FUNCTION_H_
