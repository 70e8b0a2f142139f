// Host-side entry points of graphd's own CUDA kernels (elementwise.cu, nn.cu). Each
// enqueues its work on `stream` and returns the launch's error (cudaGetLastError), or
// cudaSuccess. Sizes of 0 launch nothing. Plain types only, so the .cu files need no
// graphd headers. Internal to executor/gpu.
#ifndef GRAPHD_EXECUTOR_GPU_GPU_LAUNCH_H_
#define GRAPHD_EXECUTOR_GPU_GPU_LAUNCH_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace graphd::executor::gpu {

inline constexpr int kMaxKernelRank = 8;

// Launch geometry of the grid-stride kernels: threads per block, and blocks for `n`
// elements (capped; each thread then loops).
inline constexpr int kLaunchThreads = 256;
inline int LaunchBlocks(int64_t n) {
  const int64_t blocks = (n + kLaunchThreads - 1) / kLaunchThreads;
  return static_cast<int>(blocks < (1 << 20) ? blocks : (1 << 20));
}

enum class ElemType : int { kFloat32, kInt32, kInt64, kBool };

enum class BinaryKind : int { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow };

enum class UnaryKind : int {
  kRelu,
  kRelu6,
  kSigmoid,
  kTanh,
  kExp,
  kLog,
  kNeg,
  kAbs,
  kSqrt,
  kRsqrt,
  kSquare,  // NOLINT
  kSign,
  kReciprocal,
  kFloor,
  kCeil,
  kRound,
  kErf,
  kSin,
  kCos,
  kGeluErf,
  kGeluTanh  // NOLINT
};

// NumPy broadcasting: the output's dims, and for each operand the element stride of
// each output dim (0 where the operand's dim is 1 or missing).
struct BroadcastIndex {
  int rank = 0;
  int64_t dims[kMaxKernelRank] = {};
  int64_t a_strides[kMaxKernelRank] = {};
  int64_t b_strides[kMaxKernelRank] = {};
};

// out[i] = a[i] op b[i] for `n` elements; `index` null: a, b and out have one shape.
// Types: float32, int32, int64 (Div on integers truncates as C++); kPow float32 only.
cudaError_t LaunchBinary(BinaryKind kind, ElemType type, const void* a, const void* b, void* out, int64_t n,
                         const BroadcastIndex* index, cudaStream_t stream);

// y = f(x). float32: every kind (kRound: half to even; kGelu*: TensorFlow's exact and
// tanh-approximate GELU); int32/int64: kNeg, kAbs, kSquare, kSign.
cudaError_t LaunchUnary(UnaryKind kind, ElemType type, const void* x, void* y, int64_t n, cudaStream_t stream);

// y = static_cast<dst>(x) (to bool: x != 0).
cudaError_t LaunchCast(ElemType src, ElemType dst, const void* x, void* y, int64_t n, cudaStream_t stream);

// y = x with its dims permuted (Transpose), broadcast (zero strides; BroadcastTo) or
// sliced (Slice, StridedSlice; x then points at the first element read, and strides
// may be negative): output element i, split into coordinates over `dims` (the
// output's), reads x at sum(coord * in_strides). Any element size of 1, 2, 4 or
// 8 bytes (the bits are moved, whatever the dtype).
struct PermuteIndex {
  int rank = 0;
  int64_t dims[kMaxKernelRank] = {};
  int64_t in_strides[kMaxKernelRank] = {};
};
cudaError_t LaunchPermute(int element_size, const void* x, void* y, int64_t n, const PermuteIndex& index,
                          cudaStream_t stream);

// FusedElementwise's program (core/ops/elementwise_program.h) in a form kernels take
// by value (operand kind 0 = input, 1 = temporary, 2 = constant).
enum class FusedOp : int {
  kNeg,
  kAbs,
  kSquare,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kTanh,
  kSigmoid,
  kRelu,
  kErf,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin
};
inline constexpr int kMaxFusedInstrs = 64;
inline constexpr int kMaxFusedInputs = 16;
struct FusedOperand {
  int kind = 0;
  int index = 0;
  float value = 0.f;
};
struct FusedInstr {
  FusedOp op = FusedOp::kNeg;
  int arity = 1;
  FusedOperand operands[2];
};
struct FusedProgram {
  int num_instrs = 0;
  FusedInstr instrs[kMaxFusedInstrs];
  int num_inputs = 0;
  const float* inputs[kMaxFusedInputs] = {};
  bool scalar[kMaxFusedInputs] = {};  // read element 0 for every output element
};
// y[i] = the program's value at element i, for `n` elements.
cudaError_t LaunchFused(const FusedProgram& program, float* y, int64_t n, cudaStream_t stream);

enum class EpilogueAct : int { kNone, kRelu, kClip };

// y[i] = act(y[i] + bias[(i / inner) % channels] + residual[i]) over `n` float32
// elements; bias and residual may be null; kClip clamps to [lo, hi].
cudaError_t LaunchEpilogue(float* y, int64_t n, const float* bias, int64_t channels, int64_t inner,
                           const float* residual, EpilogueAct act, float lo, float hi, cudaStream_t stream);

// Softmax over the last axis: x and y are [rows, cols] float32. `log`: LogSoftmax,
// y = x - max - log(sum(exp(x - max))).
cudaError_t LaunchSoftmax(const float* x, float* y, int64_t rows, int64_t cols, bool log, cudaStream_t stream);

// Sum, Mean, Max or Min over some axes. Output element o splits into coordinates over the kept dims
// (row-major over kept_dims) giving the offset sum(coord * kept_strides); the reduced
// elements are the `reduced_count` coordinates over reduced_dims likewise.
struct ReduceIndex {
  int kept_rank = 0;
  int64_t kept_dims[kMaxKernelRank] = {};
  int64_t kept_strides[kMaxKernelRank] = {};
  int reduced_rank = 0;
  int64_t reduced_dims[kMaxKernelRank] = {};
  int64_t reduced_strides[kMaxKernelRank] = {};
  int64_t reduced_count = 1;
};
// kSum and kMean sum in double; kMax / kMin start from -inf / +inf (TensorFlow's
// identities for an empty reduction) and compare as std::max / std::min.
enum class ReduceKind : int { kSum, kMean, kMax, kMin };
cudaError_t LaunchReduce(ReduceKind kind, const float* x, float* y, int64_t out_n, const ReduceIndex& index,
                         cudaStream_t stream);

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_GPU_LAUNCH_H_
