#include "server/constant_evaluator.h"

#include "executor/runtime/executor.h"
#include "executor/runtime/plan.h"

namespace graphd::server {

StatusOr<std::vector<Tensor>> ExecutorConstantEvaluator::Evaluate(const Function& fn) const {
  if (fn.num_args() != 0) return errors::InvalidArgument("a constant function takes no arguments");
  ASSIGN_OR_RETURN(auto plan, executor::Plan::Build(SpecForFunction(fn), device_));
  return executor::Execute(*plan, {}, executor::RunContext{});
}

}  // namespace graphd::server
