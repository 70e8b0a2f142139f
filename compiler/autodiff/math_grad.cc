// Gradients of the math families: binary arithmetic (core/ops/math_ops.cc), unary
// math (unary_ops.cc), MatMul / BatchMatMulV2 (linalg_ops.cc), reductions
// (reduction_ops.cc), and the comparisons and logic ops that take none.
#include <cmath>
#include <numbers>

#include "absl/strings/str_cat.h"
#include "compiler/autodiff/grad_util.h"

namespace graphd::compiler::autodiff {
namespace {

// The two operands' gradients reduced to their shapes.
StatusOr<GradOut> Both(GradBuilder& b, const Node& n, OutputRef gx, OutputRef gy) {
  ASSIGN_OR_RETURN(OutputRef rx, b.SumToOperand(gx, n.inputs()[0]));
  ASSIGN_OR_RETURN(OutputRef ry, b.SumToOperand(gy, n.inputs()[1]));
  return GradOut{rx, ry};
}

// dx = dy * f(x, y) for the unary op's input x and output y.
using UnaryRule = std::function<StatusOr<OutputRef>(GradBuilder& b, OutputRef x, OutputRef y, OutputRef dy)>;

void Unary(GradRegistry& r, const std::string& op, UnaryRule rule) {
  r.Register(op, [rule](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef dx, rule(b, n.inputs()[0], OutputRef{&n, 0}, dy[0]));
    return GradOut{dx};
  });
}

// dy * f where f is built from x and y.
UnaryRule Times(std::function<StatusOr<OutputRef>(GradBuilder&, OutputRef x, OutputRef y)> f) {
  return [f](GradBuilder& b, OutputRef x, OutputRef y, OutputRef dy) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef k, f(b, x, y));
    return b.Mul(dy, k);
  };
}

// `op`(sign * x^2 + c): Rsqrt or Reciprocal of it.
StatusOr<OutputRef> OfSquarePlus(GradBuilder& b, const char* op, OutputRef x, double sign, double c) {
  ASSIGN_OR_RETURN(OutputRef x2, b.Op("Square", {x}));
  ASSIGN_OR_RETURN(OutputRef s, b.Scale(x2, sign));
  ASSIGN_OR_RETURN(OutputRef cc, b.Scalar(TypeOf(x).dtype, c));
  ASSIGN_OR_RETURN(OutputRef sum, b.Add(s, cc));
  return b.Op(op, {sum});
}
StatusOr<OutputRef> RsqrtOf(GradBuilder& b, OutputRef x, double sign, double c) {
  return OfSquarePlus(b, "Rsqrt", x, sign, c);
}
StatusOr<OutputRef> ReciprocalOf(GradBuilder& b, OutputRef x, double sign, double c) {
  return OfSquarePlus(b, "Reciprocal", x, sign, c);
}

