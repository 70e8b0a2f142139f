// float32 vector-matrix products for one row against a large constant matrix: the
// batch-1 fully connected layer (VGG's 25088x4096, 411 MB). Such a product reads each
// weight once and is bound by memory bandwidth, so oneDNN's packed (blocked) copy of
// the weights gains nothing over reading them in place, and that copy doubled the
// server's memory for large models. These loops read the plain layout directly, four
// weight streams at a time, vectorised for the host's instruction set.
//
// Summation order: per output, a vector of partial sums over k, reduced at the end,
// so results differ from a sequential sum by rounding only.
#ifndef GRAPHD_EXECUTOR_CPU_GEMV_H_
#define GRAPHD_EXECUTOR_CPU_GEMV_H_

#include <cstdint>

namespace graphd::executor::cpu {

// out[j] = sum over p of a[p] * B(p, j), for columns j in [j0, j1), where B is k x n:
// stored row-major as b[p * n + j] or, when `b_transposed`, as b[j * k + p]. `out`
// points at column 0 of the output row.
void GemvColumns(const float* a, const float* b, bool b_transposed, int64_t k, int64_t n, int64_t j0, int64_t j1,
                 float* out);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_GEMV_H_
