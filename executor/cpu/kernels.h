// Registration of the CPU kernels, one function per family (one file each).
#ifndef GRAPHD_EXECUTOR_CPU_KERNELS_H_
#define GRAPHD_EXECUTOR_CPU_KERNELS_H_

#include <functional>
#include <memory>

#include "executor/kernel_registry.h"

namespace graphd::executor::cpu {

inline constexpr char kCpu[] = "CPU";

// The dtypes the CPU's arithmetic kernels compute in (see dispatch.h).
inline constexpr DType kArithmeticDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt8,
                                              DType::kInt16,   DType::kInt32,   DType::kInt64,
                                              DType::kUInt8};
// kArithmeticDTypes plus bool (OneHot, ZerosLike, OnesLike, Eye, Pad).
inline constexpr DType kCastDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt8,
                                        DType::kInt16,   DType::kInt32,   DType::kInt64,
                                        DType::kUInt8,   DType::kBool};
// Unsigned integers wider than a byte: binary arithmetic, comparisons, shifts and Cast
// support them (DispatchNumericAll).
inline constexpr DType kWideUnsignedDTypes[] = {DType::kUInt16, DType::kUInt32, DType::kUInt64};
// 16-bit floats: Cast converts them; binary arithmetic and comparisons compute in float32
// and round back to nearest even.
inline constexpr DType kHalfDTypes[] = {DType::kFloat16, DType::kBFloat16};

void RegisterArrayKernels(KernelRegistry& r);       // Const, Identity, NoOp, Placeholder, Reshape, Cast
void RegisterBinaryKernels(KernelRegistry& r);      // Add, Sub, Mul, Div, ..., Pow, BiasAdd
void RegisterMatMulKernels(KernelRegistry& r);      // MatMul
void RegisterUnaryKernels(KernelRegistry& r);       // Abs, Neg, Sign, Exp, Log, Round, ...
void RegisterActivationKernels(KernelRegistry& r);  // Relu(6), Sigmoid, Tanh, Gelu, (Log)Softmax
void RegisterParamActivationKernels(KernelRegistry& r);  // Elu, LeakyRelu, PRelu, Hardmax, ...
void RegisterBitwiseKernels(KernelRegistry& r);     // LeftShift, RightShift
void RegisterMatrixKernels(KernelRegistry& r);      // Trilu, MatrixDeterminant
void RegisterGatherScatterKernels(KernelRegistry& r);  // GatherElements/Nd, Scatter*
void RegisterSortKernels(KernelRegistry& r);        // TopKV2, Where
void RegisterSpaceKernels(KernelRegistry& r);       // DepthToSpace, SpaceToDepth
void RegisterNormKernels(KernelRegistry& r);        // Layer/InstanceNormalization, LRN
void RegisterLossKernels(KernelRegistry& r);        // NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void RegisterReductionKernels(KernelRegistry& r);   // Sum, Mean, Max, Min, Prod, Any, All
void RegisterScanKernels(KernelRegistry& r);        // ArgMax, ArgMin, Cumsum
void RegisterConvKernels(KernelRegistry& r);        // Conv2D
void RegisterPoolKernels(KernelRegistry& r);        // MaxPool, AvgPool
void RegisterPoolGradKernels(KernelRegistry& r);    // MaxPoolGrad
void RegisterConvNdKernels(KernelRegistry& r);      // ConvND, ConvTransposeND
void RegisterPoolNdKernels(KernelRegistry& r);      // MaxPoolND, AvgPoolND
void RegisterResizeKernels(KernelRegistry& r);      // Resize
void RegisterShapeKernels(KernelRegistry& r);       // Shape, Size, Rank, ExpandDims, Squeeze, BroadcastTo
void RegisterGeneratorKernels(KernelRegistry& r);   // Fill, ZerosLike, OnesLike, Eye, Range, LinSpace
void RegisterRandomKernels(KernelRegistry& r);      // StatelessRandomUniform/Normal
void RegisterManipKernels(KernelRegistry& r);       // Transpose, Tile, ReverseV2(Sequence), Pad
void RegisterConcatKernels(KernelRegistry& r);      // ConcatV2, Pack, Unpack, Split, SplitV
void RegisterIndexKernels(KernelRegistry& r);       // GatherV2, Slice, StridedSlice, SelectV2, OneHot
void RegisterStringKernels(KernelRegistry& r);      // StringJoin, StringLength
void RegisterStateKernels(KernelRegistry& r);       // VariableV2, Assign, AssignAdd, AssignSub
void RegisterLogicKernels(KernelRegistry& r);       // comparisons, LogicalAnd/Or/Not

