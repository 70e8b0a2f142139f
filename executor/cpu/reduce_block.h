// float32 reductions over one block of consecutive axes, on graphd's loops: x viewed as
// [outer, rows, inner] (the axes before the block, the block, the axes after it)
// reduced to [outer, inner]. Large inputs split over the OpenMP team.
//
// SumMiddle: sums and means with kept axes after the block (inner > 1), in double per
// column. oneDNN 2.6 has only its reference reduction for these (`kernels_bench
// BM_MeanAxes/0`, [1, 56, 56, 256] over H and W: 6.3 ms there, 70 us here).
//
// MinMaxMiddle: maxima and minima, a NaN anywhere in a slice giving NaN
// (nan_min_max.h), as TensorFlow's reductions do. oneDNN 2.6's max and min reductions
// drop NaNs (a row of 1024 with one NaN gives the max of the rest) and have only a
// reference implementation for some of these shapes, so Max and Min never go to oneDNN.
// Wide slices (inner >= kBlockColumns) are reduced a block of columns at a time over
// the rows; narrower ones as one run of rows * inner values, in lanes of a multiple of
// `inner` values (each lane then holds one column), folded at the end; few large
// slices are split into pieces whose partial results are folded.
#ifndef GRAPHD_EXECUTOR_CPU_REDUCE_BLOCK_H_
#define GRAPHD_EXECUTOR_CPU_REDUCE_BLOCK_H_

#include <cstdint>

namespace graphd::executor::cpu {

// Columns per task (and the lanes of a narrow slice).
inline constexpr int64_t kBlockColumns = 64;

// out[o, j] = scale * sum over r of x[o, r, j]; rows, outer and inner >= 1.
void SumMiddle(const float* x, int64_t outer, int64_t rows, int64_t inner, double scale, float* out);

// out[o, j] = max (or min) over r of x[o, r, j]; rows, outer and inner >= 1.
void MinMaxMiddle(bool max, const float* x, int64_t outer, int64_t rows, int64_t inner, float* out);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_REDUCE_BLOCK_H_
