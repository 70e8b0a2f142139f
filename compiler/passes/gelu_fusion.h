// GELU fusion: the float32 composition exporters write for the exact (erf) GELU,
//   y = x * 0.5 * (1 + Erf(x / sqrt(2)))
// in any of its usual arrangements (torch's ONNX export below opset 20: Mul(Mul(x,
// Add(Erf(Div(x, 1.4142135)), 1)), 0.5); Keras: Mul(Mul(0.5, x), Add(1, Erf(...))),
// the division also written as Mul(x, 0.70710678)), becomes one Gelu(x) node
// (approximate = false). The CPU runs it as oneDNN's gelu_erf, or, after a MatMul,
// as that MatMul's post-op (matmul_fusion.h), instead of five elementwise steps over
// the tensor; the GPU has a Gelu kernel too. Every intermediate value must have no use
// outside the pattern, the constants must be scalars within 1e-6 of 0.5, 1 and sqrt(2)
// (or 1/sqrt(2)), and the result must have x's type (no broadcasting). The values
// differ from the unfused graph's by float rounding of erf.
#ifndef GRAPHD_COMPILER_PASSES_GELU_FUSION_H_
#define GRAPHD_COMPILER_PASSES_GELU_FUSION_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class GeluFusion : public Pass {
 public:
  static constexpr absl::string_view kName = "gelu_fusion";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_GELU_FUSION_H_
