#include "compiler/passes/output_uses.h"

namespace graphd::compiler::passes {

OutputUses::OutputUses(const FunctionBody& body)
    : count_(body.graph->num_nodes(), 0), only_user_(body.graph->num_nodes(), nullptr) {
  const Graph& g = *body.graph;
  for (int id = 0; id < g.num_nodes(); ++id) {
    for (const OutputRef& in : g.node(id)->inputs()) {
      if (in.index != 0) continue;
      ++count_[in.node->id()];
      only_user_[in.node->id()] = g.node(id);
    }
  }
  for (const OutputRef& r : body.results) count_[r.node->id()] += 2;
}

}  // namespace graphd::compiler::passes
