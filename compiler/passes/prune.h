// Pruning for one run signature: the nodes that the fetches and targets need, with
// fed tensors cutting the graph, as TensorFlow's DirectSession prunes.
#ifndef GRAPHD_COMPILER_PASSES_PRUNE_H_
#define GRAPHD_COMPILER_PASSES_PRUNE_H_

#include <span>
#include <string>

#include "core/graph/execution_spec.h"

namespace graphd::compiler {

// Resolves tensor names ("node:index") and target node names against `graph` and
// returns the pruned spec. InvalidArgument for unknown names, duplicate feeds, and a
// needed Placeholder that is not fed (the message names it, its dtype and shape).
// `follow_control` false keeps only data dependencies (a traced function's variable
// initialisers, which must not pull in the updates that precede them in the program).
StatusOr<ExecutionSpec> Prune(const Graph& graph, std::span<const std::string> feeds,
                              std::span<const std::string> fetches,
                              std::span<const std::string> targets, bool follow_control = true);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_PASSES_PRUNE_H_
