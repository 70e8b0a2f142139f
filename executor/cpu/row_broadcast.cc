#include "executor/cpu/row_broadcast.h"


#include <algorithm>

#include "executor/cpu/broadcast.h"
#include "executor/cpu/dnnl_util.h"

namespace graphd::executor::cpu {
namespace {

// Rows per OpenMP work item.
constexpr int64_t kRowsPerItem = 64;

template <typename F>
__attribute__((always_inline)) inline void Rows(F f, const float* __restrict m, const float* __restrict row,
                                                float* __restrict out, int64_t r0, int64_t r1, int64_t cols) {
  for (int64_t r = r0; r < r1; ++r) {
    const float* x = m + r * cols;
    float* o = out + r * cols;
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) o[c] = f(x[c], row[c]);
  }
}

// Rows [r0, r1) of out = m op row, or row op m when `row_first`.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void RunRows(BinaryOp op, bool row_first, const float* m, const float* row, float* out, int64_t r0, int64_t r1,
             int64_t cols) {
  switch (op) {
    case BinaryOp::kAdd: return Rows([](float x, float y) { return x + y; }, m, row, out, r0, r1, cols);
    case BinaryOp::kMul: return Rows([](float x, float y) { return x * y; }, m, row, out, r0, r1, cols);
    case BinaryOp::kSub:
      if (row_first) return Rows([](float x, float y) { return y - x; }, m, row, out, r0, r1, cols);
      return Rows([](float x, float y) { return x - y; }, m, row, out, r0, r1, cols);
    case BinaryOp::kDiv:
      if (row_first) return Rows([](float x, float y) { return y / x; }, m, row, out, r0, r1, cols);
      return Rows([](float x, float y) { return x / y; }, m, row, out, r0, r1, cols);
    default: return;
  }
}

}  // namespace

bool RowBroadcastF32(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  if (op != BinaryOp::kAdd && op != BinaryOp::kSub && op != BinaryOp::kMul && op != BinaryOp::kDiv) return false;
  if (a.dtype() != DType::kFloat32 || b.dtype() != DType::kFloat32 || out.dtype() != DType::kFloat32) return false;
  const CollapsedBroadcast c = CollapseBroadcast(a.shape(), b.shape(), out.shape());
  if (c.dims.size() != 2) return false;
  const int64_t rows = c.dims[0], cols = c.dims[1];
  const bool a_matrix = c.sa[0] == cols && c.sa[1] == 1;
  const bool b_matrix = c.sb[0] == cols && c.sb[1] == 1;
  const bool a_row = c.sa[0] == 0 && c.sa[1] == 1;
  const bool b_row = c.sb[0] == 0 && c.sb[1] == 1;
  if (!(a_matrix && b_row) && !(a_row && b_matrix)) return false;
  const bool row_first = a_row;
  const float* m = row_first ? b.data<float>() : a.data<float>();
  const float* row = row_first ? a.data<float>() : b.data<float>();
  float* po = out.data<float>();
  const int threads = TeamThreads();
  if (rows * cols < kOneThreadElements || rows < 2 * kRowsPerItem || threads == 1) {
    RunRows(op, row_first, m, row, po, 0, rows, cols);
    return true;
  }
  const int64_t items = (rows + kRowsPerItem - 1) / kRowsPerItem;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < items; ++i) {
    RunRows(op, row_first, m, row, po, i * kRowsPerItem, std::min(rows, (i + 1) * kRowsPerItem), cols);
  }
  return true;
}

}  // namespace graphd::executor::cpu
