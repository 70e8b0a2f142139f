// The CUDA device (issue 6): device memory through the caching allocator, cuDNN/cuBLAS
// and CUDA kernels; ops it has no kernel for run on the host device it is given.
// No CUDA header is needed to include this. Thread-safe.
#ifndef GRAPHD_EXECUTOR_GPU_GPU_DEVICE_H_
#define GRAPHD_EXECUTOR_GPU_GPU_DEVICE_H_

#include <cstdint>
#include <memory>

#include "executor/device.h"

namespace graphd::executor::gpu {

struct GpuMemoryStats {
  int64_t bytes_in_use = 0;
  int64_t bytes_cached = 0;
  int64_t peak_bytes_in_use = 0;
};

class GpuDevice : public Device {
 public:
  // The device for GPU `ordinal`; ops it has no kernel for run on `host` (the CPU),
  // which must outlive it. FailedPrecondition when built without CUDA or when the GPU
  // or its libraries cannot be used (the message says which).
  static StatusOr<std::unique_ptr<GpuDevice>> Create(int ordinal, const Device& host);
  virtual GpuMemoryStats MemoryStats() const = 0;
  // Hands every cached block back to the driver (sessions closed, functions evicted).
  virtual void TrimCache() const = 0;
};

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_GPU_DEVICE_H_
