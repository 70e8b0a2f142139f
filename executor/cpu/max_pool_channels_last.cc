#include "executor/cpu/max_pool_channels_last.h"

#include <algorithm>
#include <initializer_list>
#include <limits>

#include "executor/cpu/team.h"

namespace graphd::executor::cpu {
namespace {

// Below this many output values one thread does it all: the fork costs more.
constexpr int64_t kParallelValues = 16384;

// The first and one-past-last window taps of output index `o` that land inside [0, in)
// (tap t reads o * stride - pad + t * dilation); begin >= end when none does.
struct Taps {
  int64_t begin, end;
};
inline Taps TapsOf(int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t dilation, int64_t in) {
  const int64_t start = o * stride - pad;
  const int64_t begin = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  const int64_t end = start > in - 1 ? 0 : std::min(k, (in - 1 - start) / dilation + 1);
  return {begin, end};
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
    const Taps th = TapsOf(orow, g.sh, g.ph, g.kh, g.dh, g.h);
    const float* image = x + b * g.h * g.w * c;
    float* out = y + r * g.ow * c;
    for (int64_t q = 0; q < g.ow; ++q, out += c) {
      const Taps tw = TapsOf(q, g.sw, g.pw, g.kw, g.dw, g.w);
      const int64_t ih0 = orow * g.sh - g.ph, iw0 = q * g.sw - g.pw;
      std::fill(out, out + c, std::numeric_limits<float>::lowest());
      if (tw.begin >= tw.end) continue;
      for (int64_t i = th.begin; i < th.end; ++i) {
        // The window's first input cell in this row (taps before tw.begin are padding).
        const float* first = image + ((ih0 + i * g.dh) * g.w + iw0 + tw.begin * g.dw) * c;
        for (int64_t j = 0; j < tw.end - tw.begin; ++j) MaxInto(out, first + j * g.dw * c, c);
      }
    }
  }
}

}  // namespace

bool MaxPoolFits(const MaxPool2d& g) {
  for (int64_t v : {g.n, g.h, g.w, g.c, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw}) {
    if (v <= 0) return false;
  }
  return g.ph >= 0 && g.pw >= 0;
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
