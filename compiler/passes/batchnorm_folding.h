// BatchNorm folding: an inference BatchNorm after a convolution or matmul becomes part
// of its weights. graphd has no BatchNorm op: the ONNX importer writes
// BatchNormalization as ((x - mean) * (scale / sqrt(var + eps))) + bias with [C, 1, ...]
// constants (compiler/import/onnx/ops_norm.cc), which constant_folding reduces to
// Sub / Mul / Add with Const operands. So the pass folds any chain of per-channel
// affine steps
//   Add(y, c), Add(c, y), Sub(y, c), Mul(y, c), Mul(c, y), Div(y, c)
// that starts at
//   - a float32 ConvND (no residual, activation or channels_last) whose filter is a
//     Const and whose bias, if any, is a Const: the channel is output dim 1;
//   - a float32 MatMul (no activation) whose b is a Const and whose bias, if any, is
//     a Const: the channel is output dim 1 (the column); a chain of Adds alone is
//     left to matmul_fusion;
// where each c is a float32 Const with finite values that varies at most along the
// channel (its other broadcast dims are 1), each step's result has the producer's
// shape, and every value but the last has that one use and is no result. With
// y' = a * y + k per channel, the pass writes one ConvND / MatMul with filter or b
// multiplied by a per output channel and bias a * bias + k, new Consts computed here
// (the original weights are reused when a is all ones). Consts left without uses go.
// Runs before conv_add_fusion, conv_activation_fusion, matmul_fusion and conv_layout so
// that the folded conv still fuses its Relu and residual Add. Values are those of the
// unfused graph up to float rounding.
#ifndef GRAPHD_COMPILER_PASSES_BATCHNORM_FOLDING_H_
#define GRAPHD_COMPILER_PASSES_BATCHNORM_FOLDING_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class BatchNormFolding : public Pass {
 public:
  static constexpr absl::string_view kName = "batchnorm_folding";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_BATCHNORM_FOLDING_H_
