// The pass pipeline for what is not traced (issue 14): TF1 `Run`/`MakeCallable` prune
// the session's graph into an ExecutionSpec, and GraphDef functions are imported as
// finished Functions. Both become a FunctionBody here (a copy: the session's graph and
// the imported function are left as they are), so the same pipeline the source and
// ONNX front ends use can rewrite them.
#ifndef GRAPHD_COMPILER_PASSES_SPEC_BODY_H_
#define GRAPHD_COMPILER_PASSES_SPEC_BODY_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "compiler/passes/function_body.h"
#include "compiler/passes/pipeline.h"
#include "core/graph/execution_spec.h"

namespace graphd::compiler::passes {

struct SpecBody {
  FunctionBody body;
  // Nodes copied only because a ref input names them (the VariableV2 an Assign writes
  // that nothing reads): the graph must hold them, but the run did not include them
  // and must not (see SpecWithout).
  absl::flat_hash_set<std::string> not_run;
};

// A body computing what `spec` runs: spec's nodes copied in order with their names,
// attributes and control inputs; each feed an "Arg" (index = position in spec.feeds,
// type = the fed output's), named after the fed node when that node is not copied
// (a fed Placeholder keeps its name in errors); each fetch a result. A fed
// Placeholder or Arg is not copied; any other node the run includes is, fed or not.
// Internal when spec is not closed (a node reads a node spec leaves out that is not
// fed).
StatusOr<SpecBody> BodyFromSpec(std::string name, const ExecutionSpec& spec);

// What to run of a finished function made from a SpecBody: SpecForFunction without
// the nodes named in `not_run`.
ExecutionSpec SpecWithout(const Function& function, const absl::flat_hash_set<std::string>& not_run);

// `function` rewritten by `pipeline` (a new Function; `function` is not changed).
StatusOr<FunctionRef> OptimizeFunction(const Function& function, const Pipeline& pipeline);

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_SPEC_BODY_H_
