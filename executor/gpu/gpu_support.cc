#include "executor/gpu/gpu_support.h"

#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {

namespace {

const GpuKernelTable& Table() {
  static const GpuKernelTable* const table = [] {
    auto* t = new GpuKernelTable();
    RegisterGpuKernels(*t, nullptr);  // registration only: no runtime, no GPU
    return t;
  }();
  return *table;
}

}  // namespace

bool GpuKernelClaims(const Node& node) { return GpuSupports(Table(), node); }

std::vector<std::string> GpuKernelOps() { return Table().kernels.Ops("GPU"); }

}  // namespace graphd::executor::gpu
