// Normalisations (float32, float64; all operands of x's dtype):
//   LayerNormalization(x, scale[, bias]; axis=-1, epsilon=1e-5) -> (y, mean, inv_std_dev):
//     over the dims [axis, rank) of x, y = (x - mean) * inv_std_dev * scale + bias with
//     inv_std_dev = 1 / sqrt(variance + epsilon) (population variance). scale and bias
//     broadcast to x.shape[axis:]. mean and inv_std_dev have shape x.shape[:axis] followed
//     by ones (as ONNX; in x's dtype, where ONNX opset 17 would stash float32).
//   InstanceNormalization(x, scale, bias; epsilon=1e-5): x is [N, C, spatial...]
//     (rank >= 3); each (n, c) plane is normalised over its spatial dims, then scaled
//     and shifted by scale[c], bias[c] (vectors of C).
//   LRN(x; depth_radius=5, bias=1, alpha=1, beta=0.5, data_format=NHWC|NCHW): TensorFlow's
//     local response normalisation of a rank-4 tensor across channels:
//     y = x / (bias + alpha * sum(x[c'] ^ 2 for |c' - c| <= depth_radius)) ^ beta.
//     (ONNX's LRN(size) is depth_radius = (size - 1) / 2, alpha = alpha_onnx / size, for
//     odd size.)
#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

Status CheckEpsilon(InferenceContext& c) {
  ASSIGN_OR_RETURN(double eps, ops::NumberAttr(c, "epsilon", 1e-5));
  if (!(eps >= 0) || !std::isfinite(eps)) {
    return c.Error(absl::StrCat("epsilon must be finite and >= 0, got ", eps));
  }
  return absl::OkStatus();
}

Status CheckOperand(InferenceContext& c, int i, const TensorType& x) {
  if (c.input(i).dtype != x.dtype) {
    return c.Error(absl::StrCat("input ", i, " is ", DTypeName(c.input(i).dtype), " but x is ",
                                DTypeName(x.dtype)));
  }
  return absl::OkStatus();
}

Status InferLayerNorm(InferenceContext& c) {
  const TensorType& x = c.input(0);
  if (c.num_inputs() > 3) {
    return c.Error(absl::StrCat("expected 2 or 3 inputs (x, scale, bias), got ", c.num_inputs()));
  }
  RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, ops::kFloatDTypes, "input dtype"));
  RETURN_IF_ERROR(CheckEpsilon(c));
  ASSIGN_OR_RETURN(int64_t axis_attr, c.AttrOr<int64_t>("axis", -1));
  for (int i = 1; i < c.num_inputs(); ++i) RETURN_IF_ERROR(CheckOperand(c, i, x));
  if (!x.shape.known_rank()) {
    for (int i = 0; i < 3; ++i) c.AddOutput(x.dtype, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  const int rank = x.shape.rank();
  if (rank == 0) return c.Error("input must have rank >= 1");
  ASSIGN_OR_RETURN(int axis, ops::CanonicalAxis(c, axis_attr, rank));
  const PartialShape normalized(
      std::vector<int64_t>(x.shape.dims().begin() + axis, x.shape.dims().end()));
  for (int i = 1; i < c.num_inputs(); ++i) {
    const PartialShape& s = c.input(i).shape;
    if (!s.known_rank()) continue;
    bool ok = s.rank() <= normalized.rank();
    for (int d = 0; ok && d < s.rank(); ++d) {
      int64_t v = s.dim(d), t = normalized.dim(normalized.rank() - s.rank() + d);
      ok = v == kUnknownDim || v == 1 || t == kUnknownDim || v == t;
    }
    if (!ok) {
      return c.Error(absl::StrCat(i == 1 ? "scale " : "bias ", s.ToString(),
                                  " does not broadcast to the normalized shape ",
                                  normalized.ToString()));
    }
  }
  std::vector<int64_t> stats(x.shape.dims().begin(), x.shape.dims().begin() + axis);
  stats.resize(rank, 1);
  c.AddOutput(x.dtype, x.shape);
  c.AddOutput(x.dtype, PartialShape(stats));
  c.AddOutput(x.dtype, PartialShape(stats));
  return absl::OkStatus();
}

Status InferInstanceNorm(InferenceContext& c) {
  const TensorType& x = c.input(0);
  RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, ops::kFloatDTypes, "input dtype"));
  RETURN_IF_ERROR(CheckEpsilon(c));
  for (int i = 1; i < 3; ++i) RETURN_IF_ERROR(CheckOperand(c, i, x));
  if (x.shape.known_rank() && x.shape.rank() < 3) {
    return c.Error(absl::StrCat("input must have rank >= 3 (N, C, spatial...), got shape ",
                                x.shape.ToString()));
  }
  const int64_t channels = x.shape.known_rank() ? x.shape.dim(1) : kUnknownDim;
  for (int i = 1; i < 3; ++i) {
    const PartialShape& s = c.input(i).shape;
    if (!s.known_rank()) continue;
    if (s.rank() != 1 ||
        (channels != kUnknownDim && s.dim(0) != kUnknownDim && s.dim(0) != channels)) {
      return c.Error(absl::StrCat(i == 1 ? "scale " : "bias ", s.ToString(),
                                  " must be a vector of the ", channels, " channels"));
    }
  }
  c.AddOutput(x.dtype, x.shape);
  return absl::OkStatus();
}

Status InferLrn(InferenceContext& c) {
  const TensorType& x = c.input(0);
  RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, ops::kFloatDTypes, "input dtype"));
  ASSIGN_OR_RETURN(int64_t radius, c.AttrOr<int64_t>("depth_radius", 5));
  if (radius < 0) return c.Error(absl::StrCat("depth_radius must be >= 0, got ", radius));
  for (const char* name : {"bias", "alpha", "beta"}) {
    ASSIGN_OR_RETURN(double v, ops::NumberAttr(c, name, 1.0));
    if (!std::isfinite(v)) return c.Error(absl::StrCat("attribute '", name, "' must be finite"));
  }
  RETURN_IF_ERROR(ops::EnumAttr(c, "data_format", {"NHWC", "NCHW"}, "NHWC").status());
  if (x.shape.known_rank() && x.shape.rank() != 4) {
    return c.Error(absl::StrCat("input must have rank 4, got shape ", x.shape.ToString()));
  }
  c.AddOutput(x.dtype, x.shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterNormOps(OpRegistry& r) {
  r.Register({.name = "LayerNormalization",
              .num_inputs = OpDef::kVariadic,
              .min_inputs = 2,
              .infer = InferLayerNorm});
  r.Register({.name = "InstanceNormalization", .num_inputs = 3, .infer = InferInstanceNorm});
  r.Register({.name = "LRN", .num_inputs = 1, .infer = InferLrn});
}

}  // namespace graphd
