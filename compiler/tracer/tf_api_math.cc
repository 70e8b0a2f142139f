// tf math: elementwise binary and unary functions, true division, reductions,
// matmul, cumsum, argmax/argmin and add_n, in `tf` and `tf.math` as TensorFlow has
// them.
#include "compiler/tracer/errors.h"
#include "compiler/tracer/tf_args.h"

namespace graphd::compiler::tracer {
namespace {

// tf.xxx(x, y, name=None) -> Op(x, y) with Python values converted to the tensor's dtype.
Value BinaryFn(const std::string& fn, const std::string& op) {
  return Fn(fn, [fn, op](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {"x", "y", "name"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value x, a.Get("x"));
    ASSIGN_OR_RETURN(Value y, a.Get("y"));
    DType hint = TensorDType(x) != DType::kInvalid ? TensorDType(x) : TensorDType(y);
    ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x, hint));
    ASSIGN_OR_RETURN(OutputRef yr, t->ToTensor(y, DTypeOf(xr)));
    return t->Op(op, {xr, yr}, {}, fn);
  });
}

// tf.truediv / tf.divide: Python's `/` on tensors (integers divide as floats).
Value TrueDivFn(const std::string& fn) {
  return Fn(fn, [fn](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {"x", "y", "name"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value x, a.Get("x"));
    ASSIGN_OR_RETURN(Value y, a.Get("y"));
    DType hint = TensorDType(x) != DType::kInvalid ? TensorDType(x) : TensorDType(y);
    ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x, hint));
    return t->Binary(in, static_cast<int>(ast::BinOpKind::kDiv), t->Wrap(xr), y);
  });
}

// tf.xxx(<param>, name=None) -> Op(x).
Value UnaryFn(const std::string& fn, const std::string& op, const std::string& param = "x") {
  return Fn(fn, [fn, op, param](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {param, "name"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value x, a.Get(param));
    ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
    return t->Op(op, {xr}, {}, fn);
  });
}

Value ReduceFn(const std::string& fn, const std::string& op) {
  return Fn(fn, [fn, op](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {"input_tensor", "axis", "keepdims", "name"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value x, a.Get("input_tensor"));
    ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
    ASSIGN_OR_RETURN(bool keep, a.Flag("keepdims", false));
    AttrMap attrs = {{"keep_dims", keep}};
    if (a.Has("axis")) {
      ASSIGN_OR_RETURN(IntList axes, StaticInts(*a.Get("axis"), fn + "() axis"));
      attrs["axis"] = axes;
    }
    return t->Op(op, {xr}, attrs, fn);
  });
}

