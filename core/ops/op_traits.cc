// OpTrait bits and OpIds (core/graph/op_def.h) for every op family, in one place.
#include <initializer_list>
#include <utility>

#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

namespace graphd {

void RegisterOpTraits(OpRegistry& r) {
  for (const char* op : {// unary
                         "Identity", "Relu", "Relu6", "Sigmoid", "Tanh", "Abs", "Ceil", "Cos", "Erf", "Exp", "Floor",
                         "Log", "Neg", "Reciprocal", "Round", "Rsqrt", "Sign", "Sin", "Sqrt", "Square", "Tan", "Celu",
                         "Elu", "HardSigmoid", "HardSwish", "LeakyRelu", "Selu", "Shrink", "Softplus", "Softsign",
                         "ThresholdedRelu",
                         // broadcasting
                         "Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Pow", "ClipByValue"}) {
    r.AddTraits(op, kElementwise);
  }
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) r.AddTraits(op, kAxisReduction);
  const std::pair<OpId, const char*> ids[] = {
      {OpId::kArg, "Arg"},           {OpId::kPlaceholder, "Placeholder"}, {OpId::kConst, "Const"},
      {OpId::kAdd, "Add"},           {OpId::kNeg, "Neg"},                 {OpId::kRelu, "Relu"},
      {OpId::kMaximum, "Maximum"},   {OpId::kMinimum, "Minimum"},         {OpId::kMatMul, "MatMul"},
      {OpId::kConvND, "ConvND"},     {OpId::kMaxPoolND, "MaxPoolND"},     {OpId::kAvgPoolND, "AvgPoolND"},
      {OpId::kConcatV2, "ConcatV2"}, {OpId::kPad, "Pad"},                 {OpId::kTranspose, "Transpose"},
      {OpId::kMean, "Mean"},         {OpId::kSub, "Sub"},                 {OpId::kMul, "Mul"},
      {OpId::kDiv, "Div"},           {OpId::kIdentity, "Identity"},       {OpId::kCast, "Cast"},
      {OpId::kReshape, "Reshape"}};
  for (const auto& [id, op] : ids) r.SetId(op, id);
}

}  // namespace graphd
