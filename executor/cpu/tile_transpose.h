// Transposes that move no run of elements together: the innermost output axis is not
// the innermost input axis, nor any axis next to it (attention's keys, [seq, heads,
// dim] -> [heads, dim, seq]). A oneDNN reorder takes those one element at a time
// (ViT-B/16's [197, 12, 64] keys: 44 us hot, 123-146 us in the model); these loops
// move 8x8 tiles through registers (AVX2 shuffles; plain loops without AVX2), tiles
// spread over the OpenMP team. Bit-exact copies: any 4-byte dtype.
#ifndef GRAPHD_EXECUTOR_CPU_TILE_TRANSPOSE_H_
#define GRAPHD_EXECUTOR_CPU_TILE_TRANSPOSE_H_

#include <optional>

#include "core/cancellation.h"
#include "core/status.h"
#include "core/tensor.h"
#include "executor/cpu/strided_copy.h"

namespace graphd::executor::cpu {

// Copies `box` (strided_copy.h; offsets 0) from `src` to `dst`, both 4-byte dtypes,
// when, with size-1 axes dropped and contiguous axes merged, one axis has source
// stride 1 and another destination stride 1, each of at least 8 elements (the other
// axes, any strides, are looped over): then the copy's status (Cancelled when `token`,
// polled as it goes, says so; it may be null). nullopt (nothing written) for any other
// box.
std::optional<Status> CopyTransposedTiles(const Tensor& src, Tensor& dst, const Box& box,
                                          const CancellationToken* token);

// For tests: the same without AVX2 even where the host has it.
std::optional<Status> CopyTransposedTilesPortable(const Tensor& src, Tensor& dst, const Box& box,
                                                  const CancellationToken* token);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_TILE_TRANSPOSE_H_
