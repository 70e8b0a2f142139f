// Elementwise CUDA kernels: binary ops with broadcasting, unary math, casts
// (gpu_launch.h). Grid-stride loops over int64 element counts.
#include <cstdint>
#include <type_traits>

#include "executor/gpu/gpu_launch.h"

namespace graphd::executor::gpu {
namespace {

constexpr int kThreads = kLaunchThreads;
int Blocks(int64_t n) { return LaunchBlocks(n); }

template <typename T, BinaryKind K>
__device__ __forceinline__ T Apply(T x, T y) {
  if constexpr (K == BinaryKind::kAdd) return x + y;
  if constexpr (K == BinaryKind::kSub) return x - y;
  if constexpr (K == BinaryKind::kMul) return x * y;
  if constexpr (K == BinaryKind::kDiv) return x / y;
  // A NaN in either operand gives NaN, as in TensorFlow (executor/cpu/nan_min_max.h).
  if constexpr (K == BinaryKind::kMax) return (x < y || y != y) ? y : x;
  if constexpr (K == BinaryKind::kMin) return (y < x || y != y) ? y : x;
  if constexpr (K == BinaryKind::kPow) {
    if constexpr (std::is_same_v<T, float>) return powf(x, y);
    return T{};  // not launched for integers
  }
}

template <typename T, BinaryKind K>
__global__ void BinarySame(const T* a, const T* b, T* out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    out[i] = Apply<T, K>(a[i], b[i]);
  }
}

template <typename T, BinaryKind K>
__global__ void BinaryBroadcast(const T* a, const T* b, T* out, int64_t n, BroadcastIndex index) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = i, ai = 0, bi = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t c = rest % index.dims[d];
      rest /= index.dims[d];
      ai += c * index.a_strides[d];
      bi += c * index.b_strides[d];
    }
    out[i] = Apply<T, K>(a[ai], b[bi]);
  }
}

template <typename T, BinaryKind K>
cudaError_t Binary(const void* a, const void* b, void* out, int64_t n, const BroadcastIndex* index,
                   cudaStream_t stream) {
  if (index == nullptr) {
    BinarySame<T, K><<<Blocks(n), kThreads, 0, stream>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                                         static_cast<T*>(out), n);
  } else {
    BinaryBroadcast<T, K><<<Blocks(n), kThreads, 0, stream>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                                              static_cast<T*>(out), n, *index);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t BinaryOf(BinaryKind kind, const void* a, const void* b, void* out, int64_t n, const BroadcastIndex* index,
                     cudaStream_t stream) {
  switch (kind) {
    case BinaryKind::kAdd:
      return Binary<T, BinaryKind::kAdd>(a, b, out, n, index, stream);
    case BinaryKind::kSub:
      return Binary<T, BinaryKind::kSub>(a, b, out, n, index, stream);
    case BinaryKind::kMul:
      return Binary<T, BinaryKind::kMul>(a, b, out, n, index, stream);
    case BinaryKind::kDiv:
      return Binary<T, BinaryKind::kDiv>(a, b, out, n, index, stream);
    case BinaryKind::kMax:
      return Binary<T, BinaryKind::kMax>(a, b, out, n, index, stream);
    case BinaryKind::kMin:
      return Binary<T, BinaryKind::kMin>(a, b, out, n, index, stream);
    case BinaryKind::kPow:
      if constexpr (std::is_same_v<T, float>) return Binary<T, BinaryKind::kPow>(a, b, out, n, index, stream);
      return cudaErrorInvalidValue;
  }
  return cudaErrorInvalidValue;
}

