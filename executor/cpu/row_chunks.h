// Ways to split a loop over the OpenMP team.
//
// ForRowChunks runs a loop over rows [0, rows) in pieces of whole rows: on the calling
// thread when its OpenMP team is one thread, there is one row, or rows * inner is
// below `min_values` (the fork would cost more than the second core saves); otherwise
// as a few chunks per team thread, handed out dynamically. `run(r0, r1)` does rows
// [r0, r1) and must be safe to call from several threads at once.
#ifndef GRAPHD_EXECUTOR_CPU_ROW_CHUNKS_H_
#define GRAPHD_EXECUTOR_CPU_ROW_CHUNKS_H_

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

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

// Runs run(i, thread) once for every chunk i in [0, chunks) on an OpenMP team of up to
// `threads` (thread: omp_get_thread_num()). Thread t first takes the chunks of its own
// contiguous segment (the t-th of `threads`) from the front, then the chunks other
// threads have not reached, from the back of their segments. So each thread works
// through a contiguous run of the data as under a static split, and a kernel after it
// that splits the same way (oneDNN's convolutions appear to) finds its rows in its own
// core's cache, while a thread that starts late (a helper waking for a call's first
// parallel region) leaves its segment to the others as under a dynamic schedule.
// MobileNetV3-small's stem before its depthwise convolution (chunks taken dynamically
// before): the depthwise node 44-51 -> 35-41 us in the model.
template <typename Run>
void ForChunksOwnedFirst(int64_t chunks, int threads, const Run& run) {
  if (chunks <= 0) return;
  if (threads <= 1 || chunks < 2 || chunks > int64_t{0x7fffffff}) {
    for (int64_t i = 0; i < chunks; ++i) run(i, 0);
    return;
  }
  const int64_t per = (chunks + threads - 1) / threads;
  std::vector<std::atomic<uint64_t>> segments(threads);  // (front, back) of each segment
  for (int t = 0; t < threads; ++t) {
    const uint64_t front = std::min<int64_t>(chunks, t * per), back = std::min<int64_t>(chunks, (t + 1) * per);
    segments[t].store(front | (back << 32), std::memory_order_relaxed);
  }
#pragma omp parallel num_threads(threads)
  {
    const int tid = omp_get_thread_num();
    for (int s = 0; s < threads; ++s) {  // own segment first, then the others'
      std::atomic<uint64_t>& segment = segments[(tid + s) % threads];
      uint64_t v = segment.load(std::memory_order_relaxed);
      while ((v & 0xffffffffu) < (v >> 32)) {
        const uint64_t front = v & 0xffffffffu, back = v >> 32;
        const uint64_t taken = s == 0 ? front : back - 1;
        const uint64_t next = s == 0 ? (front + 1) | (back << 32) : front | ((back - 1) << 32);
        if (segment.compare_exchange_weak(v, next, std::memory_order_relaxed)) {
          run(static_cast<int64_t>(taken), tid);
          v = segment.load(std::memory_order_relaxed);
        }
      }
    }
  }
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_ROW_CHUNKS_H_
