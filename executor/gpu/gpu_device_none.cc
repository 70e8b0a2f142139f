// GpuDevice when graphd is built without CUDA: there is never a GPU.
#include "executor/gpu/gpu_device.h"

namespace graphd::executor::gpu {

StatusOr<std::unique_ptr<GpuDevice>> GpuDevice::Create(int ordinal, const Device& host) {
  (void)host;
  return errors::FailedPrecondition(
      absl::StrCat("GPU ", ordinal,
                   ": graphd was built without CUDA (GRAPHD_WITH_CUDA=OFF or no CUDA toolkit "
                   "at build time)"));
}

void ReleaseThreadState() {}

}  // namespace graphd::executor::gpu
