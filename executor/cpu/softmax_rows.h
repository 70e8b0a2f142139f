// float32 softmax and log-softmax over contiguous rows (the last axis): per row the
// maximum m, e_i = exp(x_i - m) by fast_math.h's or exp16.h's exp (within ~1.5 ulp;
// 0 where x_i - m < ln FLT_MIN, whose exp is a denormal: TensorFlow's flushed value), then
// y_i = e_i * (1 / sum(e)), or y_i = (x_i - m) - log(sum(e)). Rows split over the
// OpenMP team when there are enough values to pay for the fork.
//
// Not oneDNN's softmax: it drops NaNs (a row with a NaN logit came out finite, where
// TensorFlow gives NaN), and its log-softmax was ~1000 ulp off for outputs near 0.
// Non-finite values as the formula gives them: a NaN in a row, or +inf, makes the
// row NaN; -inf gives 0 (log-softmax: -inf) unless the whole row is -inf (NaN).
#ifndef GRAPHD_EXECUTOR_CPU_SOFTMAX_ROWS_H_
#define GRAPHD_EXECUTOR_CPU_SOFTMAX_ROWS_H_

#include <cstdint>

namespace graphd::executor::cpu {

struct SoftmaxRows {
  const float* x = nullptr;  // [rows, inner]
  float* y = nullptr;        // [rows, inner]; not overlapping x
  int64_t rows = 0;
  int64_t inner = 0;
  bool log = false;  // log-softmax
};

// allow_avx512 false: the auto-vectorised loops even on an AVX-512 host (for tests).
void RunSoftmaxRows(const SoftmaxRows& s, bool allow_avx512 = true);

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_SOFTMAX_ROWS_H_
