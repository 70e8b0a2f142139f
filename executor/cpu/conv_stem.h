// A network's first convolution read straight from channels-first data.
//
// A CNN's stem convolves the client's [N, C, H, W] image (C = 3) into many channels,
// which the rest of the network reads channels-last. Before, the image went through a
// Transpose to [N, H, W, C] and then oneDNN's convolution, whose kernels for 3 input
// channels reach a third of the core's speed: MobileNetV3's 3 -> 16, 3x3, stride 2
// over 224x224 took 82-87 us there, after a 50-90 us Transpose of an image that
// arrived cold from the network. Here each output row is computed from the input rows
// its window covers (copied with their zero padding into a small buffer), eight output
// pixels at a time with up to sixteen output channels in one vector register each, or
// four with up to 32 in two, and written channels-last; rows are split across the
// OpenMP team.
//
// Summation order: bias, then the taps in filter order (channel, row, column), then
// the residual; the activation after (Swish by swish.h's loop over each output row
// while it is in L1, the values SwishInPlace gives after oneDNN's convolutions).
#ifndef GRAPHD_EXECUTOR_CPU_CONV_STEM_H_
#define GRAPHD_EXECUTOR_CPU_CONV_STEM_H_

#include <cstdint>

#include "executor/cpu/fused_activation.h"

namespace graphd::executor::cpu {

struct StemGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input [n, c, h, w]
  int64_t o = 0, oh = 0, ow = 0;       // output [n, oh, ow, o]
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;  // filter [o, c, kh, kw]
};

// out = act(conv(x, w) + bias + residual) for a geometry that ops::StemConvFits
// (core/ops/window_nd.h), with valid sizes (the output dims those of the window).
// `bias` and `residual` ([n, oh, ow, o]) may be null. Allocates a few kilobytes per
// thread and the filter repacked.
void RunStemConv(const float* x, const float* w, const float* bias, const float* residual, const FusedActivation& act,
                 const StemGeometry& g, float* out);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_CONV_STEM_H_
