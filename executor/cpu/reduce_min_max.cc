#include "executor/cpu/reduce_min_max.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/nan_min_max.h"

namespace graphd::executor::cpu {
namespace {

// Values from which the work goes to the OpenMP team.
constexpr int64_t kParallelValues = 65536;

// acc[j] = op(acc[j], src[j]) for j < n: the loop vectorises (compare and select).
__attribute__((always_inline)) inline void Combine(bool max, float* __restrict acc, const float* __restrict src,
                                                   int64_t n) {
  if (max) {
    for (int64_t j = 0; j < n; ++j) acc[j] = MaxNaN(acc[j], src[j]);
  } else {
    for (int64_t j = 0; j < n; ++j) acc[j] = MinNaN(acc[j], src[j]);
  }
}

// Columns [j0, j1) (at most kMinMaxColumns) of one slice x [rows, inner] into out.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void Columns(bool max, const float* x, int64_t rows, int64_t inner, int64_t j0, int64_t j1, float* out) {
  float acc[kMinMaxColumns];
  const int64_t w = j1 - j0;
  std::copy(x + j0, x + j1, acc);
  for (int64_t r = 1; r < rows; ++r) Combine(max, acc, x + r * inner + j0, w);
  std::copy(acc, acc + w, out + j0);
}

// Run for an `inner` that divides kMinMaxColumns (a row's maximum: inner 1): lanes of
// a width known here, so that the accumulators stay in registers, folded in halves.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void RunDividing(bool max, const float* x, int64_t n, int64_t inner, float* out) {
  constexpr int64_t kLanes = kMinMaxColumns;
  float acc[kLanes];
  if (n < kLanes) {
    std::copy(x, x + inner, out);
    for (int64_t at = inner; at < n; at += inner) Combine(max, out, x + at, inner);
    return;
  }
  std::copy(x, x + kLanes, acc);
  int64_t at = kLanes;
  if (max) {
    for (; at + kLanes <= n; at += kLanes) {
      for (int64_t j = 0; j < kLanes; ++j) acc[j] = MaxNaN(acc[j], x[at + j]);
    }
  } else {
    for (; at + kLanes <= n; at += kLanes) {
      for (int64_t j = 0; j < kLanes; ++j) acc[j] = MinNaN(acc[j], x[at + j]);
    }
  }
  Combine(max, acc, x + at, n - at);  // the tail (at is a multiple of inner)
  // inner divides 64, a power of two: fold the lanes in halves.
  for (int64_t w = kLanes / 2; w >= inner; w /= 2) Combine(max, acc, acc + w, w);
  std::copy(acc, acc + inner, out);
}

// The `inner` columns (inner < kMinMaxColumns) of n contiguous values (n >= inner, a
// multiple of it) into out[inner]: lanes of a multiple of `inner` values, so that lane
// l holds column l % inner, folded at the end.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void Run(bool max, const float* x, int64_t n, int64_t inner, float* out) {
  if (kMinMaxColumns % inner == 0) {
    RunDividing(max, x, n, inner, out);
    return;
  }
  const int64_t lanes = inner * (kMinMaxColumns / inner);
  float acc[kMinMaxColumns];
  int64_t width = std::min(n, lanes);  // lanes in use
  std::copy(x, x + width, acc);
  int64_t at = width;
  for (; at + lanes <= n; at += lanes) Combine(max, acc, x + at, lanes);
  Combine(max, acc, x + at, n - at);  // a tail shorter than the lanes (at is a multiple of inner)
  std::copy(acc, acc + inner, out);
  for (int64_t l = inner; l < width; l += inner) Combine(max, out, acc + l, inner);
}

template <typename Task>
void ForTasks(int64_t tasks, bool team, int threads, const Task& task) {
  if (team && tasks > 1) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t t = 0; t < tasks; ++t) task(t);
    return;
  }
  for (int64_t t = 0; t < tasks; ++t) task(t);
}

}  // namespace

void MinMaxMiddle(bool max, const float* x, int64_t outer, int64_t rows, int64_t inner, float* out) {
  const int threads = TeamThreads();
  const bool team = threads > 1 && outer * rows * inner >= kParallelValues;
  const int64_t slab = rows * inner;
  if (inner >= kMinMaxColumns) {
    const int64_t blocks = (inner + kMinMaxColumns - 1) / kMinMaxColumns;
    ForTasks(outer * blocks, team, threads, [&](int64_t t) {
      const int64_t o = t / blocks, b = t % blocks;
      Columns(max, x + o * slab, rows, inner, b * kMinMaxColumns, std::min(inner, (b + 1) * kMinMaxColumns),
              out + o * inner);
    });
    return;
  }
  if (!team || outer >= threads) {
    ForTasks(outer, team, threads, [&](int64_t o) { Run(max, x + o * slab, slab, inner, out + o * inner); });
    return;
  }
  // Fewer slices than threads, and large: each in `threads` pieces of whole lanes.
  const int64_t lanes = inner * (kMinMaxColumns / inner);
  const int64_t pieces = threads;
  const int64_t piece = ((slab + pieces - 1) / pieces + lanes - 1) / lanes * lanes;
  std::vector<float> partial(outer * pieces * inner);
  ForTasks(outer * pieces, team, threads, [&](int64_t t) {
    const int64_t o = t / pieces, begin = (t % pieces) * piece, end = std::min(slab, begin + piece);
    if (begin < end) Run(max, x + o * slab + begin, end - begin, inner, partial.data() + t * inner);
  });
  for (int64_t o = 0; o < outer; ++o) {
    float* dst = out + o * inner;
    std::copy_n(partial.data() + o * pieces * inner, inner, dst);
    for (int64_t p = 1; p < pieces && p * piece < slab; ++p) {
      Combine(max, dst, partial.data() + (o * pieces + p) * inner, inner);
    }
  }
}

}  // namespace graphd::executor::cpu
