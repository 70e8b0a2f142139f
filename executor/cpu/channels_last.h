// Channels-last data ([N, d1..dk, C]; attribute channels_last of ConvND and the pools,
// core/ops/window_nd.h) for the CPU kernels: oneDNN descriptors that address it in
// oneDNN's logical channels-first order, and copies to and from channels-first for
// the kernels' loop fallbacks.
#ifndef GRAPHD_EXECUTOR_CPU_CHANNELS_LAST_H_
#define GRAPHD_EXECUTOR_CPU_CHANNELS_LAST_H_

#include "core/tensor.h"
#include "dnnl.hpp"

namespace graphd::executor::cpu {

// f32 descriptor of logical dims `cf_dims` ([N, C, d1..dk]) over dense memory laid out
// [N, d1..dk, C] (channels_last) or [N, C, d1..dk] (row-major).
dnnl::memory::desc WindowDataDesc(const dnnl::memory::dims& cf_dims, bool channels_last);

// A channels-first copy of channels-last `x` (rank >= 3).
StatusOr<Tensor> ChannelsFirstCopy(const Tensor& x);
// Copies channels-first `cf` into channels-last `cl` (dims ToChannelsLast of cf's).
Status CopyToChannelsLast(const Tensor& cf, Tensor& cl);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_CHANNELS_LAST_H_
