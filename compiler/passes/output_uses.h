// Data uses of each node's output 0 in a function body, for the fusion passes: a
// producer may be folded into its consumer only when that consumer is its one use.
// A body result counts as two uses (it must stay as it is). Uses of other outputs
// are not counted. A snapshot: recount after changing the body.
#ifndef GRAPHD_COMPILER_PASSES_OUTPUT_USES_H_
#define GRAPHD_COMPILER_PASSES_OUTPUT_USES_H_

#include <vector>

#include "compiler/passes/function_body.h"

namespace graphd::compiler::passes {

class OutputUses {
 public:
  explicit OutputUses(const FunctionBody& body);

  // A node added after the snapshot (a pass's own replacement, which a later node may
  // now read) counts as used more than once: nothing folds it.
  int count(const Node& node) const { return Known(node) ? count_[node.id()] : kUnknownUses; }
  // The one node reading `node`'s output 0, when it has exactly one use.
  const Node* OnlyUser(const Node& node) const {
    return Known(node) && count_[node.id()] == 1 ? only_user_[node.id()] : nullptr;
  }

 private:
  static constexpr int kUnknownUses = 1 << 30;
  bool Known(const Node& node) const { return node.id() >= 0 && static_cast<size_t>(node.id()) < count_.size(); }

  std::vector<int> count_;              // by node id
  std::vector<const Node*> only_user_;  // the last user seen; meaningful when count == 1
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_OUTPUT_USES_H_
