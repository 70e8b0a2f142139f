// A function body while passes rewrite it: the graph, its arguments and its results,
// before MakeFunction freezes them. Passes replace tensors through ReplaceAllUses here
// (not on the graph alone) so that results follow the rewrite.
#ifndef GRAPHD_COMPILER_PASSES_FUNCTION_BODY_H_
#define GRAPHD_COMPILER_PASSES_FUNCTION_BODY_H_

#include <memory>
#include <string>
#include <vector>

#include "core/graph/function.h"

namespace graphd::compiler::passes {

struct FunctionBody {
  std::string name;
  std::unique_ptr<Graph> graph;
  std::vector<const Node*> args;    // Arg nodes of `graph`, in argument order
  std::vector<OutputRef> results;   // outputs of nodes of `graph`

  // Graph::ReplaceAllUses, and every result equal to `from` becomes `to`. Returns
  // the number of inputs and results changed.
  StatusOr<int> ReplaceAllUses(OutputRef from, OutputRef to);

  // The finished Function (MakeFunction with these args and results).
  StatusOr<FunctionRef> ToFunction() &&;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_FUNCTION_BODY_H_
