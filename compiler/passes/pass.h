// A graph pass: a named rewrite of one function body (convention 7 of DESIGN.md,
// `StatusOr<bool> Run(...)`, over a FunctionBody rather than a bare Graph because
// results are part of what a body computes).
//
// Contract of Run: returns whether the body changed. On success the graph is valid
// (inference-consistent, ids == positions, insertion order topological), every Arg
// node is still there and in `args`, and every result has the same dtype and shape
// as before. Stateful nodes, and nodes with control edges in or out, are neither
// removed, merged nor replaced, and keep their relative order. Passes run only on a
// finished body (nothing else holds OutputRefs into it). Passes are stateless:
// Run is const and thread-safe.
#ifndef GRAPHD_COMPILER_PASSES_PASS_H_
#define GRAPHD_COMPILER_PASSES_PASS_H_

#include "absl/strings/string_view.h"
#include "compiler/passes/function_body.h"

namespace graphd::compiler::passes {

class Pass {
 public:
  virtual ~Pass() = default;
  // Stable, lower_snake_case: the name --disable-passes takes.
  virtual absl::string_view name() const = 0;
  virtual StatusOr<bool> Run(FunctionBody& body) const = 0;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_PASS_H_
