// What a GradientTape records in module-level (eager) code: a graph of its own,
// holding every op run while the tape records (its inputs linked to the ops that made
// them, found by their buffers), the bodies of @tf.function calls (traced once more
// into the graph: print output of that trace is dropped), and the values variables had
// when read (constants: later updates do not change them). tape.gradient
// differentiates this graph and runs the nodes the gradients need.
// Internal to the tracer.
#ifndef GRAPHD_COMPILER_TRACER_EAGER_TAPE_H_
#define GRAPHD_COMPILER_TRACER_EAGER_TAPE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/tracer/tracer.h"

namespace graphd::compiler::tracer {

class EagerRecording : public EagerTape {
 public:
  EagerRecording();
  GraphScope& scope() { return *scope_; }

  // The node standing for an eager tensor the tape recorded or watched.
  std::optional<OutputRef> Lookup(const TensorObj& t) const;
  // Watches an eager tensor: a node for it (a constant unless recorded already).
  StatusOr<OutputRef> Watch(const TensorObj& t);
  // The recorded reads of variable `var_name` (values at the time of the read).
  std::vector<OutputRef> Reads(const std::string& var_name) const;

  Status RecordOp(const std::string& op, const std::vector<OutputRef>& inputs, const AttrMap& attrs, bool stateful,
                  const std::vector<Tensor>& outputs) override;
  Status RecordCall(Interpreter& interp, Tracer& tracer, const Value& fn, CallArgs& args, const Value& result) override;

  // Runs the nodes `refs` need (data dependencies only) and returns their values.
  StatusOr<std::vector<Tensor>> Evaluate(EagerRunner& runner, const std::vector<OutputRef>& refs) const;

  // Records a computation another tape ran (its gradient, under this tape: nested
  // tapes): the nodes of `from`'s graph that `refs` need, copied into this graph, with
  // each of `from`'s constants that stands for a tensor this tape holds linked to it;
  // `values` (the computed refs) are then held as the copies' outputs.
  Status RecordFrom(const EagerRecording& from, const std::vector<OutputRef>& refs,
                    const std::vector<Tensor>& values);

 private:
  // The nodes of `scope_`'s graph that `refs` need (data dependencies), by id.
  std::vector<bool> Needed(const std::vector<OutputRef>& refs) const;
  // The node held for a tensor with `value`'s buffer, dtype and shape.
  std::optional<OutputRef> Find(const Tensor& value) const;
  StatusOr<OutputRef> Hold(const Tensor& value, OutputRef ref);
  StatusOr<OutputRef> Constant(const Tensor& value);

  std::unique_ptr<GraphScope> scope_;
  // Buffer address -> (tensor, node standing for it); the tensors keep the buffers
  // alive so no address is reused while the tape lives.
  std::map<const void*, std::pair<Tensor, OutputRef>> held_;
  std::map<std::string, std::vector<OutputRef>> reads_;
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_EAGER_TAPE_H_