void RegisterUnary(GradRegistry& r) {
  Unary(r, "Neg", [](GradBuilder& b, OutputRef, OutputRef, OutputRef dy) { return b.Neg(dy); });
  Unary(r, "Abs", Times([](GradBuilder& b, OutputRef x, OutputRef) { return b.Op("Sign", {x}); }));
  Unary(r, "Square", Times([](GradBuilder& b, OutputRef x, OutputRef) { return b.Scale(x, 2.0); }));
  Unary(r, "Exp", Times([](GradBuilder&, OutputRef, OutputRef y) -> StatusOr<OutputRef> { return y; }));
  Unary(r, "Log", [](GradBuilder& b, OutputRef x, OutputRef, OutputRef dy) { return b.Div(dy, x); });
  Unary(r, "Sqrt", [](GradBuilder& b, OutputRef, OutputRef y, OutputRef dy) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef h, b.Scale(dy, 0.5));
    return b.Div(h, y);
  });
  Unary(r, "Rsqrt", Times([](GradBuilder& b, OutputRef, OutputRef y) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef y2, b.Op("Square", {y}));
    ASSIGN_OR_RETURN(OutputRef y3, b.Mul(y2, y));
    return b.Scale(y3, -0.5);
  }));
  Unary(r, "Reciprocal", Times([](GradBuilder& b, OutputRef, OutputRef y) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef y2, b.Op("Square", {y}));
    return b.Neg(y2);
  }));
  Unary(r, "Sin", Times([](GradBuilder& b, OutputRef x, OutputRef) { return b.Op("Cos", {x}); }));
  Unary(r, "Cos", Times([](GradBuilder& b, OutputRef x, OutputRef) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef s, b.Op("Sin", {x}));
    return b.Neg(s);
  }));
  Unary(r, "Tan", Times([](GradBuilder& b, OutputRef, OutputRef y) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef y2, b.Op("Square", {y}));
    ASSIGN_OR_RETURN(OutputRef one, b.Scalar(TypeOf(y).dtype, 1.0));
    return b.Add(y2, one);
  }));
  Unary(r, "Asin", Times([](GradBuilder& b, OutputRef x, OutputRef) { return RsqrtOf(b, x, -1.0, 1.0); }));
  Unary(r, "Acos", Times([](GradBuilder& b, OutputRef x, OutputRef) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef k, RsqrtOf(b, x, -1.0, 1.0));
    return b.Neg(k);
  }));
  Unary(r, "Atan", Times([](GradBuilder& b, OutputRef x, OutputRef) { return ReciprocalOf(b, x, 1.0, 1.0); }));
  Unary(r, "Sinh", Times([](GradBuilder& b, OutputRef x, OutputRef) { return b.Op("Cosh", {x}); }));
  Unary(r, "Cosh", Times([](GradBuilder& b, OutputRef x, OutputRef) { return b.Op("Sinh", {x}); }));
  Unary(r, "Asinh", Times([](GradBuilder& b, OutputRef x, OutputRef) { return RsqrtOf(b, x, 1.0, 1.0); }));
  Unary(r, "Acosh", Times([](GradBuilder& b, OutputRef x, OutputRef) { return RsqrtOf(b, x, 1.0, -1.0); }));
  Unary(r, "Atanh", Times([](GradBuilder& b, OutputRef x, OutputRef) { return ReciprocalOf(b, x, -1.0, 1.0); }));
  Unary(r, "Erf", Times([](GradBuilder& b, OutputRef x, OutputRef) -> StatusOr<OutputRef> {
    ASSIGN_OR_RETURN(OutputRef x2, b.Op("Square", {x}));
    ASSIGN_OR_RETURN(OutputRef nx2, b.Neg(x2));
    ASSIGN_OR_RETURN(OutputRef e, b.Op("Exp", {nx2}));
    return b.Scale(e, 2.0 / std::sqrt(std::numbers::pi));
  }));
  // Sign, Round, Floor and Ceil are flat almost everywhere: TensorFlow gives Sign a
  // zero gradient and the rounding ops none.
  Unary(r, "Sign", [](GradBuilder& b, OutputRef x, OutputRef, OutputRef) { return b.ZerosLike(x); });
  for (const char* op : {"Round", "Floor", "Ceil"}) r.RegisterNonDifferentiable(op);
}

