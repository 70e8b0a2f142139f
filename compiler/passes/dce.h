// Dead-code elimination: deletes every node that neither a result nor a pinned node
// (see IsPinned: stateful ops, nodes with control edges, Arg and Placeholder, which
// always stay) needs through data or control inputs.
#ifndef GRAPHD_COMPILER_PASSES_DCE_H_
#define GRAPHD_COMPILER_PASSES_DCE_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class DeadCodeElimination : public Pass {
 public:
  static constexpr absl::string_view kName = "dce";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_DCE_H_
