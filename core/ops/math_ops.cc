// Binary elementwise ops with numpy broadcasting, and MatMul. FloorMod's result takes
// the divisor's sign (Python's %), TruncateMod's the dividend's (C's fmod and %).
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"

namespace graphd {
namespace {

Status InferBinary(InferenceContext& c) {
  const TensorType& a = c.input(0);
  const TensorType& b = c.input(1);
  if (a.dtype != b.dtype) {
    return c.Error(absl::StrCat("inputs must have the same dtype, got ", DTypeName(a.dtype),
                                " and ", DTypeName(b.dtype)));
  }
  if (!IsNumeric(a.dtype)) {
    return c.Error(absl::StrCat("dtype ", DTypeName(a.dtype), " is not supported"));
  }
  auto shape = BroadcastShapes(a.shape, b.shape);
  if (!shape.ok()) return c.Error(shape.status().message());
  c.AddOutput(a.dtype, *shape);
  return absl::OkStatus();
}

Status InferMatMul(InferenceContext& c) {
  const TensorType& a = c.input(0);
  const TensorType& b = c.input(1);
  if (a.dtype != b.dtype) {
    return c.Error(absl::StrCat("inputs must have the same dtype, got ", DTypeName(a.dtype),
                                " and ", DTypeName(b.dtype)));
  }
  if (a.dtype != DType::kFloat32 && a.dtype != DType::kFloat64 && a.dtype != DType::kInt32 &&
      a.dtype != DType::kInt64) {
    return c.Error(absl::StrCat("dtype ", DTypeName(a.dtype), " is not supported"));
  }
  ASSIGN_OR_RETURN(bool ta, c.AttrOr<bool>("transpose_a", false));
  ASSIGN_OR_RETURN(bool tb, c.AttrOr<bool>("transpose_b", false));
  for (const TensorType* t : {&a, &b}) {
    if (t->shape.known_rank() && t->shape.rank() != 2) {
      return c.Error(absl::StrCat("inputs must be matrices, got shape ", t->shape.ToString()));
    }
  }
  int64_t m = kUnknownDim, k1 = kUnknownDim, k2 = kUnknownDim, n = kUnknownDim;
  if (a.shape.known_rank()) {
    m = a.shape.dim(ta ? 1 : 0);
    k1 = a.shape.dim(ta ? 0 : 1);
  }
  if (b.shape.known_rank()) {
    k2 = b.shape.dim(tb ? 1 : 0);
    n = b.shape.dim(tb ? 0 : 1);
  }
  if (k1 != kUnknownDim && k2 != kUnknownDim && k1 != k2) {
    return c.Error(absl::StrCat("inner dimensions differ: ", a.shape.ToString(), " x ",
                                b.shape.ToString(), ta ? " (a transposed)" : "",
                                tb ? " (b transposed)" : ""));
  }
  c.AddOutput(a.dtype, PartialShape(std::vector<int64_t>{m, n}));
  return absl::OkStatus();
}

}  // namespace

void RegisterMathOps(OpRegistry& r) {
  for (const char* name :
       {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "FloorDiv", "FloorMod", "TruncateMod",
        "Pow"}) {
    r.Register({.name = name, .num_inputs = 2, .infer = InferBinary});
  }
  r.Register({.name = "MatMul", .num_inputs = 2, .infer = InferMatMul});
}

}  // namespace graphd
