#include "executor/cpu/gemv.h"

namespace graphd::executor::cpu {
namespace {

// B transposed: each output is a dot product of a with a contiguous row of b.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void DotRows(const float* __restrict a, const float* __restrict b, int64_t k, int64_t j0, int64_t j1,
             float* __restrict out) {
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4) {
    const float* b0 = b + j * k;
    const float* b1 = b0 + k;
    const float* b2 = b1 + k;
    const float* b3 = b2 + k;
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
    for (int64_t p = 0; p < k; ++p) {
      s0 += a[p] * b0[p];
      s1 += a[p] * b1[p];
      s2 += a[p] * b2[p];
      s3 += a[p] * b3[p];
    }
    out[j] = s0;
    out[j + 1] = s1;
    out[j + 2] = s2;
    out[j + 3] = s3;
  }
  for (; j < j1; ++j) {
    const float* row = b + j * k;
    float s = 0.f;
#pragma omp simd reduction(+ : s)
    for (int64_t p = 0; p < k; ++p) s += a[p] * row[p];
    out[j] = s;
  }
}

// B row-major: the output block accumulates a[p] times row p of b, four rows a pass.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void AxpyRows(const float* __restrict a, const float* __restrict b, int64_t k, int64_t n, int64_t j0, int64_t j1,
              float* __restrict out) {
  float* o = out + j0;
  const int64_t w = j1 - j0;
  for (int64_t j = 0; j < w; ++j) o[j] = 0.f;
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) {
    const float* b0 = b + p * n + j0;
    const float* b1 = b0 + n;
    const float* b2 = b1 + n;
    const float* b3 = b2 + n;
    const float a0 = a[p], a1 = a[p + 1], a2 = a[p + 2], a3 = a[p + 3];
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) o[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
  }
  for (; p < k; ++p) {
    const float* row = b + p * n + j0;
    const float ap = a[p];
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) o[j] += ap * row[j];
  }
}

}  // namespace

void GemvColumns(const float* a, const float* b, bool b_transposed, int64_t k, int64_t n, int64_t j0, int64_t j1,
                 float* out) {
  if (b_transposed) {
    DotRows(a, b, k, j0, j1, out);
  } else {
    // Blocks of columns that stay in L1 while the rows stream past.
    constexpr int64_t kBlock = 1024;
    for (int64_t c = j0; c < j1; c += kBlock) AxpyRows(a, b, k, n, c, c + kBlock < j1 ? c + kBlock : j1, out);
  }
}

}  // namespace graphd::executor::cpu
