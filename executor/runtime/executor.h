// Runs a Plan: binds feeds, runs kernels in plan order, checks the cancellation token
// between kernels, and returns the fetched tensors.
#ifndef GRAPHD_EXECUTOR_RUNTIME_EXECUTOR_H_
#define GRAPHD_EXECUTOR_RUNTIME_EXECUTOR_H_

#include <vector>

#include "executor/runtime/plan.h"

namespace graphd::executor {

struct RunContext {
  // The session's variables; required when the plan reads or assigns variables.
  VariableStore* variables = nullptr;
  // nullptr: the run cannot be cancelled and has no deadline.
  const CancellationToken* cancellation = nullptr;
  // Where tf.print and runtime print write; nullptr discards.
  OutputSink* output = nullptr;
};

// Validates each feed against the plan's feed types (InvalidArgument naming the feed),
// then executes. Errors from kernels name their node.
StatusOr<std::vector<Tensor>> Execute(const Plan& plan, std::vector<Tensor> feeds,
                                      const RunContext& ctx);

// Checks one feed value against the type it feeds. `name` is used in messages.
Status ValidateFeed(absl::string_view name, const TensorType& type, const Tensor& value);

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_RUNTIME_EXECUTOR_H_
