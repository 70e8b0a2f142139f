// Binary elementwise ops with numpy broadcasting, and MatMul. FloorMod's result takes
// the divisor's sign (Python's %), TruncateMod's the dividend's (C's fmod and %).
//
// MatMul(a, b[, bias]): a [m, k] (transpose_a: stored [k, m]) times b [k, n]
// (transpose_b: stored [n, k]). Attributes the matmul_fusion pass sets
// (compiler/passes/matmul_fusion.h), float32/float64 only: a bias input ([n] or
// [1, n], added to every row), `activation` ("Relu", or "Clip" to [clip_min,
// clip_max]) applied after the bias, and `constant_weights` (b comes from a Const, so
// a kernel may keep a reordered copy of it).
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

// The optional bias input and fused activation of a MatMul with `n` columns.
Status CheckMatMulEpilogue(InferenceContext& c, int64_t n) {
  if (c.num_inputs() > 3) return c.Error(absl::StrCat("expected 2 or 3 inputs, got ", c.num_inputs()));
  const DType dtype = c.input(0).dtype;
  ASSIGN_OR_RETURN(std::string activation, c.AttrOr<std::string>("activation", ""));
  const bool fused = c.num_inputs() == 3 || !activation.empty();
  if (fused && dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return c.Error(absl::StrCat("a bias or activation needs float32 or float64, got ", DTypeName(dtype)));
  }
  if (c.num_inputs() == 3) {
    const TensorType& bias = c.input(2);
    if (bias.dtype != dtype) {
      return c.Error(absl::StrCat("bias must be ", DTypeName(dtype), ", got ", DTypeName(bias.dtype)));
    }
    const PartialShape& bs = bias.shape;
    const bool row = bs.known_rank() && (bs.rank() == 1 || (bs.rank() == 2 && bs.dim(0) == 1));
    const int64_t bn = row ? bs.dim(bs.rank() - 1) : kUnknownDim;
    if (!row || (bn != kUnknownDim && n != kUnknownDim && bn != n)) {
      return c.Error(absl::StrCat("bias must have shape [", n == kUnknownDim ? "n" : absl::StrCat(n), "] or [1, ",
                                  n == kUnknownDim ? "n" : absl::StrCat(n), "], got ", bs.ToString()));
    }
  }
  if (activation == "Clip") {
    ASSIGN_OR_RETURN(float lo, c.Attr<float>("clip_min"));
    ASSIGN_OR_RETURN(float hi, c.Attr<float>("clip_max"));
    if (!(lo <= hi)) return c.Error(absl::StrCat("clip_min ", lo, " exceeds clip_max ", hi));
  } else if (!activation.empty() && activation != "Relu" && activation != "Gelu") {
    return c.Error(absl::StrCat("unknown activation '", activation, "' (Relu, Clip, Gelu)"));
  }
  return c.AttrOr<bool>("constant_weights", false).status();
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
  RETURN_IF_ERROR(CheckMatMulEpilogue(c, n));
  c.AddOutput(a.dtype, PartialShape(std::vector<int64_t>{m, n}));
  return absl::OkStatus();
}

}  // namespace

// FusedElementwise (fused_elementwise_ops.cc), registered with the binary math ops.
void RegisterFusedElementwiseOps(OpRegistry& r);

void RegisterMathOps(OpRegistry& r) {
  RegisterFusedElementwiseOps(r);
  for (const char* name :
       {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "FloorDiv", "FloorMod", "TruncateMod",
        "Pow"}) {
    r.Register({.name = name, .num_inputs = 2, .infer = InferBinary});
  }
  r.Register({.name = "MatMul", .num_inputs = OpDef::kVariadic, .min_inputs = 2, .infer = InferMatMul});
}

}  // namespace graphd
