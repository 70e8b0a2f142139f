// Elementwise fusion: a connected group of two or more float32 elementwise nodes
// (unary Neg, Abs, Square, Exp, Log, Sqrt, Rsqrt, Reciprocal, Tanh, Sigmoid, Relu;
// binary Add, Sub, Mul, Div, Maximum, Minimum) whose inner values are used only inside
// the group becomes one FusedElementwise node (core/ops/elementwise_program.h), which
// the CPU runs in one pass over the data instead of one pass per op.
//  - A binary node joins only when it does not broadcast: each operand is a scalar
//    (rank 0) or has the output's shape, and when both are not scalars that shape is
//    fully known or both are elementwise functions of one value (two unrelated [?, 4]
//    values could still broadcast at run time). With `channel_operands` (the CPU's
//    kernel; not the GPU's) one operand may instead reach the output's fully known
//    shape by a channel broadcast (ops::ChannelBroadcastOf: a batch norm's [C, 1, 1]
//    mean, scale and offset after a concat, a squeeze-excite scale); that operand is
//    always an input of the group, never a value inside it.
//  - Scalar float32 Consts become constants of the program; other values from outside
//    the group are its inputs (each once).
//  - Pinned nodes (pass_util.h), nodes of Consts only (constant folding's) and other
//    dtypes are left alone; groups have at most
//    kMaxInstructions nodes.
// Values are those of the unfused graph up to the float rounding of exp, log, tanh and
// sigmoid (the kernels differ by a few ulp). Runs last, after conv_layout (which
// spreads channels-last through the unfused elementwise ops).
#ifndef GRAPHD_COMPILER_PASSES_ELEMENTWISE_FUSION_H_
#define GRAPHD_COMPILER_PASSES_ELEMENTWISE_FUSION_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class ElementwiseFusion : public Pass {
 public:
  explicit ElementwiseFusion(bool channel_operands = true) : channel_operands_(channel_operands) {}
  static constexpr absl::string_view kName = "elementwise_fusion";
  static constexpr int kMaxInstructions = 32;
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;

 private:
  bool channel_operands_;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_ELEMENTWISE_FUSION_H_
