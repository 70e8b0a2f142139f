// Runs a Plan: binds feeds, runs kernels in plan order, checks the cancellation token
// between kernels, and returns the fetched tensors.
#ifndef GRAPHD_EXECUTOR_RUNTIME_EXECUTOR_H_
#define GRAPHD_EXECUTOR_RUNTIME_EXECUTOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "executor/runtime/plan.h"
#include "executor/runtime/tensor_pool.h"

namespace graphd::executor {

// One step of a traced run (RunOptions.trace): the node, its op ("_CopyToDevice" /
// "_CopyToHost" for a copy step), the device it ran on, and when it started and how
// long it took, in nanoseconds of host wall time from the start of the run. On a device
// with its own memory (a GPU) each step is followed by a device synchronisation, so
// its time is the kernel's, not its launch's (and the traced run is slower).
struct StepTiming {
  std::string node, op, device;
  int64_t start_ns = 0, duration_ns = 0;
};
using RunTrace = std::vector<StepTiming>;

struct RunContext {
  // The session's variables; required when the plan reads or assigns variables.
  VariableStore* variables = nullptr;
  // nullptr: the run cannot be cancelled and has no deadline.
  const CancellationToken* cancellation = nullptr;
  // Where tf.print and runtime print write; nullptr discards.
  OutputSink* output = nullptr;
  // Non-null: each step of this plan is timed into it, in plan order (constants bound
  // without running are left out). If/While bodies are timed as their node; their
  // own steps are not listed.
  RunTrace* trace = nullptr;
};

// Validates each feed against the plan's feed types (InvalidArgument naming the feed),
// then executes. Errors from kernels name their node.
StatusOr<std::vector<Tensor>> Execute(const Plan& plan, std::vector<Tensor> feeds,
                                      const RunContext& ctx);

// Runs one plan repeatedly (a loop's cond or body) without per-run allocations:
// the slot and scratch vectors live as long as the runner, and buffers freed by one
// run (released values, the previous run's feeds) are reused by later outputs.
// One thread at a time; the plan must outlive it.
class PlanRunner {
 public:
  // `check_each_step`: check the cancellation token before every kernel (Execute does);
  // a loop that checks it once per iteration passes false, as reading the deadline's
  // clock several times per scalar iteration would dominate its cost.
  explicit PlanRunner(const Plan& plan, bool check_each_step = true);

  // Runs the plan in place: `values` holds the feeds on entry (validated as Execute
  // does) and the fetched tensors on return.
  Status Run(std::vector<Tensor>& values, const RunContext& ctx);
  // Hands back a tensor the caller is done with, for later runs to reuse.
  void Recycle(Tensor&& t) { pool_.Give(std::move(t)); }

 private:
  void ClearSlots();

  const Plan& plan_;
  std::vector<Tensor> slots_;
  std::vector<const Tensor*> inputs_;
  std::vector<Tensor*> forwardable_;  // the running step's (Plan::Step::forwardable)
  std::vector<Tensor> outputs_;
  bool check_each_step_;
  std::vector<bool> fetch_moves_;  // false where a later fetch reads the same slot
  TensorPool pool_;
};

// Checks one feed value against the type it feeds. `name` is used in messages.
Status ValidateFeed(absl::string_view name, const TensorType& type, const Tensor& value);

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_RUNTIME_EXECUTOR_H_
