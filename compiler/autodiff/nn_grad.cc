// Gradients of the activations and normalisations (core/ops/nn_ops.cc,
// activation_ops.cc): Relu, Relu6, Sigmoid, Tanh, Gelu, Elu, LeakyRelu, Softplus,
// Softsign, Softmax, LogSoftmax, BiasAdd, ClipByValue.
#include <cmath>
#include <numbers>

#include "compiler/autodiff/grad_util.h"

namespace graphd::compiler::autodiff {
namespace {

double NumberOr(const Node& n, absl::string_view name, double fallback) {
  auto it = n.attrs().find(name);
  if (it == n.attrs().end()) return fallback;
  if (const float* f = std::get_if<float>(&it->second)) return *f;
  if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return fallback;
}

using Fn = std::function<StatusOr<OutputRef>(GradBuilder& b, const Node& n, OutputRef x, OutputRef y, OutputRef dy)>;

void One(GradRegistry& r, const std::string& op, Fn fn) {
  r.Register(op, [fn](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef dx, fn(b, n, n.inputs()[0], OutputRef{&n, 0}, dy[0]));
    return GradOut{dx};
  });
}

// dy where `cmp(x, bound)` holds, else 0.
StatusOr<OutputRef> PassWhere(GradBuilder& b, const std::string& cmp, OutputRef x, double bound, OutputRef dy) {
  ASSIGN_OR_RETURN(OutputRef c, b.Scalar(TypeOf(x).dtype, bound));
  ASSIGN_OR_RETURN(OutputRef mask, b.Op(cmp, {x, c}));
  ASSIGN_OR_RETURN(OutputRef zero, b.ZerosLike(dy));
  return b.Op("SelectV2", {mask, dy, zero});
}

// 1 - t
StatusOr<OutputRef> OneMinus(GradBuilder& b, OutputRef t) {
  ASSIGN_OR_RETURN(OutputRef one, b.Scalar(TypeOf(t).dtype, 1.0));
  return b.Sub(one, t);
}

void RegisterActivations(GradRegistry& r) {
  One(r, "Relu", [](GradBuilder& b, const Node&, OutputRef x, OutputRef, OutputRef dy) {
    return PassWhere(b, "Greater", x, 0.0, dy);
  });
  One(r, "Relu6", [](GradBuilder& b, const Node&, OutputRef x, OutputRef, OutputRef dy) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef lo, PassWhere(b, "Greater", x, 0.0, dy));
    return PassWhere(b, "Less", x, 6.0, lo);
  });
  One(r, "Sigmoid", [](GradBuilder& b, const Node&, OutputRef, OutputRef y, OutputRef dy) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef om, OneMinus(b, y));
    ASSIGN_OR_RETURN(OutputRef d, b.Mul(y, om));
    return b.Mul(dy, d);
  });
  One(r, "Tanh", [](GradBuilder& b, const Node&, OutputRef, OutputRef y, OutputRef dy) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef y2, b.Op("Square", {y}));
    ASSIGN_OR_RETURN(OutputRef d, OneMinus(b, y2));
    return b.Mul(dy, d);
  });
  One(r, "Softplus", [](GradBuilder& b, const Node&, OutputRef x, OutputRef, OutputRef dy) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef s, b.Op("Sigmoid", {x}));
    return b.Mul(dy, s);
  });
  // 1 / (1 + |x|)^2
  One(r, "Softsign", [](GradBuilder& b, const Node&, OutputRef x, OutputRef, OutputRef dy) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef a, b.Op("Abs", {x}));
    ASSIGN_OR_RETURN(OutputRef one, b.Scalar(TypeOf(x).dtype, 1.0));
    ASSIGN_OR_RETURN(OutputRef s, b.Add(a, one));
    ASSIGN_OR_RETURN(OutputRef s2, b.Op("Square", {s}));
    return b.Div(dy, s2);
  });
  One(r, "LeakyRelu", [](GradBuilder& b, const Node& n, OutputRef x, OutputRef, OutputRef dy) -> StatusOr<OutputRef> {
    const double alpha = NumberOr(n, "alpha", 0.2);
    ASSIGN_OR_RETURN(OutputRef zero, b.Scalar(TypeOf(x).dtype, 0.0));
    ASSIGN_OR_RETURN(OutputRef pos, b.Op("Greater", {x, zero}));
    ASSIGN_OR_RETURN(OutputRef scaled, b.Scale(dy, alpha));
    return b.Op("SelectV2", {pos, dy, scaled});
  });
  // x > 0: dy; else dy * (y + alpha)  (y = alpha * (exp(x) - 1))
  One(r, "Elu", [](GradBuilder& b, const Node& n, OutputRef x, OutputRef y, OutputRef dy) -> StatusOr<OutputRef> {
    const double alpha = NumberOr(n, "alpha", 1.0);
    ASSIGN_OR_RETURN(OutputRef zero, b.Scalar(TypeOf(x).dtype, 0.0));
    ASSIGN_OR_RETURN(OutputRef pos, b.Op("Greater", {x, zero}));
    ASSIGN_OR_RETURN(OutputRef a, b.Scalar(TypeOf(x).dtype, alpha));
    ASSIGN_OR_RETURN(OutputRef ya, b.Add(y, a));
    ASSIGN_OR_RETURN(OutputRef neg, b.Mul(dy, ya));
    return b.Op("SelectV2", {pos, dy, neg});
  });
  One(r, "Gelu", [](GradBuilder& b, const Node& n, OutputRef x, OutputRef, OutputRef dy) -> StatusOr<OutputRef> {
    const DType dt = TypeOf(x).dtype;
    if (AttrOr<bool>(n, "approximate", false)) {
      // y = 0.5 x (1 + tanh(u)), u = c (x + 0.044715 x^3), c = sqrt(2/pi)
      const double c = std::sqrt(2.0 / std::numbers::pi);
      ASSIGN_OR_RETURN(OutputRef x2, b.Op("Square", {x}));
      ASSIGN_OR_RETURN(OutputRef x3, b.Mul(x2, x));
      ASSIGN_OR_RETURN(OutputRef k3, b.Scale(x3, 0.044715));
      ASSIGN_OR_RETURN(OutputRef inner, b.Add(x, k3));
      ASSIGN_OR_RETURN(OutputRef u, b.Scale(inner, c));
      ASSIGN_OR_RETURN(OutputRef t, b.Op("Tanh", {u}));
      ASSIGN_OR_RETURN(OutputRef one, b.Scalar(dt, 1.0));
      ASSIGN_OR_RETURN(OutputRef opt, b.Add(one, t));
      ASSIGN_OR_RETURN(OutputRef left, b.Scale(opt, 0.5));
      // 0.5 x (1 - t^2) c (1 + 3 * 0.044715 x^2)
      ASSIGN_OR_RETURN(OutputRef t2, b.Op("Square", {t}));
      ASSIGN_OR_RETURN(OutputRef sech2, OneMinus(b, t2));
      ASSIGN_OR_RETURN(OutputRef k2, b.Scale(x2, 3 * 0.044715));
      ASSIGN_OR_RETURN(OutputRef du, b.Add(one, k2));
      ASSIGN_OR_RETURN(OutputRef du_c, b.Scale(du, 0.5 * c));
      ASSIGN_OR_RETURN(OutputRef xs, b.Mul(x, sech2));
      ASSIGN_OR_RETURN(OutputRef right, b.Mul(xs, du_c));
      ASSIGN_OR_RETURN(OutputRef d, b.Add(left, right));
      return b.Mul(dy, d);
    }
    // Phi(x) + x phi(x): 0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi)
    ASSIGN_OR_RETURN(OutputRef xs, b.Scale(x, 1.0 / std::sqrt(2.0)));
    ASSIGN_OR_RETURN(OutputRef e, b.Op("Erf", {xs}));
    ASSIGN_OR_RETURN(OutputRef one, b.Scalar(dt, 1.0));
    ASSIGN_OR_RETURN(OutputRef ope, b.Add(one, e));
    ASSIGN_OR_RETURN(OutputRef cdf, b.Scale(ope, 0.5));
    ASSIGN_OR_RETURN(OutputRef x2, b.Op("Square", {x}));
    ASSIGN_OR_RETURN(OutputRef nh, b.Scale(x2, -0.5));
    ASSIGN_OR_RETURN(OutputRef ex, b.Op("Exp", {nh}));
    ASSIGN_OR_RETURN(OutputRef pdf, b.Scale(ex, 1.0 / std::sqrt(2.0 * std::numbers::pi)));
    ASSIGN_OR_RETURN(OutputRef xp, b.Mul(x, pdf));
    ASSIGN_OR_RETURN(OutputRef d, b.Add(cdf, xp));
    return b.Mul(dy, d);
  });
  r.Register("ClipByValue", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    const OutputRef x = n.inputs()[0], lo = n.inputs()[1], hi = n.inputs()[2];
    ASSIGN_OR_RETURN(OutputRef zero, b.ZerosLike(dy[0]));
    ASSIGN_OR_RETURN(OutputRef below, b.Op("Less", {x, lo}));
    ASSIGN_OR_RETURN(OutputRef above, b.Op("Greater", {x, hi}));
    ASSIGN_OR_RETURN(OutputRef out, b.Op("LogicalOr", {below, above}));
    ASSIGN_OR_RETURN(OutputRef gx, b.Op("SelectV2", {out, zero, dy[0]}));
    ASSIGN_OR_RETURN(OutputRef glo, b.Op("SelectV2", {below, dy[0], zero}));
    ASSIGN_OR_RETURN(OutputRef ghi, b.Op("SelectV2", {above, dy[0], zero}));
    ASSIGN_OR_RETURN(OutputRef rlo, b.SumToOperand(glo, lo));
    ASSIGN_OR_RETURN(OutputRef rhi, b.SumToOperand(ghi, hi));
    return GradOut{gx, rlo, rhi};
  });
}

