// Constant weights reordered once into the layout a oneDNN primitive prefers (blocked
// formats chosen with format_tag::any), shared by every kernel in the process that
// packs the same constant buffer into the same layout: sessions that load the same
// model (their initializers share buffers) share one packed copy.
//
// An entry lives while some kernel holds it and is dropped once the last holder goes
// (or its source buffer is freed), so evicting functions and closing sessions return
// the memory. Only for buffers that never change after creation (Const values):
// callers must know their source is constant (compiler passes mark such inputs).
//
// Thread-safe.
#ifndef GRAPHD_EXECUTOR_CPU_PACKED_WEIGHTS_H_
#define GRAPHD_EXECUTOR_CPU_PACKED_WEIGHTS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/status.h"
#include "core/tensor.h"
#include "dnnl.hpp"

namespace graphd::executor::cpu {

// A packed copy: oneDNN memory in the target layout, owning its storage.
struct PackedWeights {
  dnnl::memory memory;
  dnnl::memory::desc desc;
  std::weak_ptr<Buffer> source;  // the constant it was made from
  dnnl::memory::desc plain;      // how the source was read (row-major, or transposed...)
  int64_t offset = 0;            // elements into the source where `plain` starts
};

// The packed copy of `source` (laid out as `plain`, starting `offset` elements into
// it: a block of columns of a matrix, say) in layout `target`, made on first request
// (one oneDNN reorder) and shared after by requests for the same source, plain layout,
// target layout and offset (one constant read as b by one MatMul and as b^T by another,
// tied weights, gets two copies). InvalidArgument when `source` has no buffer
// or `plain` at `offset` does not fit in it.
StatusOr<std::shared_ptr<const PackedWeights>> GetPackedWeights(const Tensor& source,
                                                                 const dnnl::memory::desc& plain,
                                                                 const dnnl::memory::desc& target,
                                                                 int64_t offset = 0);

// Number of live packed copies and their bytes (for tests and memory reports).
struct PackedWeightsStats {
  size_t entries = 0;
  size_t bytes = 0;
};
PackedWeightsStats GetPackedWeightsStats();

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_PACKED_WEIGHTS_H_
