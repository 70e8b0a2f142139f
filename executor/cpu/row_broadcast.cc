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

// Elements per OpenMP work item in the flat cases.
constexpr int64_t kFlatPerItem = int64_t{1} << 14;

// How the flat cases read their operands.
enum class Flat { kBoth, kScalarB, kScalarA };

template <typename F>
__attribute__((always_inline)) inline void FlatLoop(F f, Flat kind, const float* __restrict a,
                                                    const float* __restrict b, float* __restrict out, int64_t i0,
                                                    int64_t i1) {
  if (kind == Flat::kBoth) {
#pragma omp simd
    for (int64_t i = i0; i < i1; ++i) out[i] = f(a[i], b[i]);
  } else if (kind == Flat::kScalarB) {
    const float y = b[0];
#pragma omp simd
    for (int64_t i = i0; i < i1; ++i) out[i] = f(a[i], y);
  } else {
    const float x = a[0];
#pragma omp simd
    for (int64_t i = i0; i < i1; ++i) out[i] = f(x, b[i]);
  }
}

// Elements [i0, i1) of out = a op b.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void RunFlat(BinaryOp op, Flat kind, const float* a, const float* b, float* out, int64_t i0, int64_t i1) {
  switch (op) {
    case BinaryOp::kAdd: return FlatLoop([](float x, float y) { return x + y; }, kind, a, b, out, i0, i1);
    case BinaryOp::kSub: return FlatLoop([](float x, float y) { return x - y; }, kind, a, b, out, i0, i1);
    case BinaryOp::kMul: return FlatLoop([](float x, float y) { return x * y; }, kind, a, b, out, i0, i1);
    case BinaryOp::kDiv: return FlatLoop([](float x, float y) { return x / y; }, kind, a, b, out, i0, i1);
    default: return;
  }
}

bool Arithmetic(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  return (op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul || op == BinaryOp::kDiv) &&
         a.dtype() == DType::kFloat32 && b.dtype() == DType::kFloat32 && out.dtype() == DType::kFloat32;
}

}  // namespace

bool FlatBinaryF32(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  if (!Arithmetic(op, a, b, out)) return false;
  const bool a_full = a.shape() == out.shape(), b_full = b.shape() == out.shape();
  Flat kind;
  if (a_full && b_full) {
    kind = Flat::kBoth;
  } else if (a_full && b.num_elements() == 1) {
    kind = Flat::kScalarB;
  } else if (b_full && a.num_elements() == 1) {
    kind = Flat::kScalarA;
  } else {
    return false;
  }
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  const int64_t n = out.num_elements();
  const int threads = TeamThreads();
  if (n < kOneThreadElements || threads == 1) {
    RunFlat(op, kind, pa, pb, po, 0, n);
    return true;
  }
  const int64_t items = (n + kFlatPerItem - 1) / kFlatPerItem;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < items; ++i) {
    RunFlat(op, kind, pa, pb, po, i * kFlatPerItem, std::min(n, (i + 1) * kFlatPerItem));
  }
  return true;
}

bool RowBroadcastF32(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  if (!Arithmetic(op, a, b, out)) return false;
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
