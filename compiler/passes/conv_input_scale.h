// Conv input scale: a per-channel scale of a convolution's input moves into its filter.
//
// Mul(x, s) read only by a channels-last ConvND (conv_layout.h) with a constant filter,
// one group and no padding, where x is [N, H, W, C] and s (not a Const: constant folding
// has run, so the filter would be rescaled on every call) holds one value per channel for all N
// images ([1, 1, 1, C]: a squeeze-excitation's gate in EfficientNet and MobileNetV3 at
// batch 1; at larger batches each image has a gate of its own), becomes the ConvND of x
// with the filter Mul(filter, Reshape(s, [C, 1, 1])): conv(x * s, w) = conv(x, w * s)
// since each tap multiplies x[.., c] by w[o, c, ..]. The filter is no longer constant
// (the kernel reorders it on each call, after the Mul over it), so this is done only
// where the input has kMinInputPerFilter times the filter's values or more. Measured
// on EfficientNet-B0 (bench/README.md): its blocks at 56x56x144 (ratio 130) gain 78 us,
// at 28x28x240 (20) 9 us, at 14x14x480 (2.5) lose 67 us.
// Values are those of the unfused graph up to rounding: each product x * s * w is
// rounded after x * s there, after w * s here (and at float32's ends one order may
// overflow or underflow where the other does not). No padding: a padded tap would
// read 0 * (w * s), NaN for an infinite s, where the unfused conv reads 0 * w.
// CPU sessions only (the pipeline's cpu_fusions); runs after conv_layout, before
// elementwise_fusion.
#ifndef GRAPHD_COMPILER_PASSES_CONV_INPUT_SCALE_H_
#define GRAPHD_COMPILER_PASSES_CONV_INPUT_SCALE_H_

#include <cstdint>

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class ConvInputScale : public Pass {
 public:
  // enabled false: the pass changes nothing (sessions off the CPU).
  explicit ConvInputScale(bool enabled = true) : enabled_(enabled) {}
  // The input's elements (N * H * W * C) must be at least this many times the filter's.
  static constexpr int64_t kMinInputPerFilter = 16;
  static constexpr absl::string_view kName = "conv_input_scale";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;

 private:
  bool enabled_;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_CONV_INPUT_SCALE_H_
