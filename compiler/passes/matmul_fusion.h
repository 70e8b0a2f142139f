// MatMul fusion, for float32 MatMuls:
//  - a bias: Add(matmul, c) or Add(c, matmul) where c has shape [n] or [1, n] (n the
//    matmul's known column count) and the Add is the matmul's only use, becomes the
//    MatMul's third input. Also through a Reshape that keeps the last dimension n (the
//    ONNX importer's MatMul of a [b, s, k] input: Reshape to [b*s, k], MatMul, Reshape
//    back, then the bias Add on [b, s, n], with c of shape [n] or [1, ..., 1, n]): the
//    fused MatMul then feeds a Reshape to the Add's shape;
//  - then an activation that is the only use of the result (also, with no bias, behind
//    such a Reshape: the importer's MatMul whose zero bias algebraic simplification
//    removed): Relu, a clip written as
//    Maximum(x, lo) [then Minimum(., hi)] with constant scalar bounds lo <= hi (how the
//    ONNX importer writes Clip / Relu6), or (with `gelu`) an exact Gelu, becomes the
//    attributes activation = "Relu" | "Clip" | "Gelu", clip_min, clip_max;
//  - a MatMul whose second input comes from a Const gets constant_weights = true, which
//    lets the CPU kernel keep that weight reordered into oneDNN's preferred layout.
// The CPU kernel runs bias and activation inside the oneDNN matmul. Values are those
// of the unfused graph up to float rounding of the bias addition and of GELU's erf
// (Relu and Clip are exact).
#ifndef GRAPHD_COMPILER_PASSES_MATMUL_FUSION_H_
#define GRAPHD_COMPILER_PASSES_MATMUL_FUSION_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class MatMulFusion : public Pass {
 public:
  // `gelu`: also fuse Gelu (the CPU kernel takes it; the GPU's does not).
  explicit MatMulFusion(bool gelu = true) : gelu_(gelu) {}
  static constexpr absl::string_view kName = "matmul_fusion";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;

 private:
  bool gelu_;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_MATMUL_FUSION_H_
