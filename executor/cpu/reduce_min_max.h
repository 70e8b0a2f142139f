// float32 Max and Min over one block of consecutive axes, on graphd's loops: x viewed as
// [outer, rows, inner] (the axes before the block, the block, the axes after it)
// reduced to [outer, inner], a NaN anywhere in a slice giving NaN (nan_min_max.h), as
// TensorFlow's reductions do. oneDNN 2.6's max and min reductions drop NaNs (a row of
// 1024 with one NaN gives the max of the rest) and have only a reference
// implementation for some of these shapes, so Max and Min never go to oneDNN.
//
// Columns (inner >= kMinMaxColumns) are reduced a block of them at a time over the rows;
// narrower slices as one run of rows * inner values, in lanes of a multiple of
// `inner` values (each lane then holds one column), folded at the end. Large inputs
// split over the OpenMP team (by outer index and column block, or, for few slices, by
// pieces of a slice whose partial results are folded).
#ifndef GRAPHD_EXECUTOR_CPU_REDUCE_MIN_MAX_H_
#define GRAPHD_EXECUTOR_CPU_REDUCE_MIN_MAX_H_

#include <cstdint>

namespace graphd::executor::cpu {

inline constexpr int64_t kMinMaxColumns = 64;

// out[o, j] = max (or min) over r of x[o, r, j]; rows >= 1, outer and inner >= 1.
void MinMaxMiddle(bool max, const float* x, int64_t outer, int64_t rows, int64_t inner, float* out);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_REDUCE_MIN_MAX_H_
