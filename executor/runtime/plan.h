// An execution plan: built once per (graph, run signature), then executed many times,
// concurrently if asked. It places each node on a device (the one asked for, or its
// fallback for ops it cannot run), fixes the kernel order, creates every kernel, adds
// explicit copy steps where a value crosses memory spaces (feeds arrive and fetches
// leave in host memory), and assigns each value a slot, with the step after which the
// slot can be released.
// Immutable after Build; shares nothing mutable between executions.
#ifndef GRAPHD_EXECUTOR_RUNTIME_PLAN_H_
#define GRAPHD_EXECUTOR_RUNTIME_PLAN_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/execution_spec.h"
#include "executor/device.h"

namespace graphd::executor {

// Where a plan's nodes run: (node name, device name) per kernel step in plan order,
// and the number of copy steps. Bodies of If/While are planned separately (inside
// their kernels) and not listed.
struct PlacementSummary {
  std::vector<std::pair<std::string, std::string>> nodes;
  int copies = 0;
};

class Plan {
 public:
  struct Step {
    const Node* node;
    std::unique_ptr<OpKernel> kernel;
    std::vector<int> input_slots;   // kNoSlot for ref inputs
    std::vector<int> output_slots;  // kDiscardSlot for outputs nobody reads
    std::vector<int> release_slots; // slots last read by this step
    // Per input: read last here, and only once by this step, so that its kernel may
    // write its output over it (KernelContext::ForwardInput) when nothing else holds
    // the buffer. `forwards` when any is.
    std::vector<bool> forwardable;
    bool forwards = false;
    // The kernel's fixed output (OpKernel::ConstantOutput), bound without running it.
    const Tensor* constant = nullptr;
    // Where it runs; for a copy step, the non-host device on the other side.
    const Device* device = nullptr;
    // kNone for a node's kernel; otherwise a copy of `node`'s output `copy_output`.
    enum class Copy { kNone, kToDevice, kToHost } copy = Copy::kNone;
    int copy_output = 0;
  };
  static constexpr int kNoSlot = -1;

  // `spec`'s graph must outlive the plan. Fails (Unimplemented) when neither `device`
  // nor its fallback has a kernel for some node.
  static StatusOr<std::unique_ptr<const Plan>> Build(const ExecutionSpec& spec, const Device& device);

  const std::vector<Step>& steps() const { return steps_; }
  int num_slots() const { return num_slots_; }
  // Slot of each feed / fetch, in spec order.
  const std::vector<int>& feed_slots() const { return feed_slots_; }
  const std::vector<int>& fetch_slots() const { return fetch_slots_; }
  // Types the feeds must match (dtype exactly, shape compatibly).
  const std::vector<TensorType>& feed_types() const { return feed_types_; }
  const std::vector<const Node*>& feed_nodes() const { return feed_nodes_; }
  const Device& device() const { return *device_; }
  // Copy steps in the plan (0 when everything runs on one device).
  int num_copies() const { return num_copies_; }
  PlacementSummary Placement() const;
  // Slot index reserved for outputs nobody reads (always empty after a step).
  int discard_slot() const { return num_slots_ - 1; }

 private:
  std::vector<Step> steps_;
  int num_slots_ = 0;
  std::vector<int> feed_slots_;
  std::vector<int> fetch_slots_;
  std::vector<TensorType> feed_types_;
  std::vector<const Node*> feed_nodes_;
  const Device* device_ = nullptr;
  int num_copies_ = 0;
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_RUNTIME_PLAN_H_
