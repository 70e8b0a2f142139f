// Constant folding's evaluator for the server: runs the small stateless functions
// the folding pass builds with the executor, on a host device.
#ifndef GRAPHD_SERVER_CONSTANT_EVALUATOR_H_
#define GRAPHD_SERVER_CONSTANT_EVALUATOR_H_

#include "compiler/passes/constant_evaluator.h"
#include "executor/device.h"

namespace graphd::server {

class ExecutorConstantEvaluator : public compiler::passes::ConstantEvaluator {
 public:
  // `device` (whose tensors are host tensors: the CPU device) must outlive this.
  explicit ExecutorConstantEvaluator(const executor::Device& device) : device_(device) {}

  // Plans and runs `fn` once, without variables, cancellation or output sink (the
  // folding pass never hands it stateful nodes). Thread-safe.
  StatusOr<std::vector<Tensor>> Evaluate(const Function& fn) const override;

 private:
  const executor::Device& device_;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_CONSTANT_EVALUATOR_H_
