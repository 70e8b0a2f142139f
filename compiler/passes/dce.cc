#include "compiler/passes/dce.h"

#include "compiler/passes/pass_util.h"

namespace graphd::compiler::passes {

StatusOr<bool> DeadCodeElimination::Run(FunctionBody& body) const {
  Graph& g = *body.graph;
  const int n = g.num_nodes();
  const std::vector<bool> control_outputs = ControlOutputs(g);
  std::vector<bool> live(n, false);
  std::vector<const Node*> stack;
  for (const OutputRef& r : body.results) stack.push_back(r.node);
  for (int id = 0; id < n; ++id) {
    if (IsPinned(*g.node(id), control_outputs)) stack.push_back(g.node(id));
  }
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    if (live[node->id()]) continue;
    live[node->id()] = true;
    for (const OutputRef& in : node->inputs()) stack.push_back(in.node);
    for (const Node* c : node->control_inputs()) stack.push_back(c);
  }
  std::vector<bool> dead(n);
  bool changed = false;
  for (int id = 0; id < n; ++id) {
    dead[id] = !live[id];
    changed |= dead[id];
  }
  if (changed) RETURN_IF_ERROR(g.Compact(dead));
  return changed;
}

}  // namespace graphd::compiler::passes
