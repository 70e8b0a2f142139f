#include "executor/cpu/max_pool_channels_last.h"

#include <algorithm>
#include <limits>

#include "executor/cpu/team.h"

namespace graphd::executor::cpu {
namespace {

// Below this many output values one thread does it all: the fork costs more.
constexpr int64_t kParallelValues = 16384;

// The first and one-past-last window taps of output index `o` that land inside [0, in).
struct Taps {
  int64_t begin, end;
};
inline Taps TapsOf(int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t in) {
  const int64_t start = o * stride - pad;
  return {std::max<int64_t>(0, -start), std::min(k, in - start)};
}

// acc[i] = v[i] where v[i] > acc[i] (a NaN never is), over c channels (inlined into
// Rows' clones).
__attribute__((always_inline)) inline void MaxInto(float* __restrict acc, const float* __restrict v, int64_t c) {
  for (int64_t i = 0; i < c; ++i) acc[i] = v[i] > acc[i] ? v[i] : acc[i];
}

// Output rows [r0, r1) of all images (row r is image r / oh, row r % oh).
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void Rows(const float* x, const MaxPool2d& g, float* y, int64_t r0, int64_t r1) {
  const int64_t c = g.c;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / g.oh, orow = r % g.oh;
    const Taps th = TapsOf(orow, g.sh, g.ph, g.kh, g.h);
    const float* image = x + b * g.h * g.w * c;
    float* out = y + r * g.ow * c;
    for (int64_t q = 0; q < g.ow; ++q, out += c) {
      const Taps tw = TapsOf(q, g.sw, g.pw, g.kw, g.w);
      const int64_t ih0 = orow * g.sh - g.ph, iw0 = q * g.sw - g.pw;
      std::fill(out, out + c, std::numeric_limits<float>::lowest());
      for (int64_t i = th.begin; i < th.end; ++i) {
        const float* row = image + ((ih0 + i) * g.w + iw0) * c;
        for (int64_t j = tw.begin; j < tw.end; ++j) MaxInto(out, row + j * c, c);
      }
    }
  }
}

// Whether every window of one dim holds an input cell.
bool DimFits(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p) {
  if (in <= 0 || out <= 0 || k <= 0 || s <= 0 || p < 0) return false;
  return p <= k - 1 && (out - 1) * s - p <= in - 1;
}

}  // namespace

bool MaxPoolFits(const MaxPool2d& g) {
  return g.n > 0 && g.c > 0 && DimFits(g.h, g.oh, g.kh, g.sh, g.ph) && DimFits(g.w, g.ow, g.kw, g.sw, g.pw);
}

void MaxPoolChannelsLast(const float* x, const MaxPool2d& g, float* y) {
  const int64_t rows = g.n * g.oh;
  const int threads = TeamThreads();
  if (threads <= 1 || rows < 2 || rows * g.ow * g.c < kParallelValues) {
    Rows(x, g, y, 0, rows);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) Rows(x, g, y, rows * t / threads, rows * (t + 1) / threads);
}

}  // namespace graphd::executor::cpu
