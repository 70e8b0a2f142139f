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

}  // namespace

void RegisterActivationOps(OpRegistry& r) {
  r.Register({.name = "Elu", .num_inputs = 1,
              .infer = [](InferenceContext& c) { return InferActivation(c, {{"alpha", ops::kEluAlpha}}); }});
  r.Register({.name = "Selu", .num_inputs = 1, .infer = [](InferenceContext& c) {
                return InferActivation(c, {{"alpha", ops::kSeluAlpha}, {"gamma", ops::kSeluGamma}});
              }});
  r.Register({.name = "Celu", .num_inputs = 1, .infer = InferCelu});
  r.Register({.name = "LeakyRelu", .num_inputs = 1,
              .infer = [](InferenceContext& c) { return InferActivation(c, {{"alpha", ops::kLeakyReluAlpha}}); }});
  r.Register({.name = "HardSigmoid", .num_inputs = 1, .infer = [](InferenceContext& c) {
                return InferActivation(c, {{"alpha", ops::kHardSigmoidAlpha}, {"beta", ops::kHardSigmoidBeta}});
              }});
  r.Register({.name = "ThresholdedRelu", .num_inputs = 1, .infer = [](InferenceContext& c) {
                return InferActivation(c, {{"alpha", ops::kThresholdedReluAlpha}});
              }});
  r.Register({.name = "Shrink", .num_inputs = 1, .infer = InferShrink});
  for (const char* name : {"HardSwish", "Softplus", "Softsign"}) {
    r.Register({.name = name, .num_inputs = 1,
                .infer = [](InferenceContext& c) { return InferActivation(c, {}); }});
  }
}

}  // namespace graphd
