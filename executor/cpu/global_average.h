// Global average pooling over channels-last float32 data ([batch, rows, channels], the
// spatial dims flattened into rows): the squeeze of a squeeze-and-excite block
// (EfficientNet, MobileNetV3). One pass over the data, 64 channels at a time summed in
// registers. From 32768 values the OpenMP team shares the work: whole images when the
// batch has at least one per thread; otherwise, per image, each thread takes a
// contiguous run of rows and the partial sums are added at the end (under 64 rows, the
// threads take blocks of channels instead). Splitting the channels of many rows had both cores
// stream all of the data (adjacent-line prefetch brings in the other half's lines):
// `kernels_bench --benchmark_filter=BM_GlobalAverage` [1, 112, 112, 32] 34-37 -> 20-24
// us, [1, 56, 56, 144] 20-24 -> 15-17. oneDNN's pooling took 7-12 us for
// MobileNetV3's [1, 14, 14, 96..576] inputs, mostly its fixed cost per call.
#ifndef GRAPHD_EXECUTOR_CPU_GLOBAL_AVERAGE_H_
#define GRAPHD_EXECUTOR_CPU_GLOBAL_AVERAGE_H_

#include <cstdint>

namespace graphd::executor::cpu {

// y[b, i] = the mean of x[b, r, i] over r in [0, rows), for i in [0, c). rows > 0; x
// and y do not overlap.
void GlobalAverage(const float* x, int64_t batch, int64_t rows, int64_t c, float* y);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_GLOBAL_AVERAGE_H_
