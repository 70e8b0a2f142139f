#include "executor/cpu/reduce_block.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/nan_min_max.h"

namespace graphd::executor::cpu {
namespace {

// Values from which the work goes to the OpenMP team.
constexpr int64_t kParallelValues = 65536;

// out[j] = scale * sum over r of x[r, j] for columns [j0, j1) of one slice x [rows,
// inner], in double. The loop over j vectorises (one sum per column).
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void SumColumns(const float* x, int64_t rows, int64_t inner, int64_t j0, int64_t j1, double scale, float* out) {
  double acc[kBlockColumns] = {};
  const int64_t w = j1 - j0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * inner + j0;
    for (int64_t j = 0; j < w; ++j) acc[j] += static_cast<double>(row[j]);
  }
  for (int64_t j = 0; j < w; ++j) out[j0 + j] = static_cast<float>(acc[j] * scale);
}

// acc[j] = op(acc[j], src[j]) for j < n: the loop vectorises (compare and select).
__attribute__((always_inline)) inline void Combine(bool max, float* __restrict acc, const float* __restrict src,
                                                   int64_t n) {
  if (max) {
    for (int64_t j = 0; j < n; ++j) acc[j] = MaxNaN(acc[j], src[j]);
  } else {
    for (int64_t j = 0; j < n; ++j) acc[j] = MinNaN(acc[j], src[j]);
  }
}

// Columns [j0, j1) (at most kBlockColumns) of one slice x [rows, inner] into out.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void Columns(bool max, const float* x, int64_t rows, int64_t inner, int64_t j0, int64_t j1, float* out) {
  float acc[kBlockColumns];
  const int64_t w = j1 - j0;
  std::copy(x + j0, x + j1, acc);
  for (int64_t r = 1; r < rows; ++r) Combine(max, acc, x + r * inner + j0, w);
  std::copy(acc, acc + w, out + j0);
}

// Run for an `inner` that divides kBlockColumns (a row's maximum: inner 1): lanes of
// a width known here, so that the accumulators stay in registers, folded in halves.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void RunDividing(bool max, const float* x, int64_t n, int64_t inner, float* out) {
  constexpr int64_t kLanes = kBlockColumns;
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

// The `inner` columns (inner < kBlockColumns) of n contiguous values (n >= inner, a
// multiple of it) into out[inner]: lanes of a multiple of `inner` values, so that lane
// l holds column l % inner, folded at the end.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
void Run(bool max, const float* x, int64_t n, int64_t inner, float* out) {
  if (kBlockColumns % inner == 0) {
    RunDividing(max, x, n, inner, out);
    return;
  }
  const int64_t lanes = inner * (kBlockColumns / inner);
  float acc[kBlockColumns];
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

// `columns(slice, j0, j1, out_row)` for every block of columns of every slice.
template <typename Columns>
void ForColumnBlocks(int64_t outer, int64_t rows, int64_t inner, bool team, int threads, const Columns& columns) {
  const int64_t blocks = (inner + kBlockColumns - 1) / kBlockColumns;
  ForTasks(outer * blocks, team, threads, [&](int64_t t) {
    const int64_t o = t / blocks, b = t % blocks;
    columns(o * rows * inner, b * kBlockColumns, std::min(inner, (b + 1) * kBlockColumns), o * inner);
  });
}

bool UseTeam(int threads, int64_t values) { return threads > 1 && values >= kParallelValues; }

}  // namespace

void SumMiddle(const float* x, int64_t outer, int64_t rows, int64_t inner, double scale, float* out) {
  const int threads = TeamThreads();
  ForColumnBlocks(outer, rows, inner, UseTeam(threads, outer * rows * inner), threads,
                  [&](int64_t slice, int64_t j0, int64_t j1, int64_t out_row) {
                    SumColumns(x + slice, rows, inner, j0, j1, scale, out + out_row);
                  });
}

void MinMaxMiddle(bool max, const float* x, int64_t outer, int64_t rows, int64_t inner, float* out) {
  const int threads = TeamThreads();
  const bool team = UseTeam(threads, outer * rows * inner);
  const int64_t slab = rows * inner;
  if (inner >= kBlockColumns) {
    ForColumnBlocks(outer, rows, inner, team, threads, [&](int64_t slice, int64_t j0, int64_t j1, int64_t out_row) {
      Columns(max, x + slice, rows, inner, j0, j1, out + out_row);
    });
    return;
  }
  if (!team || outer >= threads) {
    ForTasks(outer, team, threads, [&](int64_t o) { Run(max, x + o * slab, slab, inner, out + o * inner); });
    return;
  }
  // Fewer slices than threads, and large: each in `threads` pieces of whole lanes.
  const int64_t lanes = inner * (kBlockColumns / inner);
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
