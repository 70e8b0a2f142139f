#include "executor/cpu/softmax_rows.h"

#include <cmath>
#include <limits>

#include "executor/cpu/fast_math.h"
#include "executor/cpu/row_chunks.h"

namespace graphd::executor::cpu {
namespace {

// Below this many values one thread does all rows: the fork costs more (an exp per
// value: the team pays earlier than for layer normalisation's 32768).
constexpr int64_t kParallelValues = 8192;

// Rows [r0, r1). One copy per instruction set; the loops vectorise (omp simd
// reductions reassociate the sums; the file is built without trapping math, as
// fast_math.h asks).
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void Rows(const SoftmaxRows& s, int64_t r0, int64_t r1) {
  const int64_t n = s.inner;
  for (int64_t r = r0; r < r1; ++r) {
    const float* __restrict x = s.x + r * n;
    float* __restrict y = s.y + r * n;
    // The maximum skips NaN; the NaN's own exp makes the sum, and so the row, NaN.
    float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
    float sum = 0.f;
    if (!s.log) {
#pragma omp simd reduction(+ : sum)
      for (int64_t i = 0; i < n; ++i) {
        const float e = fast_math::Exp(x[i] - m);
        y[i] = e;
        sum += e;
      }
      const float inv = 1.f / sum;  // as ONNX Runtime's and oneDNN's: within an ulp of e / sum
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] * inv;
    } else {
#pragma omp simd reduction(+ : sum)
      for (int64_t i = 0; i < n; ++i) sum += fast_math::Exp(x[i] - m);
      const float ls = std::log(sum);
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - ls;
    }
  }
}

}  // namespace

void RunSoftmaxRows(const SoftmaxRows& s) {
  if (s.inner <= 0) return;
  ForRowChunks(s.rows, s.inner, kParallelValues, [&s](int64_t r0, int64_t r1) { Rows(s, r0, r1); });
}

}  // namespace graphd::executor::cpu
