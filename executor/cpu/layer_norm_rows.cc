#include "executor/cpu/layer_norm_rows.h"

#include <algorithm>
#include <cmath>

#include "executor/cpu/row_chunks.h"

namespace graphd::executor::cpu {
namespace {

// Below this many values one thread does all rows: the fork costs more.
constexpr int64_t kParallelValues = 32768;

// Rows [r0, r1). One copy per instruction set; the loops vectorise (omp simd
// reductions reassociate the sums).
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void Rows(const LayerNormRows& ln, int64_t r0, int64_t r1) {
  const int64_t n = ln.inner;
  const float inv_n = 1.f / static_cast<float>(n);
  const float eps = static_cast<float>(ln.eps);
  const float* __restrict scale = ln.scale;
  const float* __restrict bias = ln.bias;
  for (int64_t r = r0; r < r1; ++r) {
    const float* __restrict x = ln.x + r * n;
    float* __restrict y = ln.y + r * n;
    float s = 0.f;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += x[i];
    const float m1 = s * inv_n;
    float sd = 0.f, sq = 0.f;
#pragma omp simd reduction(+ : sd, sq)
    for (int64_t i = 0; i < n; ++i) {
      const float d = x[i] - m1;
      sd += d;
      sq += d * d;
    }
    const float c = sd * inv_n;
    const float var = std::max(sq * inv_n - c * c, 0.f);
    const float k = 1.f / std::sqrt(var + eps);
    const float shift = m1 + c, cf = c;
    if (bias != nullptr) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) y[i] = ((x[i] - m1) - cf) * k * scale[i] + bias[i];
    } else {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) y[i] = ((x[i] - m1) - cf) * k * scale[i];
    }
    ln.mean[r] = shift;
    ln.inv_std[r] = k;
  }
}

}  // namespace

void RunLayerNormRows(const LayerNormRows& ln) {
  if (ln.inner <= 0) return;
  ForRowChunks(ln.rows, ln.inner, kParallelValues, [&ln](int64_t r0, int64_t r1) { Rows(ln, r0, r1); });
}

}  // namespace graphd::executor::cpu
