// What every GPU kernel of one device shares (internal to executor/gpu; includes CUDA
// headers): the ordinal, the caching allocator over cudaMalloc, the calling thread's
// stream and cuBLAS/cuDNN handles, and the checks that turn CUDA, cuBLAS and cuDNN
// return codes into Status.
//
// Per-thread state: for each GPU a thread touches, one non-blocking stream and, lazily,
// one cuBLAS and one cuDNN handle bound to it. When the thread exits its stream is
// synchronized and handed, with the handles, to a process-wide pool that later threads
// take from; streams are never destroyed (the caching allocator may record events on
// the stream a cached block was freed on at any later time). A dedicated stream per
// thread, rather than cudaStreamPerThread, because the allocator records those events
// from whichever thread asks for the block next, which needs a handle valid on every
// thread.
//
// Lifetime: held by shared_ptr; every device tensor holds a reference, so the memory
// pool outlives the GpuDevice while tensors are alive. Thread-safe.
#ifndef GRAPHD_EXECUTOR_GPU_GPU_RUNTIME_H_
#define GRAPHD_EXECUTOR_GPU_GPU_RUNTIME_H_

#include <cuda_runtime_api.h>

#include <memory>

#include "core/tensor.h"
#include "executor/gpu/caching_allocator.h"
#include "executor/gpu/cuda_libs.h"

namespace graphd::executor::gpu {

// OK for cudaSuccess; otherwise "<call> failed: <cudaGetErrorString> (<cudaGetErrorName>)",
// ResourceExhausted for cudaErrorMemoryAllocation and Internal for the rest.
Status CudaCall(cudaError_t err, absl::string_view call);
// The same for cuBLAS and cuDNN status codes (messages from the loaded libraries).
Status CublasCall(const CublasApi& api, cublasStatus_t status, absl::string_view call);
Status CudnnCall(const CudnnApi& api, cudnnStatus_t status, absl::string_view call);

class GpuRuntime {
 public:
  // Loads cuBLAS and cuDNN and makes `ordinal` usable; FailedPrecondition when the
  // libraries cannot be loaded, Internal/other for CUDA errors.
  static StatusOr<std::shared_ptr<GpuRuntime>> Create(int ordinal);
  ~GpuRuntime();

  int ordinal() const { return ordinal_; }
  const CublasApi& cublas() const { return *cublas_; }
  const CudnnApi& cudnn() const { return *cudnn_; }
  CachingAllocator& allocator() const { return *allocator_; }

  // Makes this GPU current on the calling thread (cudaSetDevice when it is not).
  Status Activate() const;
  // The calling thread's stream for this GPU (activates it).
  StatusOr<cudaStream_t> Stream() const;
  // The calling thread's handles, bound to Stream(). cuBLAS math mode is
  // CUBLAS_PEDANTIC_MATH: float32 GEMMs in full float32 (no TF32).
  StatusOr<cublasHandle_t> CublasHandle() const;
  StatusOr<cudnnHandle_t> CudnnHandle() const;

  // An uninitialised device tensor usable on `stream`; its memory goes back to the
  // allocator (on `stream`) with the last reference. ResourceExhausted when the GPU is
  // out of memory.
  StatusOr<Tensor> Allocate(DType dtype, const Shape& shape, cudaStream_t stream) const;

 private:
  GpuRuntime(int ordinal, const CublasApi* cublas, const CudnnApi* cudnn);

  class Backend;
  const int ordinal_;
  const CublasApi* const cublas_;
  const CudnnApi* const cudnn_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<CachingAllocator> allocator_;
  // Handed to each device buffer's release callback.
  std::weak_ptr<GpuRuntime> self_;
};

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_GPU_RUNTIME_H_
