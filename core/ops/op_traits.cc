// OpTrait bits (core/graph/op_def.h) for every op family, in one place.
#include <initializer_list>

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
}

}  // namespace graphd
