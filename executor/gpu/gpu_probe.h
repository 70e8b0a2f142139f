// Which NVIDIA GPUs this process can use (CUDA runtime). The server lists them
// (ListDevices) and refuses device="gpu" sessions clearly when there are none.
// Built from gpu_probe.cc when CMake found CUDA (GRAPHD_WITH_CUDA=AUTO/ON), else from
// gpu_probe_none.cc, which finds none. No CUDA header is needed to include this.
// Thread-safe.
#ifndef GRAPHD_EXECUTOR_GPU_GPU_PROBE_H_
#define GRAPHD_EXECUTOR_GPU_GPU_PROBE_H_

#include <string>
#include <vector>

#include "executor/device.h"

namespace graphd::executor::gpu {

struct GpuProbe {
  // One per usable GPU: "/device:GPU:N", "GPU", total memory, "NVIDIA H100 80GB HBM3,
  // compute capability 9.0, driver 13.0".
  std::vector<DeviceInfo> devices;
  // Why there are none (no driver, no device, built without CUDA); empty otherwise.
  std::string reason;
};

// Asks the CUDA runtime once per call (cheap; call at start).
GpuProbe ProbeGpus();

// True when this binary was built with the GPU device (CUDA found at build time).
bool BuiltWithCuda();

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_GPU_PROBE_H_