StatusOr<Value> MatMul(Interpreter& in, CallArgs& call) {
  Args a("matmul", call, {"a", "b", "transpose_a", "transpose_b", "adjoint_a", "adjoint_b", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value av, a.Get("a"));
  ASSIGN_OR_RETURN(Value bv, a.Get("b"));
  ASSIGN_OR_RETURN(OutputRef x, t->ToTensor(av, TensorDType(bv)));
  ASSIGN_OR_RETURN(OutputRef y, t->ToTensor(bv, DTypeOf(x)));
  ASSIGN_OR_RETURN(bool ta, a.Flag("transpose_a", false));
  ASSIGN_OR_RETURN(bool tb, a.Flag("transpose_b", false));
  // For real tensors the adjoint is the transpose.
  ASSIGN_OR_RETURN(bool adj_a, a.Flag("adjoint_a", false));
  ASSIGN_OR_RETURN(bool adj_b, a.Flag("adjoint_b", false));
  if ((ta && adj_a) || (tb && adj_b)) {
    return PyError("ValueError", "Only one of transpose_a and adjoint_a can be True (and of transpose_b and adjoint_b).");
  }
  return t->MatMul(x, y, ta || adj_a, tb || adj_b);
}

// tf.clip_by_value(t, clip_value_min, clip_value_max): bounds broadcast to t.
StatusOr<Value> ClipByValue(Interpreter& in, CallArgs& call) {
  Args a("clip_by_value", call, {"t", "clip_value_min", "clip_value_max", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("t"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(OutputRef lo, t->ToTensor(*a.Get("clip_value_min"), DTypeOf(xr)));
  ASSIGN_OR_RETURN(OutputRef hi, t->ToTensor(*a.Get("clip_value_max"), DTypeOf(xr)));
  return t->Op("ClipByValue", {xr, lo, hi}, {}, "clip_by_value");
}

StatusOr<Value> Cumsum(Interpreter& in, CallArgs& call) {
  Args a("cumsum", call, {"x", "axis", "exclusive", "reverse", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("x"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(int64_t axis, StaticInt(a.GetOr("axis", Value::Int(0)), "cumsum() axis"));
  ASSIGN_OR_RETURN(bool exclusive, a.Flag("exclusive", false));
  ASSIGN_OR_RETURN(bool reverse, a.Flag("reverse", false));
  return t->Op("Cumsum", {xr}, {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}}, "Cumsum");
}

// tf.argmax / tf.argmin(input, axis=None (0), output_type=tf.int64).
Value ArgFn(const std::string& fn, const std::string& op) {
  return Fn(fn, [fn, op](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {"input", "axis", "output_type", "name"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value x, a.Get("input"));
    ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
    int64_t axis = 0;
    if (a.Has("axis")) {
      ASSIGN_OR_RETURN(axis, StaticInt(*a.Get("axis"), fn + "() axis"));
    }
    ASSIGN_OR_RETURN(DType out, a.DTypeOr("output_type", DType::kInt64));
    if (out != DType::kInt32 && out != DType::kInt64) {
      return PyError("TypeError", fn + "() output_type must be int32 or int64, got " + std::string(DTypeName(out)));
    }
    return t->Op(op, {xr}, {{"axis", axis}, {"output_type", out}}, op);
  });
}

// tf.add_n(inputs): the sum of tensors of one shape and dtype.
StatusOr<Value> AddN(Interpreter& in, CallArgs& call) {
  Args a("add_n", call, {"inputs", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value inputs_value, a.Get("inputs"));
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(inputs_value));
  if (items.empty()) return PyError("ValueError", "add_n() inputs must be a non-empty list of tensors");
  DType hint = DType::kInvalid;
  for (const Value& v : items) {
    if (hint == DType::kInvalid) hint = TensorDType(v);
  }
  ASSIGN_OR_RETURN(OutputRef sum, t->ToTensor(items[0], hint));
  if (items.size() == 1) return t->Op("Identity", {sum}, {}, "AddN");
  for (size_t i = 1; i < items.size(); ++i) {
    ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(items[i], hint));
    if (ShapeOf(r).fully_defined() && ShapeOf(sum).fully_defined() && ShapeOf(r).dims() != ShapeOf(sum).dims()) {
      return PyError("ValueError", "add_n() inputs must have the same shape, got " + ShapeOf(sum).ToString() +
                                       " and " + ShapeOf(r).ToString());
    }
    ASSIGN_OR_RETURN(Value s, t->Op("Add", {sum, r}, {}, "AddN"));
    ASSIGN_OR_RETURN(sum, t->ToTensor(s));
  }
  return t->Wrap(sum);
}

// tf.math.squared_difference(x, y) = (x - y)^2.
StatusOr<Value> SquaredDifference(Interpreter& in, CallArgs& call) {
  Args a("squared_difference", call, {"x", "y", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("x"));
  ASSIGN_OR_RETURN(Value y, a.Get("y"));
  DType hint = TensorDType(x) != DType::kInvalid ? TensorDType(x) : TensorDType(y);
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x, hint));
  ASSIGN_OR_RETURN(OutputRef yr, t->ToTensor(y, DTypeOf(xr)));
  ASSIGN_OR_RETURN(Value d, t->Op("Sub", {xr, yr}, {}, "SquaredDifference"));
  ASSIGN_OR_RETURN(OutputRef dr, t->ToTensor(d));
  return t->Op("Square", {dr}, {}, "SquaredDifference");
}

}  // namespace

void AddMathFunctions(Namespace& tf, Namespace& math, Namespace& linalg) {
  auto both = [&](const std::string& name, const Value& fn) {
    tf.Set(name, fn);
    math.Set(name, fn);
  };
  const std::pair<const char*, const char*> kBinary[] = {
      {"add", "Add"}, {"subtract", "Sub"}, {"multiply", "Mul"}, {"maximum", "Maximum"},
      {"minimum", "Minimum"}, {"floordiv", "FloorDiv"}, {"pow", "Pow"}, {"equal", "Equal"},
      {"not_equal", "NotEqual"}, {"less", "Less"}, {"less_equal", "LessEqual"}, {"greater", "Greater"},
      {"greater_equal", "GreaterEqual"}, {"logical_and", "LogicalAnd"}, {"logical_or", "LogicalOr"}};
  for (const auto& [name, op] : kBinary) both(name, BinaryFn(name, op));
  math.Set("floormod", BinaryFn("floormod", "FloorMod"));
  math.Set("mod", BinaryFn("mod", "FloorMod"));
  both("divide", TrueDivFn("divide"));
  both("truediv", TrueDivFn("truediv"));
  math.Set("squared_difference", Fn("squared_difference", SquaredDifference));
  const std::pair<const char*, const char*> kUnary[] = {
      {"abs", "Abs"}, {"negative", "Neg"}, {"sign", "Sign"}, {"exp", "Exp"}, {"log", "Log"}, {"sqrt", "Sqrt"},
      {"rsqrt", "Rsqrt"}, {"square", "Square"}, {"sin", "Sin"}, {"cos", "Cos"}, {"round", "Round"},
      {"floor", "Floor"}, {"ceil", "Ceil"}, {"tanh", "Tanh"}, {"sigmoid", "Sigmoid"},
      {"logical_not", "LogicalNot"}, {"tan", "Tan"}, {"asin", "Asin"}, {"acos", "Acos"}, {"atan", "Atan"},
      {"sinh", "Sinh"}, {"cosh", "Cosh"}, {"asinh", "Asinh"}, {"acosh", "Acosh"}, {"atanh", "Atanh"}};
  for (const auto& [name, op] : kUnary) both(name, UnaryFn(name, op));
  math.Set("reciprocal", UnaryFn("reciprocal", "Reciprocal"));
  math.Set("erf", UnaryFn("erf", "Erf"));
  tf.Set("identity", UnaryFn("identity", "Identity", "input"));
  const std::pair<const char*, const char*> kReduce[] = {
      {"reduce_sum", "Sum"}, {"reduce_mean", "Mean"}, {"reduce_max", "Max"}, {"reduce_min", "Min"},
      {"reduce_prod", "Prod"}, {"reduce_any", "Any"}, {"reduce_all", "All"}};
  for (const auto& [name, op] : kReduce) both(name, ReduceFn(name, op));
  tf.Set("matmul", Fn("matmul", MatMul));
  linalg.Set("matmul", Fn("matmul", MatMul));
  both("cumsum", Fn("cumsum", Cumsum));
  tf.Set("clip_by_value", Fn("clip_by_value", ClipByValue));
  both("argmax", ArgFn("argmax", "ArgMax"));
  both("argmin", ArgFn("argmin", "ArgMin"));
  both("add_n", Fn("add_n", AddN));
}

}  // namespace graphd::compiler::tracer
