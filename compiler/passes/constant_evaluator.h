// What constant folding needs from a runtime: run a small function with no
// arguments and return its results. The compiler cannot include the executor, so
// the server supplies the implementation (server/constant_evaluator.h).
#ifndef GRAPHD_COMPILER_PASSES_CONSTANT_EVALUATOR_H_
#define GRAPHD_COMPILER_PASSES_CONSTANT_EVALUATOR_H_

#include <vector>

#include "core/graph/function.h"

namespace graphd::compiler::passes {

class ConstantEvaluator {
 public:
  virtual ~ConstantEvaluator() = default;
  // Runs `fn`, a function without arguments whose nodes are stateless, and returns
  // its results in order as host tensors. Any error (no kernel, a kernel failing on
  // these values) just means the values are not folded. Must be thread-safe.
  virtual StatusOr<std::vector<Tensor>> Evaluate(const Function& fn) const = 0;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_CONSTANT_EVALUATOR_H_
