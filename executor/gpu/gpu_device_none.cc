// GpuDevice where the GPU device is not built (no CUDA at build time).
#include "executor/gpu/gpu_device.h"

namespace graphd::executor::gpu {

StatusOr<std::unique_ptr<GpuDevice>> GpuDevice::Create(int ordinal, const Device& host) {
  (void)host;
  return errors::FailedPrecondition(
      absl::StrCat("GPU ", ordinal, ": this graphd was built without CUDA (GRAPHD_WITH_CUDA)"));
}

}  // namespace graphd::executor::gpu
