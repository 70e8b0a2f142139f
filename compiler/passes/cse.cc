#include "compiler/passes/cse.h"

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "compiler/passes/pass_util.h"

namespace graphd::compiler::passes {
namespace {

size_t NodeHash(const Node& n) {
  return absl::HashOf(n.op_name(), n.device(), n.inputs(), AttrsHash(n.attrs()));
}

bool SameComputation(const Node& a, const Node& b) {
  return &a.op() == &b.op() && a.device() == b.device() && a.inputs() == b.inputs() &&
         AttrsEqual(a.attrs(), b.attrs());
}

}  // namespace

StatusOr<bool> CommonSubexpressionElimination::Run(FunctionBody& body) const {
  Graph& g = *body.graph;
  const int n = g.num_nodes();
  const std::vector<bool> control_outputs = ControlOutputs(g);
  // Representatives by hash. In id order, a node's inputs already point at their
  // representatives, so equal inputs mean equal computations.
  absl::flat_hash_map<size_t, std::vector<const Node*>> kept;
  std::vector<bool> merged(n, false);
  bool changed = false;
  for (int id = 0; id < n; ++id) {
    const Node& node = *g.node(id);
    if (node.num_outputs() == 0 || IsPinned(node, control_outputs)) continue;
    std::vector<const Node*>& candidates = kept[NodeHash(node)];
    const Node* same = nullptr;
    for (const Node* c : candidates) {
      if (SameComputation(*c, node)) {
        same = c;
        break;
      }
    }
    if (same == nullptr) {
      candidates.push_back(&node);
      continue;
    }
    for (int i = 0; i < node.num_outputs(); ++i) {
      RETURN_IF_ERROR(body.ReplaceAllUses({&node, i}, {same, i}).status());
    }
    merged[id] = true;
    changed = true;
  }
  if (changed) RETURN_IF_ERROR(g.Compact(merged));
  return changed;
}

}  // namespace graphd::compiler::passes
