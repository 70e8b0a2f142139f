// Spare tensor buffers that one executing plan (a PlanRunner) hands back to its
// kernels' AllocateOutput, so a loop body's outputs reuse the buffers its previous
// iteration freed instead of allocating. Only buffers nobody else references are
// kept; string buffers and device memory never are (a device's allocator caches
// its own), nor buffers of kMinCachedBytes or more while the buffer cache is on
// (core/buffer_cache.h: they go back to it, where smaller sizes can reuse them too;
// held here, the first sixteen waited for their own element count until the run
// ended). Not thread-safe: one per running plan.
#ifndef GRAPHD_EXECUTOR_RUNTIME_TENSOR_POOL_H_
#define GRAPHD_EXECUTOR_RUNTIME_TENSOR_POOL_H_

#include <vector>

#include "core/tensor.h"

namespace graphd::executor {

class TensorPool {
 public:
  // On a spare of `dtype` with `shape`'s element count, moves it (with `shape`) into
  // *out and returns true. Its contents are stale, like a fresh allocation's.
  bool Take(DType dtype, const Shape& shape, Tensor* out);
  // Keeps `t`'s buffer for a later Take if only `t` references it; else drops it.
  void Give(Tensor&& t);

 private:
  static constexpr size_t kMaxSpares = 16;
  std::vector<Tensor> spares_;
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_RUNTIME_TENSOR_POOL_H_
