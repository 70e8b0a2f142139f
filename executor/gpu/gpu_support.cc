#include "executor/gpu/gpu_support.h"

#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {

bool GpuKernelClaims(const Node& node) {
  static const GpuKernelTable* const table = [] {
    auto* t = new GpuKernelTable();
    RegisterGpuKernels(*t, nullptr);  // registration only: no runtime, no GPU
    return t;
  }();
  return GpuSupports(*table, node);
}

}  // namespace graphd::executor::gpu