void RegisterBinary(GradRegistry& r) {
  r.Register("Add", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) {
    return Both(b, n, dy[0], dy[0]);
  });
  r.Register("Sub", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef neg, b.Neg(dy[0]));
    return Both(b, n, dy[0], neg);
  });
  r.Register("Mul", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef gx, b.Mul(dy[0], n.inputs()[1]));
    ASSIGN_OR_RETURN(OutputRef gy, b.Mul(n.inputs()[0], dy[0]));
    return Both(b, n, gx, gy);
  });
  r.Register("Div", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    const OutputRef x = n.inputs()[0], y = n.inputs()[1];
    ASSIGN_OR_RETURN(OutputRef gx, b.Div(dy[0], y));
    // -dy * x / y / y
    ASSIGN_OR_RETURN(OutputRef nx, b.Neg(x));
    ASSIGN_OR_RETURN(OutputRef q1, b.Div(nx, y));
    ASSIGN_OR_RETURN(OutputRef q2, b.Div(q1, y));
    ASSIGN_OR_RETURN(OutputRef gy, b.Mul(dy[0], q2));
    return Both(b, n, gx, gy);
  });
  // The gradient goes to x where x >= y (Maximum) or x <= y (Minimum), else to y.
  for (const char* op : {"Maximum", "Minimum"}) {
    const std::string cmp = std::string(op) == "Maximum" ? "GreaterEqual" : "LessEqual";
    r.Register(op, [cmp](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
      ASSIGN_OR_RETURN(OutputRef mask, b.Op(cmp, {n.inputs()[0], n.inputs()[1]}));
      ASSIGN_OR_RETURN(OutputRef zero, b.ZerosLike(dy[0]));
      ASSIGN_OR_RETURN(OutputRef gx, b.Op("SelectV2", {mask, dy[0], zero}));
      ASSIGN_OR_RETURN(OutputRef gy, b.Op("SelectV2", {mask, zero, dy[0]}));
      return Both(b, n, gx, gy);
    });
  }
  r.Register("Pow", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    const OutputRef x = n.inputs()[0], y = n.inputs()[1], z{&n, 0};
    if (!IsFloating(TypeOf(x).dtype)) return GradOut{std::nullopt, std::nullopt};
    // dx = dy * y * x^(y - 1)
    ASSIGN_OR_RETURN(OutputRef one, b.Scalar(TypeOf(y).dtype, 1.0));
    ASSIGN_OR_RETURN(OutputRef ym1, b.Sub(y, one));
    ASSIGN_OR_RETURN(OutputRef p, b.Op("Pow", {x, ym1}));
    ASSIGN_OR_RETURN(OutputRef yp, b.Mul(y, p));
    ASSIGN_OR_RETURN(OutputRef gx, b.Mul(dy[0], yp));
    // dy_y = dy * z * log(x) where x > 0, else 0 (TensorFlow's choice).
    ASSIGN_OR_RETURN(OutputRef zero, b.ZerosLike(x));
    ASSIGN_OR_RETURN(OutputRef pos, b.Op("Greater", {x, zero}));
    ASSIGN_OR_RETURN(OutputRef ones, b.Op("OnesLike", {x}));
    ASSIGN_OR_RETURN(OutputRef safe, b.Op("SelectV2", {pos, x, ones}));
    ASSIGN_OR_RETURN(OutputRef lg, b.Op("Log", {safe}));
    ASSIGN_OR_RETURN(OutputRef lx, b.Op("SelectV2", {pos, lg, zero}));
    ASSIGN_OR_RETURN(OutputRef zl, b.Mul(z, lx));
    ASSIGN_OR_RETURN(OutputRef gy, b.Mul(dy[0], zl));
    return Both(b, n, gx, gy);
  });
  // x - floor(x / y) * y
  r.Register("FloorMod", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef q, b.Div(n.inputs()[0], n.inputs()[1]));
    ASSIGN_OR_RETURN(OutputRef fq, b.Op("Floor", {q}));
    ASSIGN_OR_RETURN(OutputRef nfq, b.Neg(fq));
    ASSIGN_OR_RETURN(OutputRef gy, b.Mul(dy[0], nfq));
    return Both(b, n, dy[0], gy);
  });
  r.RegisterNonDifferentiable("FloorDiv");
  for (const char* op : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
                         "LogicalOr", "LogicalNot", "IsNan", "IsInf", "Any", "All", "ArgMax", "ArgMin"}) {
    r.RegisterNonDifferentiable(op);
  }
}

// a @ b with each operand optionally transposed (adjoint for BatchMatMulV2).
StatusOr<OutputRef> Product(GradBuilder& b, bool batch, OutputRef x, bool tx, OutputRef y, bool ty) {
  if (batch) return b.Op("BatchMatMulV2", {x, y}, {{"adj_x", tx}, {"adj_y", ty}});
  return b.Op("MatMul", {x, y}, {{"transpose_a", tx}, {"transpose_b", ty}});
}

