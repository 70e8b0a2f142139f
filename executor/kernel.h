// Kernels: the device code for one node. A kernel is created once per node when a
// plan is built (it may precompute and cache device primitives), then Compute runs on
// every execution, possibly from several runs at once: Compute must be thread-safe.
#ifndef GRAPHD_EXECUTOR_KERNEL_H_
#define GRAPHD_EXECUTOR_KERNEL_H_

#include <memory>
#include <span>

#include "core/cancellation.h"
#include "core/output_sink.h"
#include "core/graph/graph.h"
#include "core/tensor.h"
#include "core/variable_store.h"

namespace graphd::executor {

class TensorPool;

// What a kernel sees of one execution of its node.
class KernelContext {
 public:
  KernelContext(const Node& node, std::span<const Tensor* const> inputs,
                std::span<Tensor> outputs, VariableStore* variables,
                const CancellationToken* cancellation, OutputSink* output = nullptr)
      : node_(node), inputs_(inputs), outputs_(outputs), variables_(variables),
        cancellation_(cancellation), output_(output) {}

  const Node& node() const { return node_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // Input i; for a ref input (Assign's variable) an invalid Tensor.
  const Tensor& input(int i) const { return *inputs_[i]; }
  void set_output(int i, Tensor t) { outputs_[i] = std::move(t); }
  // Output i as set so far (invalid until set); for wrappers that post-process outputs.
  Tensor* output_slot(int i) const { return &outputs_[i]; }
  // Allocates output i with `shape` and the node's output dtype.
  StatusOr<Tensor*> AllocateOutput(int i, const Shape& shape);
  // Spare buffers AllocateOutput may reuse (the running plan's); nullptr: none.
  void set_pool(TensorPool* pool) { pool_ = pool; }
  // Output `o` taken over from input `i` (its tensor moved there, buffer and all;
  // input(i) is then invalid) when the run reads input i for the last time here, once,
  // and nothing else holds its host buffer; nullptr otherwise, and input(i) stays. For
  // kernels that can compute their output over an input: a convolution summing a
  // residual into its destination. The caller checks the shape it needs.
  Tensor* ForwardInput(int i, int o);
  // The running plan's slots of the inputs this step may forward (nullptr for the
  // others), by input index.
  void set_forwardable(std::span<Tensor* const> slots) { forwardable_ = slots; }
  VariableStore& variables() const { return *variables_; }
  // nullptr when the run has no variables.
  VariableStore* variable_store() const { return variables_; }
  const CancellationToken& cancellation() const { return *cancellation_; }
  // Where printing ops write; nullptr when the run discards printed text.
  OutputSink* output() const { return output_; }

  // InvalidArgument "node 'n' (Op): message", tagged with the node.
  Status Error(absl::string_view message) const;
  // `status` with the same code, its message prefixed "node 'n' (Op): ", tagged.
  Status Error(const Status& status) const;

 private:
  const Node& node_;
  std::span<const Tensor* const> inputs_;
  std::span<Tensor> outputs_;
  VariableStore* variables_;
  const CancellationToken* cancellation_;
  OutputSink* output_;
  TensorPool* pool_ = nullptr;
  std::span<Tensor* const> forwardable_;
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  virtual Status Compute(KernelContext& ctx) = 0;
  // For a kernel whose only output is always the same tensor (Const on the CPU): that
  // tensor, which the executor then binds without calling Compute. nullptr otherwise.
  virtual const Tensor* ConstantOutput() const { return nullptr; }
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_KERNEL_H_
