// What the pattern fusions (layernorm_fusion, gelu_fusion) share: which nodes a match
// may take over, the loop that offers each node to the pass's matcher, and the
// replacement of a matched group by one new node. One per pass run, over one body.
#ifndef GRAPHD_COMPILER_PASSES_FUSION_SCOPE_H_
#define GRAPHD_COMPILER_PASSES_FUSION_SCOPE_H_

#include <utility>
#include <vector>

#include "compiler/passes/function_body.h"
#include "compiler/passes/node_rewrite.h"
#include "compiler/passes/output_uses.h"
#include "compiler/passes/pass_util.h"

namespace graphd::compiler::passes {

class FusionScope {
 public:
  explicit FusionScope(FunctionBody& body)
      : body_(body), control_outputs_(ControlOutputs(*body.graph)), uses_(body), rewrite_(*body.graph) {}
  FusionScope(const FusionScope&) = delete;
  FusionScope& operator=(const FusionScope&) = delete;

  const OutputUses& uses() const { return uses_; }
  // `n` is neither taken by an earlier match nor pinned (pass_util.h IsPinned).
  bool Free(const Node& n) const { return !rewrite_.removed(n) && !IsPinned(n, control_outputs_); }
  // `n` is free and read by `user` alone.
  bool Only(const Node& n, const Node& user) const { return Free(n) && uses_.OnlyUser(n) == &user; }

  // Adds `spec` sorting at `last`'s place.
  StatusOr<const Node*> Add(NodeSpec spec, const Node& last) {
    ASSIGN_OR_RETURN(const Node* node, body_.graph->AddNode(std::move(spec)));
    rewrite_.Added(last);
    return node;
  }
  // `with` takes the uses of `last`'s output 0, and the `absorbed` nodes go.
  Status Replace(const Node& last, OutputRef with, const std::vector<const Node*>& absorbed) {
    RETURN_IF_ERROR(body_.ReplaceAllUses({&last, 0}, with).status());
    for (const Node* a : absorbed) rewrite_.Remove(*a);
    return absl::OkStatus();
  }

  // Offers each node present now, unless a match took it meanwhile, to `fuse(node)`
  // (StatusOr<bool>: whether it rewrote something through Add and Replace), then
  // applies the rewrite. Whether anything changed.
  template <typename Fuse>
  StatusOr<bool> ForEachNode(Fuse fuse) {
    Graph& g = *body_.graph;
    const int n = g.num_nodes();
    bool changed = false;
    for (int id = 0; id < n; ++id) {
      const Node& node = *g.node(id);
      if (rewrite_.removed(node)) continue;
      ASSIGN_OR_RETURN(const bool rewrote, fuse(node));
      changed = changed || rewrote;
    }
    if (changed) RETURN_IF_ERROR(rewrite_.Apply(g));
    return changed;
  }

 private:
  FunctionBody& body_;
  const std::vector<bool> control_outputs_;
  const OutputUses uses_;
  NodeRewrite rewrite_;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_FUSION_SCOPE_H_
