// ProbeGpus for builds without CUDA (GRAPHD_WITH_CUDA=OFF, or nvcc/cuDNN missing).
#include "executor/gpu/gpu_probe.h"

namespace graphd::executor::gpu {

bool BuiltWithCuda() { return false; }

GpuProbe ProbeGpus() { return GpuProbe{.reason = "built without CUDA (GRAPHD_WITH_CUDA)"}; }

}  // namespace graphd::executor::gpu
