// Comparisons (numpy broadcasting, bool results) and logical ops on bool tensors.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

namespace graphd {
namespace {

Status InferComparison(InferenceContext& c) {
  const TensorType& a = c.input(0);
  const TensorType& b = c.input(1);
  if (a.dtype != b.dtype) {
    return c.Error(absl::StrCat("inputs must have the same dtype, got ", DTypeName(a.dtype),
                                " and ", DTypeName(b.dtype)));
  }
  if (!IsNumeric(a.dtype) && a.dtype != DType::kBool && a.dtype != DType::kString) {
    return c.Error(absl::StrCat("dtype ", DTypeName(a.dtype), " cannot be compared"));
  }
  auto shape = BroadcastShapes(a.shape, b.shape);
  if (!shape.ok()) return c.Error(shape.status().message());
  c.AddOutput(DType::kBool, *shape);
  return absl::OkStatus();
}

Status InferLogicalBinary(InferenceContext& c) {
  if (c.input(0).dtype != DType::kBool || c.input(1).dtype != DType::kBool) {
    return c.Error(absl::StrCat("inputs must be bool, got ", DTypeName(c.input(0).dtype), " and ",
                                DTypeName(c.input(1).dtype)));
  }
  auto shape = BroadcastShapes(c.input(0).shape, c.input(1).shape);
  if (!shape.ok()) return c.Error(shape.status().message());
  c.AddOutput(DType::kBool, *shape);
  return absl::OkStatus();
}

Status InferLogicalNot(InferenceContext& c) {
  if (c.input(0).dtype != DType::kBool) {
    return c.Error(absl::StrCat("input must be bool, got ", DTypeName(c.input(0).dtype)));
  }
  c.AddOutput(DType::kBool, c.input(0).shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterLogicOps(OpRegistry& r) {
  for (const char* name : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"}) {
    r.Register({.name = name, .num_inputs = 2, .infer = InferComparison});
  }
  r.Register({.name = "LogicalAnd", .num_inputs = 2, .infer = InferLogicalBinary});
  r.Register({.name = "LogicalOr", .num_inputs = 2, .infer = InferLogicalBinary});
  r.Register({.name = "LogicalNot", .num_inputs = 1, .infer = InferLogicalNot});
}

}  // namespace graphd
