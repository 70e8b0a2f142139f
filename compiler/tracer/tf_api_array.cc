// tf functions that rearrange or select elements: concat, stack, unstack, split,
// tile, gather, slice, pad, one_hot, reverse, where.
#include "absl/strings/ascii.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tensor_array.h"
#include "compiler/tracer/tf_args.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// The items of a list/tuple (or anything iterable) as tensors of one dtype: the first
// tensor's dtype is the hint for the Python values.
StatusOr<std::vector<OutputRef>> TensorList(Interpreter& in, Tracer& t, const Value& values) {
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(values));
  DType hint = DType::kInvalid;
  for (const Value& v : items) {
    if (hint == DType::kInvalid) hint = TensorDType(v);
  }
  std::vector<OutputRef> refs;
  for (const Value& v : items) {
    ASSIGN_OR_RETURN(OutputRef r, t.ToTensor(v, hint));
    refs.push_back(r);
  }
  return refs;
}

// Op results as a Python list (unstack, split): several outputs come as a tuple.
StatusOr<Value> AsList(const StatusOr<Value>& result) {
  if (!result.ok()) return result.status();
  return Value::List(result->is(K::kTuple) ? result->as_tuple() : std::vector<Value>{*result});
}

StatusOr<Value> Concat(Interpreter& in, CallArgs& call) {
  Args a("concat", call, {"values", "axis", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value values, a.Get("values"));
  ASSIGN_OR_RETURN(Value axis_value, a.Get("axis"));
  ASSIGN_OR_RETURN(int64_t axis, StaticInt(axis_value, "concat() axis"));
  ASSIGN_OR_RETURN(std::vector<OutputRef> inputs, TensorList(in, *t, values));
  if (inputs.empty()) return PyError("ValueError", "concat() needs at least one tensor");
  if (inputs.size() == 1) return t->Op("Identity", inputs, {}, "concat");
  return t->Op("ConcatV2", inputs, {{"axis", axis}}, "concat");
}

// tf.stack(values, axis=0); also stacks a TensorArray (autograph.stack).
StatusOr<Value> Stack(Interpreter& in, CallArgs& call) {
  Args a("stack", call, {"values", "axis", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Value values, a.Get("values"));
  if (auto ta = values.object_as<TensorArrayObj>()) return ta->BufferTensor(in);
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(int64_t axis, StaticInt(a.GetOr("axis", Value::Int(0)), "stack() axis"));
  ASSIGN_OR_RETURN(std::vector<OutputRef> inputs, TensorList(in, *t, values));
  if (inputs.empty()) return PyError("ValueError", "stack() needs at least one tensor");
  return t->Op("Pack", inputs, {{"axis", axis}}, "stack");
}

StatusOr<Value> Unstack(Interpreter& in, CallArgs& call) {
  Args a("unstack", call, {"value", "num", "axis", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("value"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(int64_t axis, StaticInt(a.GetOr("axis", Value::Int(0)), "unstack() axis"));
  AttrMap attrs = {{"axis", axis}};
  if (a.Has("num")) {
    ASSIGN_OR_RETURN(int64_t num, StaticInt(*a.Get("num"), "unstack() num"));
    attrs["num"] = num;
  }
  return AsList(t->Op("Unpack", {xr}, std::move(attrs), "unstack"));
}

StatusOr<Value> Split(Interpreter& in, CallArgs& call) {
  Args a("split", call, {"value", "num_or_size_splits", "axis", "num", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("value"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(Value splits, a.Get("num_or_size_splits"));
  ASSIGN_OR_RETURN(int64_t axis, StaticInt(a.GetOr("axis", Value::Int(0)), "split() axis"));
  bool one = splits.is_int_like() || (splits.is(K::kTensor) && splits.as_tensor()->shape.known_rank() &&
                                      splits.as_tensor()->shape.rank() == 0);
  if (one) {
    ASSIGN_OR_RETURN(int64_t num, StaticInt(splits, "split() num_or_size_splits"));
    if (num < 1) return PyError("ValueError", "split() num_or_size_splits must be >= 1, got " + std::to_string(num));
    return AsList(t->Op("Split", {xr}, {{"num_split", num}, {"axis", axis}}, "split"));
  }
  ASSIGN_OR_RETURN(IntList sizes, StaticInts(splits, "split() num_or_size_splits"));
  if (sizes.empty()) return PyError("ValueError", "split() size_splits must not be empty");
  return AsList(t->Op("SplitV", {xr}, {{"size_splits", sizes}, {"axis", axis}}, "split"));
}

StatusOr<Value> Tile(Interpreter& in, CallArgs& call) {
  Args a("tile", call, {"input", "multiples", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("input"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(Value m, a.Get("multiples"));
  ASSIGN_OR_RETURN(IntList multiples, StaticInts(m, "tile() multiples"));
  for (int64_t v : multiples) {
    if (v < 0) return PyError("ValueError", "tile() multiples must be >= 0, got " + std::to_string(v));
  }
  return t->Op("Tile", {xr}, {{"multiples", multiples}}, "Tile");
}

StatusOr<Value> Gather(Interpreter& in, CallArgs& call) {
  Args a("gather", call, {"params", "indices", "validate_indices", "axis", "batch_dims", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value p, a.Get("params"));
  ASSIGN_OR_RETURN(Value i, a.Get("indices"));
  ASSIGN_OR_RETURN(OutputRef params, t->ToTensor(p));
  ASSIGN_OR_RETURN(OutputRef indices, t->ToTensor(i));
  ASSIGN_OR_RETURN(int64_t batch_dims, StaticInt(a.GetOr("batch_dims", Value::Int(0)), "gather() batch_dims"));
  int64_t axis = batch_dims;
  if (a.Has("axis")) {
    ASSIGN_OR_RETURN(axis, StaticInt(*a.Get("axis"), "gather() axis"));
  }
  return t->Op("GatherV2", {params, indices}, {{"axis", axis}, {"batch_dims", batch_dims}}, "GatherV2");
}

StatusOr<Value> Slice(Interpreter& in, CallArgs& call) {
  Args a("slice", call, {"input_", "begin", "size", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("input_"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(Value b, a.Get("begin"));
  ASSIGN_OR_RETURN(Value s, a.Get("size"));
  ASSIGN_OR_RETURN(IntList begin, StaticInts(b, "slice() begin"));
  ASSIGN_OR_RETURN(IntList size, StaticInts(s, "slice() size"));
  for (int64_t v : begin) {
    if (v < 0) return PyError("ValueError", "slice() begin must be >= 0, got " + std::to_string(v));
  }
  for (int64_t v : size) {
    if (v < -1) return PyError("ValueError", "slice() size must be >= -1, got " + std::to_string(v));
  }
  return t->Op("Slice", {xr}, {{"begin", begin}, {"size", size}}, "Slice");
}

StatusOr<Value> Pad(Interpreter& in, CallArgs& call) {
  Args a("pad", call, {"tensor", "paddings", "mode", "constant_values", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("tensor"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(Value p, a.Get("paddings"));
  ASSIGN_OR_RETURN(IntList pads, StaticInts(p, "pad() paddings"));
  const PartialShape& s = ShapeOf(xr);
  if (pads.size() % 2 != 0 || (s.known_rank() && static_cast<int>(pads.size()) != 2 * s.rank())) {
    return PyError("ValueError", "pad() paddings must have shape [" +
                                     (s.known_rank() ? std::to_string(s.rank()) : std::string("rank")) +
                                     ", 2], got " + std::to_string(pads.size()) + " values");
  }
  for (int64_t v : pads) {
    if (v < 0) return PyError("ValueError", "pad() paddings must be >= 0, got " + std::to_string(v));
  }
  ASSIGN_OR_RETURN(std::string mode, a.StrOr("mode", "CONSTANT"));
  mode = absl::AsciiStrToUpper(mode);
  if (mode != "CONSTANT" && mode != "REFLECT" && mode != "SYMMETRIC") {
    return PyError("ValueError", "pad() mode must be CONSTANT, REFLECT or SYMMETRIC, got '" + mode + "'");
  }
  AttrMap attrs = {{"paddings", pads}, {"mode", mode}};
  Value cv = a.GetOr("constant_values", Value::Int(0));
  if (cv.is(K::kTensor) && cv.as_tensor()->symbolic() && DTypeOf(xr) != DType::kString) {
    // A value known only at run time: pad with zeros, then put it where a mask padded
    // the same way is zero.
    ASSIGN_OR_RETURN(OutputRef value, t->ToTensor(cv));
    if (ShapeOf(value).known_rank() && ShapeOf(value).rank() != 0) {
      return PyError("ValueError", "pad() constant_values must be a scalar, got shape " + ShapeRepr(ShapeOf(value)));
    }
    if (DTypeOf(value) != DTypeOf(xr)) {
      return PyError("TypeError", "pad() constant_values has dtype " + std::string(DTypeName(DTypeOf(value))) +
                                      ", the tensor " + std::string(DTypeName(DTypeOf(xr))));
    }
    attrs["constant_values"] = IsFloating(DTypeOf(xr)) ? AttrValue(0.0f) : AttrValue(int64_t{0});
    ASSIGN_OR_RETURN(Value padded, t->Op("Pad", {xr}, attrs, "Pad"));
    ASSIGN_OR_RETURN(Value ones, t->Op("OnesLike", {xr}, {}, "Pad"));
    ASSIGN_OR_RETURN(OutputRef ones_ref, t->ToTensor(ones));
    ASSIGN_OR_RETURN(Value mask, t->Op("Pad", {ones_ref}, attrs, "Pad"));
    ASSIGN_OR_RETURN(OutputRef mask_ref, t->ToTensor(mask));
    ASSIGN_OR_RETURN(Value inside, t->Op("Cast", {mask_ref}, {{"DstT", DType::kBool}}, "Pad"));
    ASSIGN_OR_RETURN(OutputRef inside_ref, t->ToTensor(inside));
    ASSIGN_OR_RETURN(OutputRef padded_ref, t->ToTensor(padded));
    return t->Op("SelectV2", {inside_ref, padded_ref, value}, {}, "Pad");
  }
  if (DTypeOf(xr) == DType::kString) {
    if (!cv.is(K::kStr)) {
      if (!(cv.is_int_like() && cv.as_int() == 0)) {
        return PyError("TypeError", "pad() constant_values of a string tensor must be a str");
      }
      cv = Value::Str("");
    }
    attrs["constant_values"] = cv.as_str();
  } else {
    if (IsFloating(DTypeOf(xr))) {
      ASSIGN_OR_RETURN(double v, StaticNumber(cv, "pad() constant_values"));
      attrs["constant_values"] = static_cast<float>(v);
    } else {
      ASSIGN_OR_RETURN(int64_t v, StaticInteger(cv, "pad() constant_values"));
      attrs["constant_values"] = v;
    }
  }
  return t->Op("Pad", {xr}, std::move(attrs), "Pad");
}

// An on/off value attribute and the dtype it suggests.
StatusOr<AttrValue> NumberAttrValue(const Value& v, const char* what, DType* dtype) {
  if (v.is(K::kBool)) {
    if (*dtype == DType::kInvalid) *dtype = DType::kBool;
    return AttrValue(int64_t{v.as_bool()});
  }
  const std::string name = std::string("one_hot() ") + what;
  if (*dtype == DType::kInvalid) {
    *dtype = v.is(K::kTensor) ? v.as_tensor()->dtype : (v.is(K::kFloat) ? DType::kFloat32 : DType::kInt32);
  }
  if (v.is(K::kFloat) || (v.is(K::kTensor) && IsFloating(v.as_tensor()->dtype))) {
    ASSIGN_OR_RETURN(double d, StaticNumber(v, name));
    return AttrValue(static_cast<float>(d));
  }
  ASSIGN_OR_RETURN(int64_t i, StaticInteger(v, name));
  return AttrValue(i);
}

StatusOr<Value> OneHot(Interpreter& in, CallArgs& call) {
  Args a("one_hot", call, {"indices", "depth", "on_value", "off_value", "axis", "dtype", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value i, a.Get("indices"));
  ASSIGN_OR_RETURN(OutputRef indices, t->ToTensor(i));
  ASSIGN_OR_RETURN(Value depth_value, a.Get("depth"));
  ASSIGN_OR_RETURN(int64_t depth, StaticInt(depth_value, "one_hot() depth"));
  ASSIGN_OR_RETURN(int64_t axis, StaticInt(a.GetOr("axis", Value::Int(-1)), "one_hot() axis"));
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kInvalid));
  AttrMap attrs = {{"depth", depth}, {"axis", axis}};
  if (a.Has("on_value")) {
    ASSIGN_OR_RETURN(attrs["on_value"], NumberAttrValue(*a.Get("on_value"), "on_value", &dtype));
  }
  if (a.Has("off_value")) {
    ASSIGN_OR_RETURN(attrs["off_value"], NumberAttrValue(*a.Get("off_value"), "off_value", &dtype));
  }
  attrs["dtype"] = dtype == DType::kInvalid ? DType::kFloat32 : dtype;
  return t->Op("OneHot", {indices}, std::move(attrs), "one_hot");
}

StatusOr<Value> Reverse(Interpreter& in, CallArgs& call) {
  Args a("reverse", call, {"tensor", "axis", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("tensor"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  ASSIGN_OR_RETURN(Value axis_value, a.Get("axis"));
  ASSIGN_OR_RETURN(IntList axes, StaticInts(axis_value, "reverse() axis"));
  return t->Op("ReverseV2", {xr}, {{"axis", axes}}, "ReverseV2");
}

StatusOr<Value> Where(Interpreter& in, CallArgs& call) {
  Args a("where", call, {"condition", "x", "y", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  if (!a.Has("x") && !a.Has("y")) {
    return PyError("NotImplementedError", "tf.where(condition) without x and y (the coordinates of true "
                                          "elements, a shape known only at run time) is not supported");
  }
  ASSIGN_OR_RETURN(Value c, a.Get("condition"));
  ASSIGN_OR_RETURN(OutputRef cond, t->ToTensor(c, DType::kBool));
  ASSIGN_OR_RETURN(Value x, a.Get("x"));
  ASSIGN_OR_RETURN(Value y, a.Get("y"));
  DType hint = TensorDType(x) != DType::kInvalid ? TensorDType(x) : TensorDType(y);
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x, hint));
  ASSIGN_OR_RETURN(OutputRef yr, t->ToTensor(y, DTypeOf(xr)));
  return t->Op("SelectV2", {cond, xr, yr}, {}, "where");
}

}  // namespace

void AddArrayFunctions(Namespace& tf) {
  tf.Set("concat", Fn("concat", Concat));
  tf.Set("stack", Fn("stack", Stack));
  tf.Set("unstack", Fn("unstack", Unstack));
  tf.Set("split", Fn("split", Split));
  tf.Set("tile", Fn("tile", Tile));
  tf.Set("gather", Fn("gather", Gather));
  tf.Set("slice", Fn("slice", Slice));
  tf.Set("pad", Fn("pad", Pad));
  tf.Set("one_hot", Fn("one_hot", OneHot));
  tf.Set("reverse", Fn("reverse", Reverse));
  tf.Set("where", Fn("where", Where));
}

}  // namespace graphd::compiler::tracer
