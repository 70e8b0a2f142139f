#include "executor/cpu/global_average.h"

#include <algorithm>
#include <vector>

#include "executor/cpu/team.h"

namespace graphd::executor::cpu {
namespace {

// Channels summed at once: 4 AVX-512 registers (8 AVX2 ones).
constexpr int64_t kBlock = 64;

// Below this many values one thread does it all: the fork costs more.
constexpr int64_t kSplitValues = int64_t{1} << 15;

// From this many rows they are split over the team; fewer (7x7 maps of 1000 channels
// and more) split the channels instead, which saves adding up partial sums.
constexpr int64_t kSplitRows = 64;

// sums[i] = the sum of x[r * stride + i] over r in [0, rows), for i in [0, W): a fixed
// width, held in registers, two rows at a time (two sets of sums: the adds of one row
// need not wait for the last). Inlined into SumColumns' clones.
template <int W>
__attribute__((always_inline)) inline void SumFixed(const float* __restrict x, int64_t rows, int64_t stride,
                                                    float* __restrict sums) {
  float a[W] = {}, b[W] = {};
  int64_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    const float* row = x + r * stride;
    for (int i = 0; i < W; ++i) a[i] += row[i];
    for (int i = 0; i < W; ++i) b[i] += row[stride + i];
  }
  if (r < rows) {
    for (int i = 0; i < W; ++i) a[i] += x[r * stride + i];
  }
  for (int i = 0; i < W; ++i) sums[i] = a[i] + b[i];
}

// The same for any w <= kBlock: blocks of 64, 32 and 16, then the last few.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void SumColumns(const float* __restrict x, int64_t rows, int64_t stride, int64_t w, float* __restrict sums) {
  int64_t i = 0;
  if (w - i >= 64) SumFixed<64>(x + i, rows, stride, sums + i), i += 64;
  if (w - i >= 32) SumFixed<32>(x + i, rows, stride, sums + i), i += 32;
  if (w - i >= 16) SumFixed<16>(x + i, rows, stride, sums + i), i += 16;
  if (i == w) return;
  std::fill(sums + i, sums + w, 0.f);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * stride;
    for (int64_t k = i; k < w; ++k) sums[k] += row[k];
  }
}

// sums[i] = the sum of x[r, i] over r in [r0, r1), for i in [0, c) (rows of c floats).
void SumRows(const float* x, int64_t r0, int64_t r1, int64_t c, float* sums) {
  for (int64_t b = 0; b < c; b += kBlock) SumColumns(x + r0 * c + b, r1 - r0, c, std::min(kBlock, c - b), sums + b);
}

}  // namespace

void GlobalAverage(const float* x, int64_t batch, int64_t rows, int64_t c, float* y) {
  const float n = static_cast<float>(rows);
  const int threads = TeamThreads();
  auto image = [&](int64_t b) {
    float* yb = y + b * c;
    SumRows(x + b * rows * c, 0, rows, c, yb);
    for (int64_t i = 0; i < c; ++i) yb[i] /= n;
  };
  if (threads < 2 || batch * rows * c < kSplitValues) {
    for (int64_t b = 0; b < batch; ++b) image(b);
    return;
  }
  if (batch >= threads) {  // whole images over the team
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t b = 0; b < batch; ++b) image(b);
    return;
  }
  if (rows < kSplitRows) {  // channel blocks over the team
    const int64_t blocks = (c + kBlock - 1) / kBlock;
    for (int64_t b = 0; b < batch; ++b) {
      const float* xb = x + b * rows * c;
      float* yb = y + b * c;
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int64_t k = 0; k < blocks; ++k) {
        const int64_t c0 = k * kBlock, w = std::min(kBlock, c - c0);
        SumColumns(xb + c0, rows, c, w, yb + c0);
        for (int64_t i = 0; i < w; ++i) yb[c0 + i] /= n;
      }
    }
    return;
  }
  // Each image's rows split over the team; thread t's partial sums in partial[t].
  const int64_t parts = std::min<int64_t>(threads, rows);
  std::vector<float> partial(static_cast<size_t>(parts * c));
  for (int64_t b = 0; b < batch; ++b) {
    const float* xb = x + b * rows * c;
#pragma omp parallel for num_threads(static_cast<int>(parts)) schedule(static)
    for (int64_t t = 0; t < parts; ++t) SumRows(xb, rows * t / parts, rows * (t + 1) / parts, c, &partial[t * c]);
    float* yb = y + b * c;
    for (int64_t i = 0; i < c; ++i) {
      float s = partial[i];
      for (int64_t t = 1; t < parts; ++t) s += partial[t * c + i];
      yb[i] = s / n;
    }
  }
}

}  // namespace graphd::executor::cpu
