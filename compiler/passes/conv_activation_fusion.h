// Conv + activation fusion: a float32 ConvND whose only use is Relu, or a clip
// written as Maximum(conv, lo) [then Minimum(., hi)] with constant scalar bounds
// lo <= hi (how the ONNX importer writes Clip / Relu6), becomes one ConvND carrying
// the activation as attributes (activation = "Relu" | "Clip", clip_min, clip_max),
// which the CPU kernel applies as a oneDNN post-op inside the convolution. The
// values are exactly those of the unfused graph (both activations are exact).
// With `gated` (the CPU's kernel; the GPU's refuses them), a conv whose two uses are
// Mul(conv, gate(conv)) (either operand order), the gate having no other use, becomes
// a ConvND with the gated activation as a oneDNN post-op (equal up to float rounding):
//   gate HardSigmoid with alpha 1/6, beta 0.5 (MobileNetV3's hard-swish as opset 13
//   writes it): activation = "HardSwish", x * relu6(x + 3) / 6;
//   gate Sigmoid (EfficientNet's SiLU): activation = "Swish", x * sigmoid(x).
#ifndef GRAPHD_COMPILER_PASSES_CONV_ACTIVATION_FUSION_H_
#define GRAPHD_COMPILER_PASSES_CONV_ACTIVATION_FUSION_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class ConvActivationFusion : public Pass {
 public:
  explicit ConvActivationFusion(bool gated = true) : gated_(gated) {}
  static constexpr absl::string_view kName = "conv_activation_fusion";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;

 private:
  bool gated_;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_CONV_ACTIVATION_FUSION_H_
