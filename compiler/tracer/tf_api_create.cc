// tf functions that make new tensors: constant, convert_to_tensor, cast, zeros, ones,
// zeros_like, ones_like, fill, range, linspace, eye.
#include <cstring>

#include "compiler/tracer/errors.h"
#include "compiler/tracer/tf_args.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

StatusOr<Value> Constant(Interpreter& in, CallArgs& call) {
  Args a("constant", call, {"value", "dtype", "shape", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value v, a.Get("value"));
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kInvalid));
  if (v.is(K::kTensor)) {
    if (dtype == DType::kInvalid || dtype == v.as_tensor()->dtype) return v;
    ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(v));
    return t->Op("Cast", {r}, {{"DstT", dtype}});
  }
  ASSIGN_OR_RETURN(Tensor value, PythonToTensor(v, dtype));
  if (a.Has("shape")) {
    ASSIGN_OR_RETURN(PartialShape shape, ShapeFromValue(*a.Get("shape")));
    if (!shape.fully_defined()) return PyError("TypeError", "tf.constant shape must be fully defined");
    if (value.num_elements() == 1 && shape.num_elements() != 1) {
      ASSIGN_OR_RETURN(Tensor filled, Tensor::Allocate(value.dtype(), shape.ToShape()));
      size_t size = DTypeSize(value.dtype());
      for (int64_t i = 0; i < filled.num_elements(); ++i) {
        std::memcpy(static_cast<char*>(filled.raw_data()) + i * size, value.raw_data(), size);
      }
      value = filled;
    } else {
      auto reshaped = value.Reshaped(shape.ToShape());
      if (!reshaped.ok()) return PyError("TypeError", std::string(reshaped.status().message()));
      value = *reshaped;
    }
  }
  return t->Op("Const", {}, {{"value", value}}, "Const");
}

StatusOr<Value> Cast(Interpreter& in, CallArgs& call) {
  Args a("cast", call, {"x", "dtype", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("x"));
  ASSIGN_OR_RETURN(Value dtype_value, a.Get("dtype"));
  ASSIGN_OR_RETURN(DType dtype, DTypeFromValue(dtype_value));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  return t->Op("Cast", {xr}, {{"DstT", dtype}}, "Cast");
}

// `value` (a scalar tensor) filled into `shape_value`: a Fill when the shape is known
// at trace time, else a DynamicFill of the dims packed at run time.
StatusOr<Value> FillShape(Tracer& t, const Value& shape_value, OutputRef value, const std::string& fn) {
  auto static_dims = StaticInts(shape_value, fn + "() shape");
  if (static_dims.ok()) {
    for (int64_t d : *static_dims) {
      if (d < 0) return PyError("ValueError", fn + "() dimensions must be >= 0, got " + std::to_string(d));
    }
    return t.Op("Fill", {value}, {{"shape", *static_dims}}, fn);
  }
  OutputRef dims;
  if (shape_value.is(K::kTensor)) {
    ASSIGN_OR_RETURN(dims, t.ToTensor(shape_value));
  } else if (shape_value.is(K::kList) || shape_value.is(K::kTuple)) {
    std::vector<OutputRef> parts;
    for (const Value& d : shape_value.is(K::kList) ? shape_value.as_list()->items : shape_value.as_tuple()) {
      ASSIGN_OR_RETURN(OutputRef r, t.ToTensor(d, DType::kInt32));
      parts.push_back(r);
    }
    if (parts.empty()) return t.Op("Fill", {value}, {{"shape", IntList{}}}, fn);
    ASSIGN_OR_RETURN(Value packed, t.Op("Pack", parts, {{"axis", int64_t{0}}}, "shape"));
    ASSIGN_OR_RETURN(dims, t.ToTensor(packed));
  } else {
    return static_dims.status();
  }
  return t.Op("DynamicFill", {dims, value}, {}, fn);
}

StatusOr<Value> ZerosOrOnes(Interpreter& in, CallArgs& call, const char* fn, int value) {
  Args a(fn, call, {"shape", "dtype", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kFloat32));
  ASSIGN_OR_RETURN(Value shape, a.Get("shape"));
  Value scalar = dtype == DType::kBool ? Value::Bool(value != 0) : Value::Int(value);
  if (dtype == DType::kString) {
    if (value != 0) return PyError("TypeError", "tf.ones does not support dtype string");
    scalar = Value::Str("");
  }
  ASSIGN_OR_RETURN(OutputRef v, t->ToTensor(scalar, dtype));
  return FillShape(*t, shape, v, fn);
}

StatusOr<Value> Like(Interpreter& in, CallArgs& call, const char* fn, const char* op) {
  Args a(fn, call, {"input", "dtype", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kInvalid));
  ASSIGN_OR_RETURN(Value input, a.Get("input"));
  ASSIGN_OR_RETURN(OutputRef x, t->ToTensor(input));
  ASSIGN_OR_RETURN(Value out, t->Op(op, {x}, {}, fn));
  if (dtype == DType::kInvalid || dtype == DTypeOf(x)) return out;
  ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(out));
  return t->Op("Cast", {r}, {{"DstT", dtype}}, fn);
}

