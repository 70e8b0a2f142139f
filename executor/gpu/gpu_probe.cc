#include "executor/gpu/gpu_probe.h"

#include <cuda_runtime_api.h>

#include "absl/strings/str_cat.h"

namespace graphd::executor::gpu {

bool BuiltWithCuda() { return true; }

GpuProbe ProbeGpus() {
  GpuProbe probe;
  int count = 0;
  if (cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess) {
    if (err == cudaErrorInsufficientDriver) {
      probe.reason = "CUDA: no NVIDIA driver, or one older than the CUDA runtime graphd was built with";
    } else {
      probe.reason = absl::StrCat("CUDA: ", cudaGetErrorString(err));
    }
    return probe;
  }
  if (count == 0) {
    probe.reason = "CUDA: no device";
    return probe;
  }
  int driver = 0;
  cudaDriverGetVersion(&driver);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaError_t err = cudaGetDeviceProperties(&prop, i); err != cudaSuccess) {
      probe.reason = absl::StrCat("CUDA device ", i, ": ", cudaGetErrorString(err));
      continue;
    }
    probe.devices.push_back(DeviceInfo{
        .name = absl::StrCat("/device:GPU:", i),
        .device_type = "GPU",
        .memory_limit = static_cast<int64_t>(prop.totalGlobalMem),
        .description = absl::StrCat(prop.name, ", compute capability ", prop.major, ".", prop.minor, ", driver ",
                                    driver / 1000, ".", (driver % 1000) / 10)});
  }
  if (!probe.devices.empty()) probe.reason.clear();
  return probe;
}

}  // namespace graphd::executor::gpu
