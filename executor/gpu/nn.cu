// Small CUDA kernels for the NN ops (gpu_launch.h): the bias/residual/activation
// epilogue of MatMul, ConvND and BiasAdd, (Log)Softmax over the last axis, Sum, Mean,
// Max and Min over axes.
#include <cfloat>
#include <cstdint>

#include "executor/gpu/gpu_launch.h"

namespace graphd::executor::gpu {
namespace {

constexpr int kThreads = kLaunchThreads;
int Blocks(int64_t n) { return LaunchBlocks(n); }

__global__ void Epilogue(float* y, int64_t n, const float* bias, int64_t channels, int64_t inner, const float* residual,
                         EpilogueAct act, float lo, float hi) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    float v = y[i];
    if (bias != nullptr) v += bias[(i / inner) % channels];
    if (residual != nullptr) v += residual[i];
    if (act == EpilogueAct::kRelu) {
      v = v < 0.f ? 0.f : v;
    } else if (act == EpilogueAct::kClip) {
      v = v < lo ? lo : (v > hi ? hi : v);
    }
    y[i] = v;
  }
}

// One block per row: the row's max, then the sum of exp(x - max), both reduced in
// shared memory, then y = exp(x - max) / sum (log: y = x - max - log(sum)).
__global__ void Softmax(const float* x, float* y, int64_t rows, int64_t cols, bool log) {
  __shared__ float scratch[kThreads];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* in = x + row * cols;
    float* out = y + row * cols;
    float m = -FLT_MAX;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
    scratch[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
      if (threadIdx.x < s) scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + s]);
      __syncthreads();
    }
    const float row_max = scratch[0];
    __syncthreads();
    float sum = 0.f;
    for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(in[c] - row_max);
    scratch[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
      if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
      __syncthreads();
    }
    const float total = scratch[0];
    __syncthreads();
    if (log) {
      const float log_total = logf(total);
      for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = in[c] - row_max - log_total;
    } else {
      for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(in[c] - row_max) / total;
    }
  }
}

// One thread per output element; sums in double so long reductions stay accurate.
__global__ void Reduce(ReduceKind kind, const float* x, float* y, int64_t out_n, ReduceIndex index) {
  for (int64_t o = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; o < out_n; o += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = o, base = 0;
    for (int d = index.kept_rank - 1; d >= 0; --d) {
      base += (rest % index.kept_dims[d]) * index.kept_strides[d];
      rest /= index.kept_dims[d];
    }
    double sum = 0;
    float best = kind == ReduceKind::kMax ? -INFINITY : INFINITY;
    for (int64_t r = 0; r < index.reduced_count; ++r) {
      int64_t rr = r, offset = base;
      for (int d = index.reduced_rank - 1; d >= 0; --d) {
        offset += (rr % index.reduced_dims[d]) * index.reduced_strides[d];
        rr /= index.reduced_dims[d];
      }
      const float v = x[offset];
      if (kind == ReduceKind::kMax) {  // a NaN stays (executor/cpu/nan_min_max.h)
        best = (best < v || v != v) ? v : best;
      } else if (kind == ReduceKind::kMin) {
        best = (v < best || v != v) ? v : best;
      } else {
        sum += v;
      }
    }
    if (kind == ReduceKind::kSum) {
      y[o] = static_cast<float>(sum);
    } else if (kind == ReduceKind::kMean) {
      y[o] = static_cast<float>(sum / static_cast<double>(index.reduced_count));
    } else {
      y[o] = best;
    }
  }
}

}  // namespace

cudaError_t LaunchEpilogue(float* y, int64_t n, const float* bias, int64_t channels, int64_t inner,
                           const float* residual, EpilogueAct act, float lo, float hi, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (bias != nullptr && (channels <= 0 || inner <= 0)) return cudaErrorInvalidValue;
  Epilogue<<<Blocks(n), kThreads, 0, stream>>>(y, n, bias, channels, inner, residual, act, lo, hi);
  return cudaGetLastError();
}

cudaError_t LaunchSoftmax(const float* x, float* y, int64_t rows, int64_t cols, bool log, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  const int blocks = static_cast<int>(rows < (1 << 20) ? rows : (1 << 20));
  Softmax<<<blocks, kThreads, 0, stream>>>(x, y, rows, cols, log);
  return cudaGetLastError();
}

cudaError_t LaunchReduce(ReduceKind kind, const float* x, float* y, int64_t out_n, const ReduceIndex& index,
                         cudaStream_t stream) {
  if (out_n == 0) return cudaSuccess;
  Reduce<<<Blocks(out_n), kThreads, 0, stream>>>(kind, x, y, out_n, index);
  return cudaGetLastError();
}

}  // namespace graphd::executor::gpu
