// Conv + Add fusion: Add(conv, r), where conv is a float32 ConvND used only by this Add
// with no fused activation, and r has exactly the shape of conv's output and of the
// Add's result (all dims known), becomes one ConvND with residual=true reading r as
// its last input (core/ops/window_nd_ops.cc): the CPU kernel lets oneDNN sum r into
// the convolution's output (the sum post-op) instead of a separate pass over both
// tensors. Runs before conv_activation_fusion, so that a Relu after the Add (ResNet's
// blocks) fuses too. Values are those of the unfused graph: conv(x) + bias + r is
// summed in that order either way.
#ifndef GRAPHD_COMPILER_PASSES_CONV_ADD_FUSION_H_
#define GRAPHD_COMPILER_PASSES_CONV_ADD_FUSION_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class ConvAddFusion : public Pass {
 public:
  static constexpr absl::string_view kName = "conv_add_fusion";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_CONV_ADD_FUSION_H_
