// The CUDA kernel of Transpose and BroadcastTo (gpu_launch.h): a gather over permuted
// (or zero) strides, moving the elements' bits by size.
#include <cstdint>

#include "executor/gpu/gpu_launch.h"

namespace graphd::executor::gpu {
namespace {

constexpr int kThreads = kLaunchThreads;

template <typename T>
__global__ void Permute(const T* x, T* y, int64_t n, PermuteIndex index) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = i, offset = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      offset += (rest % index.dims[d]) * index.in_strides[d];
      rest /= index.dims[d];
    }
    y[i] = x[offset];
  }
}

template <typename T>
cudaError_t Run(const void* x, void* y, int64_t n, const PermuteIndex& index, cudaStream_t stream) {
  Permute<T><<<LaunchBlocks(n), kThreads, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(y), n, index);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchPermute(int element_size, const void* x, void* y, int64_t n, const PermuteIndex& index,
                          cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      return Run<uint8_t>(x, y, n, index, stream);
    case 2:
      return Run<uint16_t>(x, y, n, index, stream);
    case 4:
      return Run<uint32_t>(x, y, n, index, stream);
    case 8:
      return Run<uint64_t>(x, y, n, index, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace graphd::executor::gpu
