// tf functions about shapes: reshape, expand_dims, squeeze, shape, size, rank,
// broadcast_to, transpose. Target shapes and axes are attributes in graphd's IR, so
// they must be known at trace time (Python ints, constants, or tf.shape of a tensor
// whose shape is known).
#include "compiler/tracer/errors.h"
#include "compiler/tracer/tf_args.h"

namespace graphd::compiler::tracer {
namespace {

StatusOr<Value> Reshape(Interpreter& in, CallArgs& call) {
  Args a("reshape", call, {"tensor", "shape", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("tensor"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(Value shape_value, a.Get("shape"));
  ASSIGN_OR_RETURN(IntList shape, StaticInts(shape_value, "reshape() shape"));
  return t->Op("Reshape", {xr}, {{"shape", shape}}, "Reshape");
}

StatusOr<Value> ExpandDims(Interpreter& in, CallArgs& call) {
  Args a("expand_dims", call, {"input", "axis", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("input"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(Value axis_value, a.Get("axis"));
  ASSIGN_OR_RETURN(int64_t axis, StaticInt(axis_value, "expand_dims() axis"));
  return t->Op("ExpandDims", {xr}, {{"axis", axis}}, "ExpandDims");
}

StatusOr<Value> Squeeze(Interpreter& in, CallArgs& call) {
  Args a("squeeze", call, {"input", "axis", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("input"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  IntList axes;
  if (a.Has("axis")) {
    ASSIGN_OR_RETURN(axes, StaticInts(*a.Get("axis"), "squeeze() axis"));
  }
  return t->Op("Squeeze", {xr}, {{"squeeze_dims", axes}}, "Squeeze");
}

// tf.shape / tf.size: (input, out_type=tf.int32).
StatusOr<Value> ShapeOrSize(Interpreter& in, CallArgs& call, const char* fn, const char* op) {
  Args a(fn, call, {"input", "out_type", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("input"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(DType out_type, a.DTypeOr("out_type", DType::kInt32));
  if (out_type != DType::kInt32 && out_type != DType::kInt64) {
    return PyError("TypeError", std::string(fn) + "() out_type must be int32 or int64, got " +
                                    std::string(DTypeName(out_type)));
  }
  return t->Op(op, {xr}, {{"out_type", out_type}}, op);
}

StatusOr<Value> Rank(Interpreter& in, CallArgs& call) {
  Args a("rank", call, {"input", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("input"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  return t->Op("Rank", {xr}, {}, "Rank");
}

StatusOr<Value> BroadcastTo(Interpreter& in, CallArgs& call) {
  Args a("broadcast_to", call, {"input", "shape", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("input"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(Value shape_value, a.Get("shape"));
  ASSIGN_OR_RETURN(IntList shape, StaticInts(shape_value, "broadcast_to() shape"));
  for (int64_t d : shape) {
    if (d < 0) return PyError("ValueError", "broadcast_to() dimensions must be >= 0, got " + std::to_string(d));
  }
  return t->Op("BroadcastTo", {xr}, {{"shape", shape}}, "BroadcastTo");
}

StatusOr<Value> Transpose(Interpreter& in, CallArgs& call) {
  Args a("transpose", call, {"a", "perm", "conjugate", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x_value, a.Get("a"));
  ASSIGN_OR_RETURN(OutputRef x, t->ToTensor(x_value));
  IntList perm;
  if (a.Has("perm")) {
    ASSIGN_OR_RETURN(perm, StaticInts(*a.Get("perm"), "transpose() perm"));
  } else {
    const PartialShape& s = ShapeOf(x);
    if (!s.known_rank()) return PyError("ValueError", "transpose without perm needs a known rank");
    for (int i = s.rank() - 1; i >= 0; --i) perm.push_back(i);
  }
  return t->Op("Transpose", {x}, {{"perm", perm}}, "transpose");
}

}  // namespace

void AddShapeFunctions(Namespace& tf) {
  tf.Set("reshape", Fn("reshape", Reshape));
  tf.Set("expand_dims", Fn("expand_dims", ExpandDims));
  tf.Set("squeeze", Fn("squeeze", Squeeze));
  tf.Set("shape", Fn("shape", [](Interpreter& in, CallArgs& c) { return ShapeOrSize(in, c, "shape", "Shape"); }));
  tf.Set("size", Fn("size", [](Interpreter& in, CallArgs& c) { return ShapeOrSize(in, c, "size", "Size"); }));
  tf.Set("rank", Fn("rank", Rank));
  tf.Set("broadcast_to", Fn("broadcast_to", BroadcastTo));
  tf.Set("transpose", Fn("transpose", Transpose));
}

}  // namespace graphd::compiler::tracer
