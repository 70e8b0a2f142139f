// The data-movement engine of the CPU's array kernels (Transpose, Slice, StridedSlice,
// Tile, ReverseV2, BroadcastTo, Pad, Concat, Split, ...): copies a box of elements
// between two tensors addressed by arbitrary (zero or negative) strides. Works for every
// dtype, strings included. Polls a cancellation token as it goes.
#ifndef GRAPHD_EXECUTOR_CPU_STRIDED_COPY_H_
#define GRAPHD_EXECUTOR_CPU_STRIDED_COPY_H_

#include <vector>

#include "core/cancellation.h"
#include "core/tensor.h"

namespace graphd::executor::cpu {

// For every index i of `shape` (row-major):
//   dst[dst_offset + sum_d i[d] * dst_strides[d]] = src[src_offset + sum_d i[d] * src_strides[d]]
// Offsets and strides count elements. The caller guarantees every address is in bounds.
struct Box {
  std::vector<int64_t> shape;
  std::vector<int64_t> src_strides, dst_strides;
  int64_t src_offset = 0, dst_offset = 0;
};

// Row-major strides (elements) of `dims`.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

// Drops `box`'s size-1 dimensions and merges neighbours that are contiguous in both
// tensors, so most copies become a few long runs (a single element stays as shape [1]).
// Returns false, leaving `box` as it was, when the box is empty.
bool SimplifyBox(Box& box);

// Copies `box` from `src` to `dst` (same dtype). `token` may be null.
Status CopyBox(const Tensor& src, Tensor& dst, Box box, const CancellationToken* token);

// Copies all of `src` into `dst` (same element count and dtype), element i to i.
Status CopyAll(const Tensor& src, Tensor& dst);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_STRIDED_COPY_H_
