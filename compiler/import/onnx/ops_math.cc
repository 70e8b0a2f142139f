// ONNX math ops composed from graphd's elementwise ops: Tan, the hyperbolic functions
// and their inverses, IsNaN, IsInf; and EyeLike (graphd Eye).
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "compiler/import/onnx/build_util.h"
#include "compiler/import/onnx/op_table.h"
#include "compiler/import/onnx/tensor_proto.h"

namespace graphd::compiler::onnx_import {
namespace {

Status Composite(NodeContext& n) {
  const std::string& t = n.op_type();
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  DType dt = TypeOf(x).dtype;
  auto scalar = [&](double v) { return n.Scalar(dt, v); };
  OutputRef y;
  if (t == "Tan") {
    ASSIGN_OR_RETURN(OutputRef s, n.Add("Sin", {x}));
    ASSIGN_OR_RETURN(OutputRef c, n.Add("Cos", {x}));
    ASSIGN_OR_RETURN(y, n.Add("Div", {s, c}));
  } else if (t == "Sinh" || t == "Cosh") {  // (e^x -+ e^-x) / 2
    ASSIGN_OR_RETURN(OutputRef e, n.Add("Exp", {x}));
    ASSIGN_OR_RETURN(OutputRef nx, n.Add("Neg", {x}));
    ASSIGN_OR_RETURN(OutputRef en, n.Add("Exp", {nx}));
    ASSIGN_OR_RETURN(OutputRef c, n.Add(t == "Sinh" ? "Sub" : "Add", {e, en}));
    ASSIGN_OR_RETURN(OutputRef half, scalar(0.5));
    ASSIGN_OR_RETURN(y, n.Add("Mul", {c, half}));
  } else if (t == "Asinh" || t == "Acosh") {  // log(x + sqrt(x^2 +- 1))
    ASSIGN_OR_RETURN(OutputRef sq, n.Add("Square", {x}));
    ASSIGN_OR_RETURN(OutputRef one, scalar(1));
    ASSIGN_OR_RETURN(OutputRef r, n.Add(t == "Asinh" ? "Add" : "Sub", {sq, one}));
    ASSIGN_OR_RETURN(OutputRef root, n.Add("Sqrt", {r}));
    ASSIGN_OR_RETURN(OutputRef s, n.Add("Add", {x, root}));
    ASSIGN_OR_RETURN(y, n.Add("Log", {s}));
  } else if (t == "Atanh") {  // log((1 + x) / (1 - x)) / 2
    ASSIGN_OR_RETURN(OutputRef one, scalar(1));
    ASSIGN_OR_RETURN(OutputRef a, n.Add("Add", {one, x}));
    ASSIGN_OR_RETURN(OutputRef b, n.Add("Sub", {one, x}));
    ASSIGN_OR_RETURN(OutputRef q, n.Add("Div", {a, b}));
    ASSIGN_OR_RETURN(OutputRef l, n.Add("Log", {q}));
    ASSIGN_OR_RETURN(OutputRef half, scalar(0.5));
    ASSIGN_OR_RETURN(y, n.Add("Mul", {l, half}));
  } else if (t == "IsNaN") {
    ASSIGN_OR_RETURN(y, n.Add("NotEqual", {x, x}));
  } else if (t == "IsInf") {
    bool pos = n.Int("detect_positive", 1) != 0, neg = n.Int("detect_negative", 1) != 0;
    double inf = std::numeric_limits<double>::infinity();
    ASSIGN_OR_RETURN(OutputRef pinf, scalar(inf));
    ASSIGN_OR_RETURN(OutputRef ninf, scalar(-inf));
    ASSIGN_OR_RETURN(OutputRef is_p, n.Add("Equal", {x, pinf}));
    ASSIGN_OR_RETURN(OutputRef is_n, n.Add("Equal", {x, ninf}));
    if (pos && neg) {
      ASSIGN_OR_RETURN(y, n.Add("LogicalOr", {is_p, is_n}));
    } else if (pos) {
      y = is_p;
    } else if (neg) {
      y = is_n;
    } else {
      ASSIGN_OR_RETURN(y, n.Add("LogicalAnd", {is_p, is_n}));  // never true
    }
  } else {
    return n.Unsupported("");
  }
  return n.SetOutput(0, y);
}

// EyeLike(x; dtype, k): graphd's Eye of x's 2-D shape (k = 0 only).
Status EyeLike(NodeContext& n) {
  if (n.Int("k", 0) != 0) return n.Unsupported("k other than 0");
  ASSIGN_OR_RETURN(OutputRef x, n.input(0));
  const PartialShape& s = TypeOf(x).shape;
  if (!s.known_rank() || s.rank() != 2 || !s.fully_defined()) return n.Unsupported("a non-2-D or unknown shape");
  DType dt = TypeOf(x).dtype;
  if (const auto* a = n.attr("dtype")) {
    auto d = DTypeFromOnnx(static_cast<int32_t>(a->i()));
    if (!d.ok()) return n.Unsupported(d.status().message());
    dt = *d;
  }
  ASSIGN_OR_RETURN(OutputRef y, n.Add("Eye", {}, {{"num_rows", s.dim(0)}, {"num_columns", s.dim(1)}, {"dtype", dt}}));
  return n.SetOutput(0, y);
}

}  // namespace

void RegisterMathOps(OpTable& table) {
  for (const char* op : {"Tan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "IsNaN", "IsInf"}) table[op] = Composite;
  table["EyeLike"] = EyeLike;
}

}  // namespace graphd::compiler::onnx_import
