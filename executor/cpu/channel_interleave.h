// Transposes that move a short axis (2 to 8 elements) of 32-bit values to or from the
// innermost position: an image's channels, NCHW <-> NHWC, as the conv_layout pass puts
// at a CNN's input and output ([N, C, H*W] <-> [N, H*W, C]). A oneDNN reorder takes
// such a short axis element by element (a [1, 3, 224, 224] image: ~27 us hot, 65 us in
// a model); these loops compile to whole-register shuffles (~8 us on two threads).
// Bit-exact copies: any 32-bit dtype.
#ifndef GRAPHD_EXECUTOR_CPU_CHANNEL_INTERLEAVE_H_
#define GRAPHD_EXECUTOR_CPU_CHANNEL_INTERLEAVE_H_

#include "core/tensor.h"
#include "executor/cpu/strided_copy.h"

namespace graphd::executor::cpu {

// Copies `box` (strided_copy.h; offsets 0) from `src` to `dst`, both 4-byte dtypes, when
// its dimensions, with size-1 axes dropped and axes contiguous in both tensors merged,
// are [B,] R, C with C in [2, 8] taken from stride R in src (interleave) or [B,] C, R
// with C in [2, 8] stored at stride R in dst (deinterleave), the batch outermost in
// both. True when done; false (nothing written) for any other box.
bool CopyChannelInterleave(const Tensor& src, Tensor& dst, const Box& box);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_CHANNEL_INTERLEAVE_H_