template <UnaryKind K>
__device__ __forceinline__ float UnaryF(float x) {
  if constexpr (K == UnaryKind::kRelu) return x < 0.f ? 0.f : x;
  if constexpr (K == UnaryKind::kRelu6) return x < 0.f ? 0.f : (x > 6.f ? 6.f : x);
  if constexpr (K == UnaryKind::kSigmoid) return 1.f / (1.f + expf(-x));
  if constexpr (K == UnaryKind::kTanh) return tanhf(x);
  if constexpr (K == UnaryKind::kExp) return expf(x);
  if constexpr (K == UnaryKind::kLog) return logf(x);
  if constexpr (K == UnaryKind::kNeg) return -x;
  if constexpr (K == UnaryKind::kAbs) return fabsf(x);
  if constexpr (K == UnaryKind::kSqrt) return sqrtf(x);
  if constexpr (K == UnaryKind::kRsqrt) return 1.f / sqrtf(x);
  if constexpr (K == UnaryKind::kSquare) return x * x;
  if constexpr (K == UnaryKind::kSign) return x > 0.f ? 1.f : (x < 0.f ? -1.f : x);  // keeps 0, -0, NaN
  if constexpr (K == UnaryKind::kReciprocal) return 1.f / x;
  if constexpr (K == UnaryKind::kFloor) return floorf(x);
  if constexpr (K == UnaryKind::kCeil) return ceilf(x);
  if constexpr (K == UnaryKind::kRound) return rintf(x);  // half to even
  if constexpr (K == UnaryKind::kErf) return erff(x);
  if constexpr (K == UnaryKind::kSin) return sinf(x);
  if constexpr (K == UnaryKind::kCos) return cosf(x);
  if constexpr (K == UnaryKind::kGeluErf) return 0.5f * x * (1.f + erff(x / sqrtf(2.f)));
  if constexpr (K == UnaryKind::kGeluTanh) {
    const float k = sqrtf(2.f / 3.14159265358979323846f);
    return 0.5f * x * (1.f + tanhf(k * (x + 0.044715f * x * x * x)));
  }
}

template <UnaryKind K>
__global__ void UnaryFloat(const float* x, float* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    y[i] = UnaryF<K>(x[i]);
  }
}

template <typename T, UnaryKind K>
__global__ void UnaryInt(const T* x, T* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const T v = x[i];
    if constexpr (K == UnaryKind::kNeg) y[i] = -v;
    if constexpr (K == UnaryKind::kAbs) y[i] = v < 0 ? -v : v;
    if constexpr (K == UnaryKind::kSquare) y[i] = v * v;
    if constexpr (K == UnaryKind::kSign) y[i] = static_cast<T>((v > 0) - (v < 0));
  }
}

