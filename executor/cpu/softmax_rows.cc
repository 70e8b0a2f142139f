#include "executor/cpu/softmax_rows.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "executor/cpu/exp16.h"
#include "executor/cpu/fast_math.h"
#include "executor/cpu/row_chunks.h"

namespace graphd::executor::cpu {
namespace {

// Below this many values one thread does all rows: the fork costs more (an exp per
// value: the team pays earlier than for layer normalisation's 32768).
constexpr int64_t kParallelValues = 8192;

// exp(x - m) below this (ln FLT_MIN) is 0: the exact value is a denormal, which
// TensorFlow's CPU kernels (flushing denormals) give as 0 too, and making one costs a
// microcode assist (~100 cycles) per value: an attention mask's -1e4 or -inf added to
// most of a row's logits would take that on every masked value.
constexpr float kExpLow = -87.3365f;

// The exp is taken of the clamped value: vectorised, the select computes both sides.
// NaN: std::max keeps its first operand, and Exp's NaN comes out.
inline float ExpOrZero(float d) { return d < kExpLow ? 0.f : fast_math::Exp(std::max(d, kExpLow)); }

// exp(v - m) for 16 values, 0 below kExpLow. max and the compare let a NaN through
// (max returns its second operand when one is NaN; NLT_UQ holds for NaN).
__attribute__((target("avx512f"))) inline __m512 ExpOrZero16(__m512 v, __m512 m) {
  const __m512 low = _mm512_set1_ps(kExpLow);
  const __m512 d = _mm512_sub_ps(v, m);
  return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(d, low, _CMP_NLT_UQ), Exp16(_mm512_max_ps(low, d)));
}

// Rows [r0, r1) on AVX-512 (exp16.h's exp; about 1.6x the auto-vectorised loops
// below on ViT-B's [12, 197, 197] attention weights).
__attribute__((target("avx512f"))) void RowsAvx512(const SoftmaxRows& s, int64_t r0, int64_t r1) {
  const int64_t n = s.inner, full = n / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - full)) - 1);
  for (int64_t r = r0; r < r1; ++r) {
    const float* x = s.x + r * n;
    float* y = s.y + r * n;
    // The maximum skips NaN (max(v, m) is m when v is NaN); the NaN's own exp makes
    // the sum, and so the row, NaN.
    __m512 mv = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    for (int64_t i = 0; i < full; i += 16) mv = _mm512_max_ps(_mm512_loadu_ps(x + i), mv);
    if (tail != 0) mv = _mm512_mask_max_ps(mv, tail, _mm512_maskz_loadu_ps(tail, x + full), mv);
    const __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(mv));
    __m512 sv = _mm512_setzero_ps();
    for (int64_t i = 0; i < full; i += 16) {
      const __m512 e = ExpOrZero16(_mm512_loadu_ps(x + i), m);
      if (!s.log) _mm512_storeu_ps(y + i, e);
      sv = _mm512_add_ps(sv, e);
    }
    if (tail != 0) {
      const __m512 e = _mm512_maskz_mov_ps(tail, ExpOrZero16(_mm512_maskz_loadu_ps(tail, x + full), m));
      if (!s.log) _mm512_mask_storeu_ps(y + full, tail, e);
      sv = _mm512_add_ps(sv, e);
    }
    const float sum = _mm512_reduce_add_ps(sv);
    if (!s.log) {
      const __m512 inv = _mm512_set1_ps(1.f / sum);  // as in Rows
      for (int64_t i = 0; i < full; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), inv));
      if (tail != 0) {
        _mm512_mask_storeu_ps(y + full, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, y + full), inv));
      }
    } else {
      const __m512 ls = _mm512_set1_ps(std::log(sum));
      for (int64_t i = 0; i < full; i += 16) {
        _mm512_storeu_ps(y + i, _mm512_sub_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), m), ls));
      }
      if (tail != 0) {
        const __m512 v = _mm512_maskz_loadu_ps(tail, x + full);
        _mm512_mask_storeu_ps(y + full, tail, _mm512_sub_ps(_mm512_sub_ps(v, m), ls));
      }
    }
  }
}

// Rows [r0, r1) elsewhere. One copy per instruction set; the loops vectorise (omp simd
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
        const float e = ExpOrZero(x[i] - m);
        y[i] = e;
        sum += e;
      }
      const float inv = 1.f / sum;  // as ONNX Runtime's and oneDNN's: within an ulp of e / sum
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] * inv;
    } else {
#pragma omp simd reduction(+ : sum)
      for (int64_t i = 0; i < n; ++i) sum += ExpOrZero(x[i] - m);
      const float ls = std::log(sum);
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) - ls;
    }
  }
}

bool HostHasAvx512() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
  }();
  return has;
}

}  // namespace

void RunSoftmaxRows(const SoftmaxRows& s, bool allow_avx512) {
  if (s.inner <= 0) return;
  const bool avx512 = allow_avx512 && HostHasAvx512();
  ForRowChunks(s.rows, s.inner, kParallelValues, [&s, avx512](int64_t r0, int64_t r1) {
    if (avx512) {
      RowsAvx512(s, r0, r1);
    } else {
      Rows(s, r0, r1);
    }
  });
}

}  // namespace graphd::executor::cpu
