// Small pointwise convolutions on the kernels' own loops instead of oneDNN.
//
// A 1x1 convolution with stride 1, no padding and one group over rows of channels
// (channels-last data, or any data whose spatial size is 1) is a matrix product:
// out[r, j] = act(bias[j] + residual[r, j] + sum over i of x[r, i] * w[j, i]). The
// squeeze-excitation layers of MobileNetV3 and EfficientNet are such products on a
// single row (16x8 .. 576x144 filters), and oneDNN spent 8-19 us on each, mostly its
// fixed cost per call (an OpenMP fork and its brgemm set-up) for a few thousand to
// 83k multiply-adds. Below kPointwiseMacs these run here: one row at a time against the
// filter as stored (gemv.h), on the calling thread, or for one row against a filter
// of kPointwiseSplitWeights values or more (bound by reading it: it comes from DRAM,
// 576x144 took 31 us on one thread against 17-19 us on oneDNN's two), in two column
// halves on the OpenMP team, awake after the convolutions before it.
#ifndef GRAPHD_EXECUTOR_CPU_CONV_POINTWISE_H_
#define GRAPHD_EXECUTOR_CPU_CONV_POINTWISE_H_

#include <cstdint>

#include "executor/cpu/fused_activation.h"

namespace graphd::executor::cpu {

inline constexpr int64_t kPointwiseMacs = int64_t{1} << 18;
inline constexpr int64_t kPointwiseSplitWeights = int64_t{1} << 14;

// Whether a pointwise product of `rows` rows, `c` input and `o` output channels is
// small enough for RunPointwiseConv.
inline bool SmallPointwise(int64_t rows, int64_t c, int64_t o) {
  return rows > 0 && c > 0 && o > 0 && rows <= kPointwiseMacs / c / o;
}

// out[r * o + j] = act(bias[j] + residual[r * o + j] + sum_i x[r * c + i] * w[j * c + i])
// for r < rows, j < o. `bias` and `residual` may be null; `residual` may be `out`.
void RunPointwiseConv(const float* x, const float* w, const float* bias, const float* residual,
                      const FusedActivation& act, int64_t rows, int64_t c, int64_t o, float* out);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_CONV_POINTWISE_H_
