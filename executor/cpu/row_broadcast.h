// float32 Add, Sub, Mul and Div where one operand is a matrix [rows, cols] and the other
// one row [cols] repeated down it, once the shapes' dimensions are merged
// (CollapseBroadcast): a per-channel scale or bias on a channels-last map, such as a
// squeeze-excitation's x * scale ([1, H, W, C] * [1, 1, 1, C]). oneDNN's binary
// primitive takes such a row in short pieces: EfficientNet-B0's [1, 112, 112, 32]
// scaling ran at 0.35 ns per element there, about 3x a plain loop over the rows.
// Also the flat cases: two operands of the same shape, or one of them a single value.
// oneDNN's binary primitive cost 7 us for a [64, 256] + [64, 256] (a transformer's
// residual Add; its fixed cost per call is most of that), a plain loop about 1.
// Rows are split across the OpenMP team from kOneThreadElements (dnnl_util.h) on.
// The values are those of the elementwise op (IEEE, no reassociation).
#ifndef GRAPHD_EXECUTOR_CPU_ROW_BROADCAST_H_
#define GRAPHD_EXECUTOR_CPU_ROW_BROADCAST_H_

#include "core/tensor.h"
#include "executor/cpu/elementwise.h"

namespace graphd::executor::cpu {

// out = a op b when a, b and out are float32, out has the broadcast shape, and the
// operands are a matrix and a repeated row of it (either way round): true when done,
// false (nothing written) for any other case.
bool RowBroadcastF32(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out);

// out = a op b when a, b and out are float32, out has the broadcast shape, and the
// operands have out's shape or one element each: true when done, false (nothing
// written) for any other case.
bool FlatBinaryF32(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_ROW_BROADCAST_H_
