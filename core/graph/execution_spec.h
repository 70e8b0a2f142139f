// What one run executes: the pruned nodes of a graph in topological order, the
// tensors fed from outside, and the tensors fetched. Made by the compiler's pruning,
// consumed by the executor's planner. Refers to nodes of a Graph that must outlive it.
#ifndef GRAPHD_CORE_GRAPH_EXECUTION_SPEC_H_
#define GRAPHD_CORE_GRAPH_EXECUTION_SPEC_H_

#include <vector>

#include "core/graph/graph.h"

namespace graphd {

struct ExecutionSpec {
  // Nodes to run, producers before consumers.
  std::vector<const Node*> nodes;
  // Fed tensors, in the order their values are supplied at run time.
  std::vector<OutputRef> feeds;
  // Fetched tensors, in the order results are returned.
  std::vector<OutputRef> fetches;
};

}  // namespace graphd

#endif  // GRAPHD_CORE_GRAPH_EXECUTION_SPEC_H_
