// Parameterised elementwise activations (float32, float64; output = input type):
//   Elu(alpha=1)             x > 0 ? x : alpha * (exp(x) - 1)
//   Selu(alpha=1.6732632, gamma=1.0507010)   gamma * (x > 0 ? x : alpha * (exp(x) - 1))
//   Celu(alpha=1)            max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha != 0
//   LeakyRelu(alpha=0.2)     x >= 0 ? x : alpha * x   (TensorFlow's default alpha; ONNX
//                            importers pass ONNX's 0.01 explicitly)
//   HardSigmoid(alpha=0.2, beta=0.5)   max(0, min(1, alpha * x + beta))
//   HardSwish                x * max(0, min(1, x / 6 + 1 / 2))
//   ThresholdedRelu(alpha=1) x > alpha ? x : 0
//   Shrink(bias=0, lambd=0.5)  x < -lambd ? x + bias : x > lambd ? x - bias : 0; lambd >= 0
//   Softplus                 log(1 + exp(x))
//   Softsign                 x / (1 + |x|)
// Attributes are numbers (float or int). Selu's defaults are ONNX's (= TensorFlow's
// fixed constants).
// With tensor operands, each broadcastable to x's shape (which the output keeps):
//   PRelu(x, slope)          x >= 0 ? x : slope * x                 (float32, float64)
//   ClipByValue(x, lo, hi)   min(max(x, lo), hi), so hi wins when lo > hi (numbers)
// Hardmax(x; axis=-1): 1 at the first maximum along `axis`, 0 elsewhere (float32/64).
#include "core/ops/activation_ops.h"

#include "core/graph/op_registry.h"
#include "core/ops/all_ops.h"
#include "core/ops/op_util.h"

namespace graphd {
namespace {

struct NumberAttrSpec {
  const char* name;
  double fallback;
};

// Checks the input dtype and that every attribute in `attrs` is a finite number.
Status InferActivation(InferenceContext& c, std::initializer_list<NumberAttrSpec> attrs) {
  RETURN_IF_ERROR(ops::CheckDType(c, c.input(0).dtype, ops::kFloatDTypes, "input dtype"));
  for (const NumberAttrSpec& a : attrs) {
    ASSIGN_OR_RETURN(double v, ops::NumberAttr(c, a.name, a.fallback));
    if (!std::isfinite(v)) {
      return c.Error(absl::StrCat("attribute '", a.name, "' must be finite, got ", v));
    }
  }
  c.AddOutput(c.input(0).dtype, c.input(0).shape);
  return absl::OkStatus();
}

Status InferCelu(InferenceContext& c) {
  RETURN_IF_ERROR(InferActivation(c, {{"alpha", ops::kCeluAlpha}}));
  ASSIGN_OR_RETURN(double alpha, ops::NumberAttr(c, "alpha", ops::kCeluAlpha));
  if (alpha == 0) return c.Error("attribute 'alpha' must not be 0");
  return absl::OkStatus();
}

Status InferShrink(InferenceContext& c) {
  RETURN_IF_ERROR(InferActivation(c, {{"bias", ops::kShrinkBias}, {"lambd", ops::kShrinkLambd}}));
  ASSIGN_OR_RETURN(double lambd, ops::NumberAttr(c, "lambd", ops::kShrinkLambd));
  if (lambd < 0) return c.Error(absl::StrCat("attribute 'lambd' must be >= 0, got ", lambd));
  return absl::OkStatus();
}

// OK when `operand` broadcasts to `target` without changing it (ONNX's unidirectional
// broadcasting), as far as the known dims tell.
Status CheckBroadcastsTo(InferenceContext& c, const PartialShape& operand,
                         const PartialShape& target, absl::string_view what) {
  if (!operand.known_rank() || !target.known_rank()) return absl::OkStatus();
  auto error = [&] {
    return c.Error(absl::StrCat(what, " ", operand.ToString(), " does not broadcast to ",
                                target.ToString()));
  };
  if (operand.rank() > target.rank()) return error();
  for (int i = 0; i < operand.rank(); ++i) {
    int64_t d = operand.dim(i), t = target.dim(target.rank() - operand.rank() + i);
    if (d != kUnknownDim && d != 1 && t != kUnknownDim && d != t) return error();
  }
  return absl::OkStatus();
}

// PRelu(x, slope), ClipByValue(x, lo, hi): operands of x's dtype broadcasting to x.
Status InferBroadcastToFirst(InferenceContext& c, std::span<const DType> dtypes) {
  const TensorType& x = c.input(0);
  RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, dtypes, "input dtype"));
  for (int i = 1; i < c.num_inputs(); ++i) {
    if (c.input(i).dtype != x.dtype) {
      return c.Error(absl::StrCat("input ", i, " is ", DTypeName(c.input(i).dtype), " but x is ",
                                  DTypeName(x.dtype)));
    }
    RETURN_IF_ERROR(CheckBroadcastsTo(c, c.input(i).shape, x.shape, absl::StrCat("input ", i)));
  }
  c.AddOutput(x.dtype, x.shape);
  return absl::OkStatus();
}

