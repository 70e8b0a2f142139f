// Conv + activation fusion: a float32 ConvND whose only use is Relu, or a clip
// written as Maximum(conv, lo) [then Minimum(., hi)] with constant scalar bounds
// lo <= hi (how the ONNX importer writes Clip / Relu6), becomes one ConvND carrying
// the activation as attributes (activation = "Relu" | "Clip", clip_min, clip_max),
// which the CPU kernel applies as a oneDNN post-op inside the convolution. The
// values are exactly those of the unfused graph (both activations are exact).
// With `hard_swish` (the CPU's kernel; the GPU's refuses it), a conv whose two uses
// are Mul(conv, HardSigmoid(conv)) (either operand order) with HardSigmoid's alpha
// 1/6 and beta 0.5 and no other use, MobileNetV3's hard-swish as opset 13 writes it,
// becomes a ConvND with activation = "HardSwish" (oneDNN's, x * relu6(x + 3) / 6:
// equal up to float rounding).
#ifndef GRAPHD_COMPILER_PASSES_CONV_ACTIVATION_FUSION_H_
#define GRAPHD_COMPILER_PASSES_CONV_ACTIVATION_FUSION_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class ConvActivationFusion : public Pass {
 public:
  explicit ConvActivationFusion(bool hard_swish = true) : hard_swish_(hard_swish) {}
  static constexpr absl::string_view kName = "conv_activation_fusion";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;

 private:
  bool hard_swish_;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_CONV_ACTIVATION_FUSION_H_
