// Layer normalisation fusion: the float32 composition exporters write for a layer norm
// over the last axis (torch's ONNX export below opset 17, Keras-style source),
//   d = x - Mean(x, last axis, keep_dims)
//   y = d / Sqrt(Mean(Square(d), last axis, keep_dims) + eps)      [then * gamma + beta]
// with a constant scalar eps and, when present, constant gamma / beta of shape [C]
// (C the last dimension), becomes one LayerNormalization(x, gamma, [beta]) node (axis
// -1, epsilon eps), which the CPU runs as oneDNN's layer normalisation: one pass for
// the statistics and one for the output instead of nine elementwise and reduction
// kernels. Without gamma the scale is a constant of ones. Run after algebraic
// simplification (which writes Pow(d, 2) as Square) and before elementwise fusion.
// Every intermediate value must have no use outside the pattern. The values differ
// from the unfused graph's by float rounding (the statistics are summed in another
// order). LayerNormalization has no GPU kernel: the GPU pipeline leaves this pass out.
#ifndef GRAPHD_COMPILER_PASSES_LAYERNORM_FUSION_H_
#define GRAPHD_COMPILER_PASSES_LAYERNORM_FUSION_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class LayerNormFusion : public Pass {
 public:
  static constexpr absl::string_view kName = "layernorm_fusion";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_LAYERNORM_FUSION_H_
