// MatMul fusion, for float32 MatMuls:
//  - a bias: Add(matmul, c) or Add(c, matmul) where c has shape [n] or [1, n] (n the
//    matmul's known column count) and the Add is the matmul's only use, becomes the
//    MatMul's third input;
//  - then an activation that is the only use of the result: Relu, or a clip written as
//    Maximum(x, lo) [then Minimum(., hi)] with constant scalar bounds lo <= hi (how the
//    ONNX importer writes Clip / Relu6), becomes the attributes activation = "Relu" |
//    "Clip", clip_min, clip_max;
//  - a MatMul whose second input comes from a Const gets constant_weights = true, which
//    lets the CPU kernel keep that weight reordered into oneDNN's preferred layout.
// The CPU kernel runs bias and activation inside the oneDNN matmul. Values are those
// of the unfused graph up to float rounding of the bias addition (the activations are
// exact).
#ifndef GRAPHD_COMPILER_PASSES_MATMUL_FUSION_H_
#define GRAPHD_COMPILER_PASSES_MATMUL_FUSION_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class MatMulFusion : public Pass {
 public:
  static constexpr absl::string_view kName = "matmul_fusion";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_MATMUL_FUSION_H_