StatusOr<Value> FillFn(Interpreter& in, CallArgs& call) {
  Args a("fill", call, {"dims", "value", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value dims, a.Get("dims"));
  ASSIGN_OR_RETURN(Value value, a.Get("value"));
  ASSIGN_OR_RETURN(OutputRef v, t->ToTensor(value));
  if (ShapeOf(v).known_rank() && ShapeOf(v).rank() != 0) {
    return PyError("ValueError", "fill() value must be a scalar, got shape " + ShapeOf(v).ToString());
  }
  return FillShape(*t, dims, v, "fill");
}

StatusOr<Value> Range(Interpreter& in, CallArgs& call) {
  Args a("range", call, {"start", "limit", "delta", "dtype", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  Value start = a.GetOr("start", Value::Int(0)), limit = a.GetOr("limit", Value::None());
  if (limit.is_none()) std::swap(start, limit), start = Value::Int(0);
  Value delta = a.GetOr("delta", Value::Int(1));
  DType dtype = DType::kInvalid;
  for (const Value* v : {&start, &limit, &delta}) {
    if (v->is(K::kTensor)) dtype = v->as_tensor()->dtype;
    if (dtype == DType::kInvalid && v->is(K::kFloat)) dtype = DType::kFloat32;
  }
  ASSIGN_OR_RETURN(dtype, a.DTypeOr("dtype", dtype));
  if (dtype == DType::kInvalid) dtype = DType::kInt32;
  ASSIGN_OR_RETURN(OutputRef s, t->ToTensor(start, dtype));
  ASSIGN_OR_RETURN(OutputRef l, t->ToTensor(limit, dtype));
  ASSIGN_OR_RETURN(OutputRef d, t->ToTensor(delta, dtype));
  return t->Op("Range", {s, l, d}, {}, "range");
}

// tf.linspace(start, stop, num, axis=0): a LinSpace for scalars; for tensors
// start + (stop - start) * LinSpace(0, 1, num), the new axis at `axis`.
StatusOr<Value> LinSpace(Interpreter& in, CallArgs& call) {
  Args a("linspace", call, {"start", "stop", "num", "name", "axis"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value start, a.Get("start"));
  ASSIGN_OR_RETURN(Value stop, a.Get("stop"));
  ASSIGN_OR_RETURN(Value num_value, a.Get("num"));
  ASSIGN_OR_RETURN(int64_t num, StaticInt(num_value, "linspace() num"));
  if (num < 1) return PyError("ValueError", "linspace() num must be >= 1, got " + std::to_string(num));
  ASSIGN_OR_RETURN(int64_t axis, StaticInt(a.GetOr("axis", Value::Int(0)), "linspace() axis"));
  DType dtype = TensorDType(start) != DType::kInvalid ? TensorDType(start) : TensorDType(stop);
  if (dtype == DType::kInvalid) dtype = DType::kFloat32;
  ASSIGN_OR_RETURN(OutputRef s, t->ToTensor(start, dtype));
  ASSIGN_OR_RETURN(OutputRef e, t->ToTensor(stop, dtype));
  if (!IsFloating(DTypeOf(s)) || DTypeOf(e) != DTypeOf(s)) {
    return PyError("TypeError", "linspace() start and stop must be float32 or float64 of one dtype, got " +
                                    std::string(DTypeName(DTypeOf(s))) + " and " + std::string(DTypeName(DTypeOf(e))));
  }
  const PartialShape &ss = ShapeOf(s), &es = ShapeOf(e);
  if (ss.known_rank() && ss.rank() == 0 && es.known_rank() && es.rank() == 0) {
    if (axis != 0 && axis != -1) {
      return PyError("ValueError", "linspace() axis " + std::to_string(axis) + " is out of range for scalars");
    }
    return t->Op("LinSpace", {s, e}, {{"num", num}}, "linspace");
  }
  ASSIGN_OR_RETURN(Value diff_v, t->Op("Sub", {e, s}, {}, "linspace"));
  ASSIGN_OR_RETURN(OutputRef diff, t->ToTensor(diff_v));
  if (!ShapeOf(diff).known_rank()) return PyError("ValueError", "linspace() needs start and stop of known rank");
  int rank = ShapeOf(diff).rank() + 1;
  if (axis < -rank || axis >= rank) {
    return PyError("ValueError", "linspace() axis " + std::to_string(axis) + " is out of range for rank " +
                                     std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  ASSIGN_OR_RETURN(Value zeros, t->Op("ZerosLike", {diff}, {}, "linspace"));
  ASSIGN_OR_RETURN(OutputRef z, t->ToTensor(zeros));
  ASSIGN_OR_RETURN(Value start_b, t->Op("Add", {s, z}, {}, "linspace"));  // start broadcast to diff's shape
  ASSIGN_OR_RETURN(OutputRef sb, t->ToTensor(start_b));
  ASSIGN_OR_RETURN(OutputRef zero, t->ToTensor(Value::Float(0), dtype));
  ASSIGN_OR_RETURN(OutputRef one, t->ToTensor(Value::Float(1), dtype));
  ASSIGN_OR_RETURN(Value frac_v, t->Op("LinSpace", {zero, one}, {{"num", num}}, "linspace"));
  ASSIGN_OR_RETURN(OutputRef frac, t->ToTensor(frac_v));
  IntList frac_shape(rank, 1);
  frac_shape[axis] = num;
  ASSIGN_OR_RETURN(Value frac_r, t->Op("Reshape", {frac}, {{"shape", frac_shape}}, "linspace"));
  ASSIGN_OR_RETURN(Value sb_e, t->Op("ExpandDims", {sb}, {{"axis", axis}}, "linspace"));
  ASSIGN_OR_RETURN(Value diff_e, t->Op("ExpandDims", {diff}, {{"axis", axis}}, "linspace"));
  ASSIGN_OR_RETURN(Value scaled, in.BinaryOp(ast::BinOpKind::kMult, diff_e, frac_r));
  return in.BinaryOp(ast::BinOpKind::kAdd, sb_e, scaled);
}

StatusOr<Value> Eye(Interpreter& in, CallArgs& call) {
  Args a("eye", call, {"num_rows", "num_columns", "batch_shape", "dtype", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value rows_value, a.Get("num_rows"));
  ASSIGN_OR_RETURN(int64_t rows, StaticInt(rows_value, "eye() num_rows"));
  int64_t cols = rows;
  if (a.Has("num_columns")) {
    ASSIGN_OR_RETURN(cols, StaticInt(*a.Get("num_columns"), "eye() num_columns"));
  }
  AttrMap attrs = {{"num_rows", rows}, {"num_columns", cols}};
  if (a.Has("batch_shape")) {
    ASSIGN_OR_RETURN(IntList batch, StaticInts(*a.Get("batch_shape"), "eye() batch_shape"));
    attrs["batch_shape"] = batch;
  }
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kFloat32));
  attrs["dtype"] = dtype;
  return t->Op("Eye", {}, std::move(attrs), "eye");
}

}  // namespace

void AddCreationFunctions(Namespace& tf) {
  tf.Set("constant", Fn("constant", Constant));
  tf.Set("convert_to_tensor", Fn("convert_to_tensor", Constant));
  tf.Set("cast", Fn("cast", Cast));
  tf.Set("zeros", Fn("zeros", [](Interpreter& in, CallArgs& c) { return ZerosOrOnes(in, c, "zeros", 0); }));
  tf.Set("ones", Fn("ones", [](Interpreter& in, CallArgs& c) { return ZerosOrOnes(in, c, "ones", 1); }));
  tf.Set("zeros_like",
         Fn("zeros_like", [](Interpreter& in, CallArgs& c) { return Like(in, c, "zeros_like", "ZerosLike"); }));
  tf.Set("ones_like", Fn("ones_like", [](Interpreter& in, CallArgs& c) { return Like(in, c, "ones_like", "OnesLike"); }));
  tf.Set("fill", Fn("fill", FillFn));
  tf.Set("range", Fn("range", Range));
  tf.Set("linspace", Fn("linspace", LinSpace));
  tf.Set("eye", Fn("eye", Eye));
}

}  // namespace graphd::compiler::tracer
