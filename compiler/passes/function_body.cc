#include "compiler/passes/function_body.h"

namespace graphd::compiler::passes {

StatusOr<int> FunctionBody::ReplaceAllUses(OutputRef from, OutputRef to) {
  ASSIGN_OR_RETURN(int changed, graph->ReplaceAllUses(from, to));
  for (OutputRef& r : results) {
    if (r == from && !(from == to)) {
      r = to;
      ++changed;
    }
  }
  return changed;
}

StatusOr<FunctionRef> FunctionBody::ToFunction() && {
  return MakeFunction(std::move(name), std::move(graph), std::move(args), std::move(results));
}

}  // namespace graphd::compiler::passes
