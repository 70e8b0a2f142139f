// Explicit registration of every op family (DESIGN.md convention 6).
#ifndef GRAPHD_CORE_OPS_ALL_OPS_H_
#define GRAPHD_CORE_OPS_ALL_OPS_H_

namespace graphd {

class OpRegistry;

void RegisterArrayOps(OpRegistry& registry);  // Placeholder, Const, Identity, NoOp, Reshape, Cast
void RegisterMathOps(OpRegistry& registry);   // binary elementwise, MatMul
void RegisterUnaryOps(OpRegistry& registry);  // Abs, Neg, Exp, Log, Round, ... (unary math)
void RegisterReductionOps(OpRegistry& registry);  // Sum..Prod, Any, All, ArgMax/Min, Cumsum
void RegisterNnOps(OpRegistry& registry);     // activations, (Log)Softmax, BiasAdd
void RegisterActivationOps(OpRegistry& registry);  // Elu, LeakyRelu, PRelu, Hardmax, Clip...
void RegisterBitwiseOps(OpRegistry& registry);  // LeftShift, RightShift
void RegisterMatrixOps(OpRegistry& registry);   // Trilu, MatrixDeterminant
void RegisterGatherScatterOps(OpRegistry& registry);  // GatherElements/Nd, Scatter*
void RegisterSortOps(OpRegistry& registry);     // TopKV2, Where
void RegisterSpaceOps(OpRegistry& registry);    // DepthToSpace, SpaceToDepth
void RegisterNormOps(OpRegistry& registry);     // Layer/InstanceNormalization, LRN
void RegisterLossOps(OpRegistry& registry);     // NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void RegisterConvOps(OpRegistry& registry);   // Conv2D, MaxPool, AvgPool
void RegisterWindowNdOps(OpRegistry& registry);  // ConvND, ConvTransposeND, Max/AvgPoolND
void RegisterResizeOps(OpRegistry& registry);  // Resize
void RegisterShapeOps(OpRegistry& registry);  // Shape, Size, Rank, ExpandDims, Squeeze, BroadcastTo
void RegisterGeneratorOps(OpRegistry& registry);  // Fill, *Like, Eye, Range, LinSpace, random
void RegisterManipOps(OpRegistry& registry);  // Transpose, Concat, Pack, Split, Tile, Pad, ...
void RegisterIndexOps(OpRegistry& registry);  // GatherV2, Slice, StridedSlice, SelectV2, OneHot
void RegisterStringOps(OpRegistry& registry);  // StringJoin, StringLength
void RegisterStateOps(OpRegistry& registry);  // VariableV2, Assign, AssignAdd, AssignSub
void RegisterControlFlowOps(OpRegistry& registry);  // Arg, If, While
void RegisterLogicOps(OpRegistry& registry);  // comparisons, LogicalAnd/Or/Not

void RegisterLoggingOps(OpRegistry& registry);  // PrintV2, Assert

void RegisterQuantOps(OpRegistry& registry);  // Quantize/DequantizeLinear, MatMul/ConvInteger
void RegisterSignalOps(OpRegistry& registry);  // DFT, STFT, SignalWindow, MelWeightMatrix
void RegisterTextOps(OpRegistry& registry);  // StringNormalizer, TfIdfVectorizer

void RegisterResourceOps(OpRegistry& registry);  // ReadVariableOp, Assign*VariableOp

void RegisterTensorArrayOps(OpRegistry& registry);  // TensorArrayWrite

void RegisterLinalgOps(OpRegistry& registry);  // BatchMatMulV2, Einsum, Unique
void RegisterRnnOps(OpRegistry& registry);  // RNN, GRU, LSTM
void RegisterDetectionOps(OpRegistry& registry);  // MultiClassNonMaxSuppression, RoiAlign, GridSample

void RegisterOpTraits(OpRegistry& registry);  // OpTrait bits of the ops above (op_traits.cc)

inline void RegisterAllOps(OpRegistry& registry) {
  RegisterArrayOps(registry);
  RegisterMathOps(registry);
  RegisterUnaryOps(registry);
  RegisterReductionOps(registry);
  RegisterNnOps(registry);
  RegisterActivationOps(registry);
  RegisterBitwiseOps(registry);
  RegisterMatrixOps(registry);
  RegisterGatherScatterOps(registry);
  RegisterSortOps(registry);
  RegisterSpaceOps(registry);
  RegisterNormOps(registry);
  RegisterLossOps(registry);
  RegisterConvOps(registry);
  RegisterWindowNdOps(registry);
  RegisterResizeOps(registry);
  RegisterShapeOps(registry);
  RegisterGeneratorOps(registry);
  RegisterManipOps(registry);
  RegisterIndexOps(registry);
  RegisterStringOps(registry);
  RegisterStateOps(registry);
  RegisterControlFlowOps(registry);
  RegisterLogicOps(registry);
  RegisterLoggingOps(registry);
  RegisterResourceOps(registry);
  RegisterTensorArrayOps(registry);
  RegisterQuantOps(registry);
  RegisterSignalOps(registry);
  RegisterTextOps(registry);
  RegisterLinalgOps(registry);
  RegisterRnnOps(registry);
  RegisterDetectionOps(registry);
  RegisterOpTraits(registry);  // last: every op is registered
}

}  // namespace graphd

#endif  // GRAPHD_CORE_OPS_ALL_OPS_H_
