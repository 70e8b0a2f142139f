// 2-D max pooling over channels-last float32 data ([batch, h, w, channels]), the
// layout CNN chains run in (ResNet's stem pool, VGG's pools) and TensorFlow's MaxPool
// (NHWC): per output cell, the maximum of its window's cells inside the input,
// vectorised along the channels, output rows spread over the OpenMP team.
//
// Values as TensorFlow's own CPU MaxPool kernel computes them (maxpooling_op.cc: each
// output starts at float's lowest and takes Eigen's cwiseMax, std::max's rule, of each
// input cell): a NaN never wins, so a window's NaNs are dropped (one of only NaNs, or
// only -inf, gives float's lowest); of equal values (-0 and +0) the first stays. Unlike
// Maximum and Max (nan_min_max.h), whose TensorFlow kernels ask Eigen to propagate
// NaN. oneDNN's max pooling, which ran these before (and which TensorFlow's oneDNN
// builds run), kept or dropped a NaN depending on where in the window it sat (maxps
// returns its second operand when either is NaN).
#ifndef GRAPHD_EXECUTOR_CPU_MAX_POOL_CHANNELS_LAST_H_
#define GRAPHD_EXECUTOR_CPU_MAX_POOL_CHANNELS_LAST_H_

#include <cstdint>

namespace graphd::executor::cpu {

// Sizes of one pool: input [n, h, w, c], output [n, oh, ow, c], window kh x kw with
// dilations dh, dw, strides sh, sw, padding ph, pw at the start (the end's is implied
// by oh and ow: windows reaching past the input read only its cells).
struct MaxPool2d {
  int64_t n = 0, h = 0, w = 0, c = 0;
  int64_t oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// Whether MaxPoolChannelsLast can run `g`: every size, stride and dilation positive,
// the pads not negative. A window with no input cell gives float's lowest.
bool MaxPoolFits(const MaxPool2d& g);

// y = the pool of x (sizes as `g`, which must fit; x and y do not overlap).
void MaxPoolChannelsLast(const float* x, const MaxPool2d& g, float* y);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_MAX_POOL_CHANNELS_LAST_H_
