// GpuKernelClaims where the GPU device is not built (no CUDA at build time).
#include "executor/gpu/gpu_support.h"

namespace graphd::executor::gpu {

bool GpuKernelClaims(const Node&) { return false; }

std::vector<std::string> GpuKernelOps() { return {}; }

}  // namespace graphd::executor::gpu