void RegisterSoftmaxAndBias(GradRegistry& r) {
  // (dy - sum(dy * y)) * y over the last axis.
  One(r, "Softmax", [](GradBuilder& b, const Node&, OutputRef, OutputRef y, OutputRef dy) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef p, b.Mul(dy, y));
    ASSIGN_OR_RETURN(OutputRef s, b.Sum(p, {-1}, true));
    ASSIGN_OR_RETURN(OutputRef d, b.Sub(dy, s));
    return b.Mul(d, y);
  });
  // dy - exp(y) * sum(dy) over the last axis.
  One(r, "LogSoftmax", [](GradBuilder& b, const Node&, OutputRef, OutputRef y, OutputRef dy) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef s, b.Sum(dy, {-1}, true));
    ASSIGN_OR_RETURN(OutputRef e, b.Op("Exp", {y}));
    ASSIGN_OR_RETURN(OutputRef es, b.Mul(e, s));
    return b.Sub(dy, es);
  });
  r.Register("BiasAdd", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(PartialShape s, RankedShape(n, 0));
    const int channel = AttrOr<std::string>(n, "data_format", "NHWC") == "NCHW" ? 1 : s.rank() - 1;
    IntList axes;
    for (int i = 0; i < s.rank(); ++i) {
      if (i != channel) axes.push_back(i);
    }
    ASSIGN_OR_RETURN(OutputRef db, b.Sum(dy[0], axes, false));
    return GradOut{dy[0], db};
  });
}

}  // namespace

void RegisterNnGrads(GradRegistry& r) {
  RegisterActivations(r);
  RegisterSoftmaxAndBias(r);
}

}  // namespace graphd::compiler::autodiff
