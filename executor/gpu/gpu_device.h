// The CUDA device (issue 6): GPU memory through the caching allocator, copies on a
// per-thread stream, and kernels (CUDA, cuBLAS, cuDNN) for the ops it supports; every
// other op runs on the host device it was created with (placement: Plan::Build).
// No CUDA header is needed to include this. Built from gpu_device.cc when CMake found
// CUDA, else from gpu_device_none.cc, whose Create fails ("built without CUDA").
//
// Streams: each calling thread works on its own stream for this GPU (taken from a
// process-wide pool or created on first use, non-blocking), so one run's work (one
// thread) is ordered and runs on different threads overlap. CopyToHost and Synchronize
// wait for the calling thread's stream. A thread that finished a unit of work (one RPC)
// hands its stream, with its cuBLAS/cuDNN handles, back to the pool with
// ReleaseThreadState(), so the number of handle sets (tens of MiB of GPU memory each)
// is bounded by the most units of work running at once, not by the threads ever used.
// Lifetime: tensors from Allocate/CopyFromHost keep the device's memory pool alive, so
// they may outlive the GpuDevice. Thread safety: all methods may be called from many
// threads.
#ifndef GRAPHD_EXECUTOR_GPU_GPU_DEVICE_H_
#define GRAPHD_EXECUTOR_GPU_GPU_DEVICE_H_

#include <cstdint>
#include <memory>

#include "executor/device.h"

namespace graphd::executor::gpu {

struct GpuMemoryStats {
  int64_t bytes_in_use = 0;  // held by live tensors (rounded to the allocator's granule)
  int64_t bytes_cached = 0;  // freed, kept by the allocator for reuse
  int64_t peak_bytes_in_use = 0;
};

class GpuDevice : public Device {
 public:
  // The device for GPU `ordinal`; ops it has no kernel for run on `host` (the CPU),
  // which must outlive it. FailedPrecondition with the reason when there is no such
  // GPU, no driver, cuBLAS or cuDNN cannot be loaded, or the binary was built without
  // CUDA.
  static StatusOr<std::unique_ptr<GpuDevice>> Create(int ordinal, const Device& host);

  virtual GpuMemoryStats MemoryStats() const = 0;
  // Hands every cached block back to the driver (sessions closed, functions evicted).
  virtual void TrimCache() const = 0;
  // Device memory per owner (executor/memory_owner.h: the session a request served):
  // `owner`'s peak and what it still holds, and forgets it when it holds nothing.
  // Called when a session closed; leaked_bytes > 0 means tensors it allocated are
  // still alive (a call still finishing, or a leak).
  struct OwnerReport {
    int64_t peak_bytes = 0;
    int64_t leaked_bytes = 0;
  };
  virtual OwnerReport ReleaseOwner(absl::string_view owner) const = 0;
};

// Hands the calling thread's streams and library handles (every GPU) back to the pool
// after waiting for the work it queued on them. Call at the end of a unit of work
// (not inside a run: the rest of the run would take another stream). A no-op for a
// thread that never used a GPU, and without CUDA.
void ReleaseThreadState();

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_GPU_DEVICE_H_
