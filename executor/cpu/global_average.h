// Global average pooling over channels-last float32 data ([batch, rows, channels], the
// spatial dims flattened into rows): the squeeze of a squeeze-and-excite block
// (EfficientNet, MobileNetV3). One pass over the data, blocks of 64, 32 and 16
// channels summed in registers two rows at a time (adding each row into the output in
// memory made a store-to-load chain per row). From 32768 values the OpenMP team shares
// the work: whole images when the batch has at least one per thread; otherwise, per
// image, each thread takes a contiguous run of rows and the partial sums are added at
// the end (under 64 rows, the threads take blocks of channels instead; splitting the
// channels of many rows had both cores stream all of the data). `kernels_bench
// --benchmark_filter=BM_GlobalAverage`, built alternately with the channel-halves loop
// before it: [1, 112, 112, 32] 35.6-35.8 -> 8.5-9.4 us, [1, 56, 56, 144] 20-22 -> 14-15.
// oneDNN's pooling took 7-12 us for MobileNetV3's [1, 14, 14, 96..576] inputs, mostly
// its fixed cost per call.
#ifndef GRAPHD_EXECUTOR_CPU_GLOBAL_AVERAGE_H_
#define GRAPHD_EXECUTOR_CPU_GLOBAL_AVERAGE_H_

#include <cstdint>

namespace graphd::executor::cpu {

// y[b, i] = the mean of x[b, r, i] over r in [0, rows), for i in [0, c). rows > 0; x
// and y do not overlap.
void GlobalAverage(const float* x, int64_t batch, int64_t rows, int64_t c, float* y);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_GLOBAL_AVERAGE_H_
