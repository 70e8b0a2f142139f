// Unary elementwise math: Abs, Neg, Sign, Square (float and int32/int64); Exp, Log,
// Sqrt, Rsqrt, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Erf,
// Round (half to even), Floor, Ceil, Reciprocal (float). IsNan and IsInf (float in,
// bool out); IsInf's bool attrs detect_positive / detect_negative (default true) pick
// which infinities count.
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

constexpr DType kSignedDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kInt32,
                                   DType::kInt64};

Status InferFloatMath(InferenceContext& c) {
  RETURN_IF_ERROR(ops::CheckDType(c, c.input(0).dtype, ops::kFloatDTypes, "input dtype"));
  c.AddOutput(c.input(0).dtype, c.input(0).shape);
  return absl::OkStatus();
}

Status InferSignedMath(InferenceContext& c) {
  RETURN_IF_ERROR(ops::CheckDType(c, c.input(0).dtype, kSignedDTypes, "input dtype"));
  c.AddOutput(c.input(0).dtype, c.input(0).shape);
  return absl::OkStatus();
}

Status InferFloatPredicate(InferenceContext& c) {
  RETURN_IF_ERROR(ops::CheckDType(c, c.input(0).dtype, ops::kFloatDTypes, "input dtype"));
  RETURN_IF_ERROR(c.AttrOr<bool>("detect_positive", true).status());
  RETURN_IF_ERROR(c.AttrOr<bool>("detect_negative", true).status());
  c.AddOutput(DType::kBool, c.input(0).shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterUnaryOps(OpRegistry& r) {
  for (const char* name : {"Abs", "Neg", "Sign", "Square"}) {
    r.Register({.name = name, .num_inputs = 1, .infer = InferSignedMath});
  }
  for (const char* name : {"Exp", "Log", "Sqrt", "Rsqrt", "Sin", "Cos", "Tan", "Asin", "Acos",
                           "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Round",
                           "Floor", "Ceil", "Reciprocal"}) {
    r.Register({.name = name, .num_inputs = 1, .infer = InferFloatMath});
  }
  r.Register({.name = "IsNan", .num_inputs = 1, .infer = InferFloatPredicate});
  r.Register({.name = "IsInf", .num_inputs = 1, .infer = InferFloatPredicate});
}

}  // namespace graphd
