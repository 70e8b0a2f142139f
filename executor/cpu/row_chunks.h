// Runs a loop over rows [0, rows) in pieces of whole rows: on the calling thread when
// its OpenMP team is one thread, there is one row, or rows * inner is below
// `min_values` (the fork would cost more than the second core saves); otherwise as a
// few chunks per team thread, handed out dynamically. `run(r0, r1)` does rows
// [r0, r1) and must be safe to call from several threads at once.
#ifndef GRAPHD_EXECUTOR_CPU_ROW_CHUNKS_H_
#define GRAPHD_EXECUTOR_CPU_ROW_CHUNKS_H_

#include <algorithm>
#include <cstdint>

#include "executor/cpu/team.h"

namespace graphd::executor::cpu {

template <typename Run>
void ForRowChunks(int64_t rows, int64_t inner, int64_t min_values, const Run& run) {
  if (rows <= 0) return;
  const int threads = TeamThreads();
  if (threads <= 1 || rows < 2 || rows * inner < min_values) {
    run(int64_t{0}, rows);
    return;
  }
  const int64_t chunks = std::min<int64_t>(rows, int64_t{threads} * 4);
  const int64_t per = (rows + chunks - 1) / chunks;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t r0 = c * per;
    if (r0 < rows) run(r0, std::min(rows, r0 + per));
  }
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_ROW_CHUNKS_H_