Status InferHardmax(InferenceContext& c) {
  const TensorType& x = c.input(0);
  RETURN_IF_ERROR(ops::CheckDType(c, x.dtype, ops::kFloatDTypes, "input dtype"));
  ASSIGN_OR_RETURN(int64_t axis, c.AttrOr<int64_t>("axis", -1));
  if (x.shape.known_rank()) {
    if (x.shape.rank() == 0) return c.Error("input must have rank >= 1");
    RETURN_IF_ERROR(ops::CanonicalAxis(c, axis, x.shape.rank()).status());
  }
  c.AddOutput(x.dtype, x.shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterActivationOps(OpRegistry& r) {
  r.Register({.name = "Elu", .num_inputs = 1,
              .infer = [](InferenceContext& c) {
                return InferActivation(c, {{"alpha", ops::kEluAlpha}});
              }});
  r.Register({.name = "Selu", .num_inputs = 1, .infer = [](InferenceContext& c) {
                return InferActivation(c, {{"alpha", ops::kSeluAlpha}, {"gamma", ops::kSeluGamma}});
              }});
  r.Register({.name = "Celu", .num_inputs = 1, .infer = InferCelu});
  r.Register({.name = "LeakyRelu", .num_inputs = 1,
              .infer = [](InferenceContext& c) {
                return InferActivation(c, {{"alpha", ops::kLeakyReluAlpha}});
              }});
  r.Register({.name = "HardSigmoid", .num_inputs = 1, .infer = [](InferenceContext& c) {
                return InferActivation(
                    c, {{"alpha", ops::kHardSigmoidAlpha}, {"beta", ops::kHardSigmoidBeta}});
              }});
  r.Register({.name = "ThresholdedRelu", .num_inputs = 1, .infer = [](InferenceContext& c) {
                return InferActivation(c, {{"alpha", ops::kThresholdedReluAlpha}});
              }});
  r.Register({.name = "Shrink", .num_inputs = 1, .infer = InferShrink});
  r.Register({.name = "PRelu", .num_inputs = 2, .infer = [](InferenceContext& c) {
                return InferBroadcastToFirst(c, ops::kFloatDTypes);
              }});
  r.Register({.name = "ClipByValue", .num_inputs = 3, .infer = [](InferenceContext& c) {
                return InferBroadcastToFirst(c, ops::kNumberDTypes);
              }});
  r.Register({.name = "Hardmax", .num_inputs = 1, .infer = InferHardmax});
  for (const char* name : {"HardSwish", "Softplus", "Softsign"}) {
    r.Register({.name = name, .num_inputs = 1,
                .infer = [](InferenceContext& c) { return InferActivation(c, {}); }});
  }
}

}  // namespace graphd
