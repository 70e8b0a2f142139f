// Conv layout: runs chains of 2-D float32 convolutions channels-last. Each ConvND over
// rank-4 float32 data whose filter is a Const value becomes a ConvND with
// channels_last=true (data [N, H, W, C], which oneDNN's fast convolutions read and
// write directly) and constant_filter=true (the kernel packs the filter once into the
// layout oneDNN prefers; executor/cpu/packed_weights.h); its residual input, if any
// (conv_add_fusion.h), is read like an elementwise op's. The layout then spreads to
// the ops that consume converted values and do not care about it:
//   * elementwise ops (unary activations; Add, Sub, Mul, Div, Maximum, Minimum, Pow,
//     ClipByValue) whose inputs are converted values, one-element values, Consts of
//     rank <= 4 (rewritten, permuted, as new Consts) or other rank-4 values (read
//     through a Transpose into channels-last);
//   * ConcatV2 (axis remapped), read like elementwise ops' inputs;
//   * Pad of a converted value (paddings remapped);
//   * MaxPoolND / AvgPoolND without indices (channels_last=true);
//   * Sum, Mean, Max, Min, Prod with keep_dims and explicit axes (axes remapped); a
//     Mean over H and W of known size (a global average pool) becomes AvgPoolND with
//     that window (channels_last=true), which oneDNN runs far faster.
// A converted value read by anything else, or returned, goes through one Transpose
// back to [N, C, H, W] (shared by all such readers), so every other node sees exactly
// the values it saw before; results keep their types. Rank-4 inputs enter through a
// Transpose [0, 2, 3, 1] per value (or, channels_first_stems, not at all into a stem
// convolution). A model's own permutes are folded into these: a
// Transpose [0, 2, 3, 1] of a converted value reads the converted value itself, and a
// value that a Transpose [0, 3, 1, 2] made from an unconverted x enters as x (the
// permutes around ConvNeXt's channels-last blocks). The results are those of the unconverted graph up
// to the convolutions' float rounding (oneDNN sums in another order).
//
// Pinned nodes (pass_util.h) are neither converted nor converted through. Runs after
// conv_activation_fusion (fused activations travel with the ConvND attributes).
// Already channels-last ConvNDs are left alone, so a second run changes nothing.
#ifndef GRAPHD_COMPILER_PASSES_CONV_LAYOUT_H_
#define GRAPHD_COMPILER_PASSES_CONV_LAYOUT_H_

#include "compiler/passes/pass.h"

namespace graphd::compiler::passes {

class ConvLayout : public Pass {
 public:
  // channels_first_stems: a converted 2-D ConvND whose data input would enter through a
  // Transpose and that core/ops/window_nd.h's StemConvFits (the image into a CNN's
  // first convolution) reads it as it is, with input_channels_first=true (CPU
  // sessions: the GPU runs channels-last convolutions on the CPU anyway).
  explicit ConvLayout(bool channels_first_stems = false) : channels_first_stems_(channels_first_stems) {}
  static constexpr absl::string_view kName = "conv_layout";
  absl::string_view name() const override { return kName; }
  StatusOr<bool> Run(FunctionBody& body) const override;

 private:
  bool channels_first_stems_;
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_CONV_LAYOUT_H_