StatusOr<GradOut> MatMulGrad(GradBuilder& b, const Node& n, OutputRef dy, bool batch) {
  if (n.inputs().size() != 2 || !AttrOr<std::string>(n, "activation", "").empty()) {
    return errors::Unimplemented("the gradient of a fused MatMul (bias or activation) is not defined; "
                                 "differentiate before fusion");
  }
  const bool ta = AttrOr<bool>(n, batch ? "adj_x" : "transpose_a", false);
  const bool tb = AttrOr<bool>(n, batch ? "adj_y" : "transpose_b", false);
  const OutputRef a = n.inputs()[0], c = n.inputs()[1];
  OutputRef ga, gb;
  if (!ta && !tb) {
    ASSIGN_OR_RETURN(ga, Product(b, batch, dy, false, c, true));
    ASSIGN_OR_RETURN(gb, Product(b, batch, a, true, dy, false));
  } else if (!ta && tb) {
    ASSIGN_OR_RETURN(ga, Product(b, batch, dy, false, c, false));
    ASSIGN_OR_RETURN(gb, Product(b, batch, dy, true, a, false));
  } else if (ta && !tb) {
    ASSIGN_OR_RETURN(ga, Product(b, batch, c, false, dy, true));
    ASSIGN_OR_RETURN(gb, Product(b, batch, a, false, dy, false));
  } else {
    ASSIGN_OR_RETURN(ga, Product(b, batch, c, true, dy, true));
    ASSIGN_OR_RETURN(gb, Product(b, batch, dy, true, a, true));
  }
  if (!batch) return GradOut{ga, gb};
  return Both(b, n, ga, gb);  // batch dimensions broadcast
}

void RegisterLinalg(GradRegistry& r) {
  r.Register("MatMul", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) {
    return MatMulGrad(b, n, dy[0], false);
  });
  r.Register("BatchMatMulV2", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) {
    return MatMulGrad(b, n, dy[0], true);
  });
}

void RegisterReductions(GradRegistry& r) {
  r.Register("Sum", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef g, BroadcastReduced(b, n, dy[0]));
    return GradOut{g};
  });
  r.Register("Mean", [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
    ASSIGN_OR_RETURN(OutputRef g, BroadcastReduced(b, n, dy[0]));
    auto count = ReducedCount(n);
    if (count.ok()) {
      ASSIGN_OR_RETURN(OutputRef scaled, b.Scale(g, *count == 0 ? 0.0 : 1.0 / static_cast<double>(*count)));
      return GradOut{scaled};
    }
    // Dimensions known at run time only: count = size(x) / max(size(y), 1).
    const DType dt = TypeOf(dy[0]).dtype;
    ASSIGN_OR_RETURN(OutputRef in_size, b.Op("Size", {n.inputs()[0]}, {{"out_type", DType::kInt64}}));
    ASSIGN_OR_RETURN(OutputRef out_size, b.Op("Size", {OutputRef{&n, 0}}, {{"out_type", DType::kInt64}}));
    ASSIGN_OR_RETURN(OutputRef in_f, b.Cast(in_size, dt));
    ASSIGN_OR_RETURN(OutputRef out_f, b.Cast(out_size, dt));
    ASSIGN_OR_RETURN(OutputRef one, b.Scalar(dt, 1.0));
    ASSIGN_OR_RETURN(OutputRef denom, b.Op("Maximum", {out_f, one}));
    ASSIGN_OR_RETURN(OutputRef cnt, b.Div(in_f, denom));
    ASSIGN_OR_RETURN(OutputRef scaled, b.Div(g, cnt));
    return GradOut{scaled};
  });
  // Shared equally among the elements equal to the extreme (TensorFlow's rule).
  for (const char* op : {"Max", "Min"}) {
    r.Register(op, [](GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy) -> StatusOr<GradOut> {
      const OutputRef x = n.inputs()[0];
      ASSIGN_OR_RETURN(OutputRef y, KeptReduced(b, n, OutputRef{&n, 0}));
      ASSIGN_OR_RETURN(OutputRef eq, b.Op("Equal", {x, y}));
      ASSIGN_OR_RETURN(OutputRef ind, b.Cast(eq, TypeOf(x).dtype));
      ASSIGN_OR_RETURN(IntList axes, ReducedAxes(n));
      ASSIGN_OR_RETURN(OutputRef num, b.Sum(ind, axes, true));
      ASSIGN_OR_RETURN(OutputRef share, b.Div(ind, num));
      ASSIGN_OR_RETURN(OutputRef g, KeptReduced(b, n, dy[0]));
      ASSIGN_OR_RETURN(OutputRef dx, b.Mul(share, g));
      return GradOut{dx};
    });
  }
}

}  // namespace

void RegisterMathGrads(GradRegistry& r) {
  RegisterUnary(r);
  RegisterBinary(r);
  RegisterLinalg(r);
  RegisterReductions(r);
}

}  // namespace graphd::compiler::autodiff
