// Common-subexpression elimination: of nodes with the same op, device, attributes
// (tensors compared by value, functions by identity) and data inputs, the first is
// kept and the others' uses are moved to it; the others are deleted. Pinned nodes
// (see IsPinned: stateful ops such as ReadVariableOp, which must not merge across an
// assign, control edges, Arg) are never merged.
#ifndef GRAPHD_COMPILER_PASSES_CSE_H_
#define GRAPHD_COMPILER_PASSES_CSE_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class CommonSubexpressionElimination : public Pass {
 public:
  static constexpr absl::string_view kName = "cse";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_CSE_H_
