// FusedElementwise's CUDA kernel (gpu_launch.h): each thread runs the whole program for
// its elements, temporaries in registers/local memory. The arithmetic is that of the
// unfused GPU kernels (elementwise.cu).
#include <cstdint>

#include "executor/gpu/gpu_launch.h"

namespace graphd::executor::gpu {
namespace {

constexpr int kThreads = kLaunchThreads;

__device__ __forceinline__ float Eval(FusedOp op, float a, float b) {
  switch (op) {
    case FusedOp::kNeg:
      return -a;
    case FusedOp::kAbs:
      return fabsf(a);
    case FusedOp::kSquare:
      return a * a;
    case FusedOp::kExp:
      return expf(a);
    case FusedOp::kLog:
      return logf(a);
    case FusedOp::kSqrt:
      return sqrtf(a);
    case FusedOp::kRsqrt:
      return 1.f / sqrtf(a);
    case FusedOp::kReciprocal:
      return 1.f / a;
    case FusedOp::kTanh:
      return tanhf(a);
    case FusedOp::kSigmoid:
      return 1.f / (1.f + expf(-a));
    case FusedOp::kRelu:
      return a < 0.f ? 0.f : a;
    case FusedOp::kErf:
      return erff(a);
    case FusedOp::kAdd:
      return a + b;
    case FusedOp::kSub:
      return a - b;
    case FusedOp::kMul:
      return a * b;
    case FusedOp::kDiv:
      return a / b;
    case FusedOp::kMax:  // NaN in, NaN out (executor/cpu/nan_min_max.h)
      return (a < b || b != b) ? b : a;
    case FusedOp::kMin:
      return (b < a || b != b) ? b : a;
  }
  return 0.f;
}

__global__ void Fused(FusedProgram p, float* y, int64_t n) {
  float t[kMaxFusedInstrs];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    for (int k = 0; k < p.num_instrs; ++k) {
      const FusedInstr& in = p.instrs[k];
      float v[2] = {0.f, 0.f};
      for (int o = 0; o < in.arity; ++o) {
        const FusedOperand& op = in.operands[o];
        if (op.kind == 0) {
          v[o] = p.inputs[op.index][p.scalar[op.index] ? 0 : i];
        } else if (op.kind == 1) {
          v[o] = t[op.index];
        } else {
          v[o] = op.value;
        }
      }
      t[k] = Eval(in.op, v[0], v[1]);
    }
    y[i] = t[p.num_instrs - 1];
  }
}

}  // namespace

cudaError_t LaunchFused(const FusedProgram& program, float* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (program.num_instrs < 1 || program.num_instrs > kMaxFusedInstrs) return cudaErrorInvalidValue;
  Fused<<<LaunchBlocks(n), kThreads, 0, stream>>>(program, y, n);
  return cudaGetLastError();
}

}  // namespace graphd::executor::gpu
