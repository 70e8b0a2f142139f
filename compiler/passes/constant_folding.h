// Constant folding: a node whose data inputs are all Const nodes is evaluated once,
// at trace time, and its outputs replaced by Const nodes (named `<node>/folded`,
// carrying the node's source range, placed where the node was). The folded node is
// deleted; constants it no longer needs are left to dead-code elimination.
//
// Not folded: pinned nodes (see IsPinned: stateful ops, If/While, Arg, Placeholder,
// control edges), Const itself, nodes without outputs or whose outputs nobody uses,
// outputs whose inferred shape is not fully known (so a fold never changes a type),
// outputs larger than `max_output_bytes` (a Fill or Tile of a huge shape stays a
// node), and nodes the evaluator fails on (the error then happens at run time, at
// the user's line, as without folding).
#ifndef GRAPHD_COMPILER_PASSES_CONSTANT_FOLDING_H_
#define GRAPHD_COMPILER_PASSES_CONSTANT_FOLDING_H_

#include <cstdint>

#include "compiler/passes/constant_evaluator.h"
#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class ConstantFolding : public Pass {
 public:
  static constexpr absl::string_view kName = "constant_folding";
  static constexpr int64_t kDefaultMaxOutputBytes = int64_t{1} << 20;

  // `evaluator` must outlive the pass.
  explicit ConstantFolding(const ConstantEvaluator& evaluator,
                           int64_t max_output_bytes = kDefaultMaxOutputBytes)
      : evaluator_(evaluator), max_output_bytes_(max_output_bytes) {}

  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;

 private:
  // Whether `node` may be folded, judged before evaluating it.
  bool Foldable(const Node& node, const std::vector<bool>& control_outputs) const;
  // The node's output values; an error when it cannot be evaluated.
  StatusOr<std::vector<Tensor>> Evaluate(const OpRegistry& ops, const Node& node) const;

  const ConstantEvaluator& evaluator_;
  const int64_t max_output_bytes_;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_CONSTANT_FOLDING_H_
