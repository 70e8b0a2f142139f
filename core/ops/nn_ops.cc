// Activations and softmax.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

namespace graphd {
namespace {

Status InferFloatUnary(InferenceContext& c) {
  DType d = c.input(0).dtype;
  if (d != DType::kFloat32 && d != DType::kFloat64) {
    return c.Error(absl::StrCat("dtype ", DTypeName(d), " is not supported (float32, float64)"));
  }
  c.AddOutput(d, c.input(0).shape);
  return absl::OkStatus();
}

Status InferSoftmax(InferenceContext& c) {
  if (c.input(0).shape.known_rank() && c.input(0).shape.rank() < 1) {
    return c.Error("input must have rank >= 1");
  }
  return InferFloatUnary(c);
}

}  // namespace

void RegisterNnOps(OpRegistry& r) {
  for (const char* name : {"Relu", "Sigmoid", "Tanh"}) {
    r.Register({.name = name, .num_inputs = 1, .infer = InferFloatUnary});
  }
  r.Register({.name = "Softmax", .num_inputs = 1, .infer = InferSoftmax});
}

}  // namespace graphd