void RegisterLoggingKernels(KernelRegistry& r);     // PrintV2, Assert

void RegisterResourceKernels(KernelRegistry& r);    // ReadVariableOp, Assign*VariableOp

void RegisterTensorArrayKernels(KernelRegistry& r);  // TensorArrayWrite

void RegisterQuantKernels(KernelRegistry& r);   // Quantize/DequantizeLinear, MatMul/ConvInteger
void RegisterSignalKernels(KernelRegistry& r);  // DFT, STFT, SignalWindow, MelWeightMatrix
void RegisterTextKernels(KernelRegistry& r);    // StringNormalizer, TfIdfVectorizer
void RegisterLinalgKernels(KernelRegistry& r);      // BatchMatMulV2, Einsum
void RegisterUniqueKernels(KernelRegistry& r);      // Unique
void RegisterRnnKernels(KernelRegistry& r);         // RNN, GRU, LSTM
void RegisterDetectionKernels(KernelRegistry& r);   // MultiClassNonMaxSuppression, RoiAlign
void RegisterGridSampleKernels(KernelRegistry& r);  // GridSample

inline void RegisterCpuKernels(KernelRegistry& r) {
  RegisterArrayKernels(r);
  RegisterBinaryKernels(r);
  RegisterMatMulKernels(r);
  RegisterUnaryKernels(r);
  RegisterActivationKernels(r);
  RegisterParamActivationKernels(r);
  RegisterBitwiseKernels(r);
  RegisterMatrixKernels(r);
  RegisterGatherScatterKernels(r);
  RegisterSortKernels(r);
  RegisterSpaceKernels(r);
  RegisterNormKernels(r);
  RegisterLossKernels(r);
  RegisterReductionKernels(r);
  RegisterScanKernels(r);
  RegisterConvKernels(r);
  RegisterPoolKernels(r);
  RegisterPoolGradKernels(r);
  RegisterConvNdKernels(r);
  RegisterPoolNdKernels(r);
  RegisterResizeKernels(r);
  RegisterShapeKernels(r);
  RegisterGeneratorKernels(r);
  RegisterRandomKernels(r);
  RegisterManipKernels(r);
  RegisterConcatKernels(r);
  RegisterIndexKernels(r);
  RegisterStringKernels(r);
  RegisterStateKernels(r);
  RegisterLogicKernels(r);
  RegisterLoggingKernels(r);
  RegisterResourceKernels(r);
  RegisterTensorArrayKernels(r);
  RegisterQuantKernels(r);
  RegisterSignalKernels(r);
  RegisterTextKernels(r);
  RegisterLinalgKernels(r);
  RegisterUniqueKernels(r);
  RegisterRnnKernels(r);
  RegisterDetectionKernels(r);
  RegisterGridSampleKernels(r);
}

// A kernel whose Compute is a function (for kernels with no per-node state).
class FnKernel : public OpKernel {
 public:
  using Fn = std::function<Status(KernelContext&)>;
  explicit FnKernel(Fn fn) : fn_(std::move(fn)) {}
  Status Compute(KernelContext& ctx) override { return fn_(ctx); }

  // A factory producing FnKernel(fn) for every node.
  static KernelFactory Factory(Fn fn) {
    return [fn = std::move(fn)](const Node&) -> StatusOr<std::unique_ptr<OpKernel>> {
      return std::make_unique<FnKernel>(fn);
    };
  }

 private:
  Fn fn_;
};

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_KERNELS_H_
