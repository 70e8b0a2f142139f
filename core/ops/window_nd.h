// Geometry of the window ops over 1 to 3 spatial dims (ConvND, ConvTransposeND,
// MaxPoolND, AvgPoolND: core/ops/window_nd_ops.cc). Data is channels-first as ONNX,
// [N, C, d1..dk], or with attribute channels_last=true (ConvND and the pools; set by
// compiler/passes/conv_layout.h) [N, d1..dk, C]. Shared by their inference functions
// and CPU kernels.
#ifndef GRAPHD_CORE_OPS_WINDOW_ND_H_
#define GRAPHD_CORE_OPS_WINDOW_ND_H_

#include <vector>

#include "core/attr_value.h"

namespace graphd::ops {

inline constexpr int kMaxWindowDims = 3;

// The spatial parameters of one window op; every list has `dims` entries.
struct WindowNd {
  int dims = 0;
  IntList kernel;          // pools: kernel_shape; convolutions: taken from the filter
  IntList strides, dilations;
  IntList pads_begin, pads_end;
  IntList output_padding;  // ConvTransposeND only
  bool ceil_mode = false;  // pools only
};

// Reads strides, dilations (default 1), pads (2 * dims entries, all begins then all
// ends as ONNX; default 0), output_padding (default 0) and, for pools
// (`pool`), kernel_shape (required) and ceil_mode. InvalidArgument (no node prefix)
// for a wrong count, a stride/dilation/kernel < 1, a negative pad, or 0 or more than 3
// spatial dims.
StatusOr<WindowNd> ParseWindowNd(const AttrMap& attrs, int dims, bool pool);

// Output size of spatial dim `i` of a convolution or pool over an input of size `in`
// with a window of `kernel` cells (ONNX: floor, or ceil with ceil_mode where a window
// that would start in the end padding is dropped, as PyTorch). InvalidArgument when
// the dilated window is larger than the padded input.
StatusOr<int64_t> WindowOutDim(const WindowNd& w, int i, int64_t in, int64_t kernel);

// Output size of spatial dim `i` of a transposed convolution:
// stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - pads.
// InvalidArgument when it is negative.
StatusOr<int64_t> TransposedOutDim(const WindowNd& w, int i, int64_t in, int64_t kernel);

// Dims reordered between the layouts: [N, d1..dk, C] -> [N, C, d1..dk] and back.
// Identity below rank 3.
std::vector<int64_t> ToChannelsFirst(std::vector<int64_t> dims);
std::vector<int64_t> ToChannelsLast(std::vector<int64_t> dims);

// A 2-D ConvND with channels_last and input_channels_first reads its data
// channels-first and writes channels-last: a network's first convolution, reading the
// image as the client sent it (compiler/passes/conv_layout.h). The CPU kernel runs it
// directly (executor/cpu/conv_stem.h) when StemConvFits: at most kStemMaxChannels
// input channels, one group, at most kStemMaxTaps filter taps per output (C * kh *
// kw: 27 for a 3x3 over RGB) and at most kStemMaxOutputs output channels; the pass
// asks for the layout only then. On 2 cores (AVX-512, Zen 4), MobileNetV3's 3x3 into 16
// channels plus the Transpose it saves went from 139-202 to 111-118 us per call
// (bench/README.md). 3x3 into 32 (MobileNetV2, EfficientNet) runs two vectors per
// pixel: EfficientNet-B0's stem and input Transpose 372-455 -> 295-322 us in the model
// (Sapphire Rapids, 2 vCPUs); ResNet's 7x7 into 64 was slower here than the Transpose
// and oneDNN.
inline constexpr int64_t kStemMaxChannels = 4;
inline constexpr int64_t kStemMaxTaps = 27;
inline constexpr int64_t kStemMaxOutputs = 32;
inline bool StemConvFits(int64_t channels, int64_t group, int64_t taps, int64_t outputs) {
  return channels >= 1 && channels <= kStemMaxChannels && group == 1 && taps >= 1 && taps <= kStemMaxTaps &&
         outputs >= 1 && outputs <= kStemMaxOutputs;
}

}  // namespace graphd::ops

#endif  // GRAPHD_CORE_OPS_WINDOW_ND_H_
