// The compile driver: the one path from an imported or traced function to something
// runnable. Every front end ends here (TF1 run signatures, source functions, ONNX and
// GraphDef functions): the device's pass pipeline rewrites the function, then the
// target's PlanBuilder (the server wires the executor's Plan::Build) plans it.
// compiler/ never includes executor/: the target is the seam.
#ifndef GRAPHD_COMPILER_CACHE_COMPILE_H_
#define GRAPHD_COMPILER_CACHE_COMPILE_H_

#include <functional>
#include <memory>
#include <string>

#include "compiler/cache/compiled_function.h"
#include "compiler/passes/pipeline.h"
#include "core/graph/execution_spec.h"

namespace graphd::compiler {

using PlanBuilder = std::function<StatusOr<std::unique_ptr<const Executable>>(const ExecutionSpec&)>;

// Where functions are compiled for: one per device the server runs sessions on.
// Immutable; must outlive what it compiles and every cache entry made with it.
struct CompileTarget {
  // Names the device in cache keys: the same function for another device is another
  // concrete function.
  std::string device;
  // The device's pipeline; null runs none.
  const passes::Pipeline* passes = nullptr;
  PlanBuilder build_plan;
};

// `function` through the target's passes (unless `optimized`: the tracer ran them as
// it finished each body), then planned. `signature` is the readable signature.
StatusOr<std::shared_ptr<CompiledFunction>> Compile(FunctionRef function, std::string signature,
                                                    const CompileTarget& target, bool optimized = false);

// A TF1 run: what `spec` (pruned from a session's graph) runs, copied into a function
// of its own (so the result does not point into the session's graph and can be
// shared), through the passes, planned.
StatusOr<std::shared_ptr<CompiledFunction>> CompileSpec(const ExecutionSpec& spec, std::string signature,
                                                        const CompileTarget& target);

// Plans `function` for `target` without passes (a traced function's initialisers).
StatusOr<std::unique_ptr<const Executable>> PlanOnly(const ExecutionSpec& spec, const CompileTarget& target);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_CACHE_COMPILE_H_