template <UnaryKind K>
cudaError_t Float(const void* x, void* y, int64_t n, cudaStream_t stream) {
  UnaryFloat<K><<<Blocks(n), kThreads, 0, stream>>>(static_cast<const float*>(x), static_cast<float*>(y), n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t Int(UnaryKind kind, const void* x, void* y, int64_t n, cudaStream_t stream) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  switch (kind) {
    case UnaryKind::kNeg:
      UnaryInt<T, UnaryKind::kNeg><<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
      break;
    case UnaryKind::kAbs:
      UnaryInt<T, UnaryKind::kAbs><<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
      break;
    case UnaryKind::kSquare:
      UnaryInt<T, UnaryKind::kSquare><<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
      break;
    case UnaryKind::kSign:
      UnaryInt<T, UnaryKind::kSign><<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <typename D, typename S>
__global__ void CastKernel(const S* x, D* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    if constexpr (std::is_same_v<D, bool>) {
      y[i] = x[i] != S{};
    } else {
      y[i] = static_cast<D>(x[i]);
    }
  }
}

template <typename S>
cudaError_t CastFrom(ElemType dst, const void* x, void* y, int64_t n, cudaStream_t stream) {
  const S* in = static_cast<const S*>(x);
  switch (dst) {
    case ElemType::kFloat32:
      CastKernel<float, S><<<Blocks(n), kThreads, 0, stream>>>(in, static_cast<float*>(y), n);
      break;
    case ElemType::kInt32:
      CastKernel<int32_t, S><<<Blocks(n), kThreads, 0, stream>>>(in, static_cast<int32_t*>(y), n);
      break;
    case ElemType::kInt64:
      CastKernel<int64_t, S><<<Blocks(n), kThreads, 0, stream>>>(in, static_cast<int64_t*>(y), n);
      break;
    case ElemType::kBool:
      CastKernel<bool, S><<<Blocks(n), kThreads, 0, stream>>>(in, static_cast<bool*>(y), n);
      break;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchBinary(BinaryKind kind, ElemType type, const void* a, const void* b, void* out, int64_t n,
                         const BroadcastIndex* index, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (type) {
    case ElemType::kFloat32:
      return BinaryOf<float>(kind, a, b, out, n, index, stream);
    case ElemType::kInt32:
      return BinaryOf<int32_t>(kind, a, b, out, n, index, stream);
    case ElemType::kInt64:
      return BinaryOf<int64_t>(kind, a, b, out, n, index, stream);
    case ElemType::kBool:
      break;
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchUnary(UnaryKind kind, ElemType type, const void* x, void* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (type == ElemType::kInt32) return Int<int32_t>(kind, x, y, n, stream);
  if (type == ElemType::kInt64) return Int<int64_t>(kind, x, y, n, stream);
  if (type != ElemType::kFloat32) return cudaErrorInvalidValue;
  switch (kind) {
    case UnaryKind::kRelu:
      return Float<UnaryKind::kRelu>(x, y, n, stream);
    case UnaryKind::kRelu6:
      return Float<UnaryKind::kRelu6>(x, y, n, stream);
    case UnaryKind::kSigmoid:
      return Float<UnaryKind::kSigmoid>(x, y, n, stream);
    case UnaryKind::kTanh:
      return Float<UnaryKind::kTanh>(x, y, n, stream);
    case UnaryKind::kExp:
      return Float<UnaryKind::kExp>(x, y, n, stream);
    case UnaryKind::kLog:
      return Float<UnaryKind::kLog>(x, y, n, stream);
    case UnaryKind::kNeg:
      return Float<UnaryKind::kNeg>(x, y, n, stream);
    case UnaryKind::kAbs:
      return Float<UnaryKind::kAbs>(x, y, n, stream);
    case UnaryKind::kSqrt:
      return Float<UnaryKind::kSqrt>(x, y, n, stream);
    case UnaryKind::kRsqrt:
      return Float<UnaryKind::kRsqrt>(x, y, n, stream);
    case UnaryKind::kSquare:
      return Float<UnaryKind::kSquare>(x, y, n, stream);
    case UnaryKind::kSign:
      return Float<UnaryKind::kSign>(x, y, n, stream);
    case UnaryKind::kReciprocal:
      return Float<UnaryKind::kReciprocal>(x, y, n, stream);
    case UnaryKind::kFloor:
      return Float<UnaryKind::kFloor>(x, y, n, stream);
    case UnaryKind::kCeil:
      return Float<UnaryKind::kCeil>(x, y, n, stream);
    case UnaryKind::kRound:
      return Float<UnaryKind::kRound>(x, y, n, stream);
    case UnaryKind::kErf:
      return Float<UnaryKind::kErf>(x, y, n, stream);
    case UnaryKind::kSin:
      return Float<UnaryKind::kSin>(x, y, n, stream);
    case UnaryKind::kCos:
      return Float<UnaryKind::kCos>(x, y, n, stream);
    case UnaryKind::kGeluErf:
      return Float<UnaryKind::kGeluErf>(x, y, n, stream);
    case UnaryKind::kGeluTanh:
      return Float<UnaryKind::kGeluTanh>(x, y, n, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchCast(ElemType src, ElemType dst, const void* x, void* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (src) {
    case ElemType::kFloat32:
      return CastFrom<float>(dst, x, y, n, stream);
    case ElemType::kInt32:
      return CastFrom<int32_t>(dst, x, y, n, stream);
    case ElemType::kInt64:
      return CastFrom<int64_t>(dst, x, y, n, stream);
    case ElemType::kBool:
      return CastFrom<bool>(dst, x, y, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace graphd::executor::gpu
