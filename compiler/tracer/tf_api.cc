// The `tf` namespace: TensorFlow's Python API over the tracer. Each function parses
// its arguments as TensorFlow does (positional or keyword) and adds ops.
#include "absl/strings/str_cat.h"
#include "compiler/autograph/converter.h"
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/tracer.h"
#include "compiler/tracer/tensor_array.h"
#include "compiler/tracer/variables.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// Binds a call's arguments to parameter names, as Python would.
class Args {
 public:
  Args(const std::string& fn, CallArgs& call, std::vector<std::string> params) : fn_(fn) {
    for (size_t i = 0; i < call.args.size(); ++i) {
      if (i < params.size()) values_[params[i]] = call.args[i]; else extra_ = true;
    }
    for (auto& [k, v] : call.kwargs) {
      if (std::find(params.begin(), params.end(), k) == params.end()) unknown_ = k;
      values_[k] = v;
    }
  }
  Status Check() const {
    if (extra_) return PyError("TypeError", fn_ + "() got too many positional arguments");
    if (!unknown_.empty()) return PyError("TypeError", fn_ + "() got an unexpected keyword argument '" + unknown_ + "'");
    return absl::OkStatus();
  }
  bool Has(const std::string& p) const { return values_.contains(p) && !values_.at(p).is_none(); }
  StatusOr<Value> Get(const std::string& p) const {
    if (!values_.contains(p)) return PyError("TypeError", fn_ + "() missing required argument: '" + p + "'");
    return values_.at(p);
  }
  Value GetOr(const std::string& p, Value dflt) const { return values_.contains(p) ? values_.at(p) : dflt; }

 private:
  std::string fn_;
  std::map<std::string, Value> values_;
  bool extra_ = false;
  std::string unknown_;
};

Value Fn(const std::string& name, BuiltinFn fn) { return Value::Obj(std::make_shared<BuiltinObj>(name, std::move(fn))); }

StatusOr<IntList> Axes(const Value& v) {
  if (v.is_int_like()) return IntList{v.as_int()};
  IntList out;
  if (v.is(K::kList) || v.is(K::kTuple)) {
    for (const Value& a : v.is(K::kList) ? v.as_list()->items : v.as_tuple()) {
      if (!a.is_int_like()) return PyError("TypeError", "axis must be an int or a list of ints");
      out.push_back(a.as_int());
    }
    return out;
  }
  return PyError("TypeError", "axis must be an int or a list of ints, got " + v.TypeName());
}

// tf.xxx(x, y, name=None) -> Op(x, y) with Python values converted to the tensor's dtype.
Value BinaryFn(const std::string& fn, const std::string& op) {
  return Fn(fn, [fn, op](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {"x", "y", "name"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value x, a.Get("x"));
    ASSIGN_OR_RETURN(Value y, a.Get("y"));
    DType hint = x.is(K::kTensor) ? x.as_tensor()->dtype : (y.is(K::kTensor) ? y.as_tensor()->dtype : DType::kInvalid);
    ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x, hint));
    ASSIGN_OR_RETURN(OutputRef yr, t->ToTensor(y, xr.node->output(xr.index).dtype));
    return t->Op(op, {xr, yr}, {}, fn);
  });
}

Value UnaryFn(const std::string& fn, const std::string& op) {
  return Fn(fn, [fn, op](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    Args a(fn, call, {"x", "name"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(Value x, a.Get("x"));
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
    AttrMap attrs = {{"keep_dims", a.GetOr("keepdims", Value::Bool(false)).is(K::kBool) &&
                                       a.GetOr("keepdims", Value::Bool(false)).as_bool()}};
    if (a.Has("axis")) {
      ASSIGN_OR_RETURN(IntList axes, Axes(*a.Get("axis")));
      attrs["axis"] = axes;
    }
    return t->Op(op, {xr}, attrs, fn);
  });
}

StatusOr<Value> Constant(Interpreter& in, CallArgs& call) {
  Args a("constant", call, {"value", "dtype", "shape", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value v, a.Get("value"));
  DType dtype = DType::kInvalid;
  if (a.Has("dtype")) {
    ASSIGN_OR_RETURN(dtype, DTypeFromValue(*a.Get("dtype")));
  }
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
  ASSIGN_OR_RETURN(DType dtype, DTypeFromValue(*a.Get("dtype")));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x));
  return t->Op("Cast", {xr}, {{"DstT", dtype}}, "Cast");
}

StatusOr<Value> Reshape(Interpreter& in, CallArgs& call) {
  Args a("reshape", call, {"tensor", "shape", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(*a.Get("tensor")));
  ASSIGN_OR_RETURN(IntList shape, Axes(*a.Get("shape")));
  return t->Op("Reshape", {xr}, {{"shape", shape}}, "Reshape");
}

StatusOr<Value> MatMul(Interpreter& in, CallArgs& call) {
  Args a("matmul", call, {"a", "b", "transpose_a", "transpose_b", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(OutputRef x, t->ToTensor(*a.Get("a")));
  ASSIGN_OR_RETURN(OutputRef y, t->ToTensor(*a.Get("b"), x.node->output(x.index).dtype));
  auto flag = [&](const char* n) { Value v = a.GetOr(n, Value::Bool(false)); return v.is(K::kBool) && v.as_bool(); };
  return t->Op("MatMul", {x, y}, {{"transpose_a", flag("transpose_a")}, {"transpose_b", flag("transpose_b")}}, "MatMul");
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
  if (a.Has("dtype")) {
    ASSIGN_OR_RETURN(dtype, DTypeFromValue(*a.Get("dtype")));
  }
  if (dtype == DType::kInvalid) dtype = DType::kInt32;
  ASSIGN_OR_RETURN(OutputRef s, t->ToTensor(start, dtype));
  ASSIGN_OR_RETURN(OutputRef l, t->ToTensor(limit, dtype));
  ASSIGN_OR_RETURN(OutputRef d, t->ToTensor(delta, dtype));
  return t->Op("Range", {s, l, d}, {}, "range");
}

StatusOr<Value> FillLike(Interpreter& in, CallArgs& call, const char* fn, double value) {
  Args a(fn, call, {"shape", "dtype", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  DType dtype = DType::kFloat32;
  if (a.Has("dtype")) {
    ASSIGN_OR_RETURN(dtype, DTypeFromValue(*a.Get("dtype")));
  }
  ASSIGN_OR_RETURN(Value shape_value, a.Get("shape"));
  bool dynamic = shape_value.is(K::kTensor);
  if ((shape_value.is(K::kList) || shape_value.is(K::kTuple))) {
    for (const Value& d : shape_value.is(K::kList) ? shape_value.as_list()->items : shape_value.as_tuple()) {
      dynamic |= d.is(K::kTensor);
    }
  }
  if (dynamic) {
    // Dimensions known only at run time: a DynamicFill of the packed dims.
    OutputRef dims;
    if (shape_value.is(K::kTensor)) {
      ASSIGN_OR_RETURN(dims, t->ToTensor(shape_value));
    } else {
      std::vector<OutputRef> parts;
      for (const Value& d : shape_value.is(K::kList) ? shape_value.as_list()->items : shape_value.as_tuple()) {
        ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(d, DType::kInt32));
        parts.push_back(r);
      }
      ASSIGN_OR_RETURN(Value packed, t->Op("Pack", parts, {{"axis", int64_t{0}}}, "shape"));
      ASSIGN_OR_RETURN(dims, t->ToTensor(packed));
    }
    ASSIGN_OR_RETURN(OutputRef v, t->ToTensor(value == 0 ? Value::Int(0) : Value::Int(1), dtype));
    return t->Op("DynamicFill", {dims, v}, {}, fn);
  }
  ASSIGN_OR_RETURN(PartialShape shape, ShapeFromValue(shape_value));
  if (!shape.fully_defined()) return PyError("ValueError", std::string(fn) + "() needs a fully defined shape");
  ASSIGN_OR_RETURN(OutputRef v, t->ToTensor(value == 0 ? Value::Int(0) : Value::Int(1), dtype));
  IntList dims = shape.dims();
  return t->Op("Fill", {v}, {{"shape", dims}}, fn);
}

StatusOr<Value> Concat(Interpreter& in, CallArgs& call) {
  Args a("concat", call, {"values", "axis", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(std::vector<Value> values, in.Iterate(*a.Get("values")));
  ASSIGN_OR_RETURN(Value axis, a.Get("axis"));
  if (!axis.is_int_like()) return PyError("TypeError", "concat axis must be a Python int");
  std::vector<OutputRef> inputs;
  DType hint = DType::kInvalid;
  for (const Value& v : values) if (v.is(K::kTensor)) hint = v.as_tensor()->dtype;
  for (const Value& v : values) {
    ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(v, hint));
    inputs.push_back(r);
  }
  return t->Op("ConcatV2", inputs, {{"axis", axis.as_int()}}, "concat");
}

StatusOr<Value> Transpose(Interpreter& in, CallArgs& call) {
  Args a("transpose", call, {"a", "perm", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(OutputRef x, t->ToTensor(*a.Get("a")));
  IntList perm;
  if (a.Has("perm")) {
    ASSIGN_OR_RETURN(perm, Axes(*a.Get("perm")));
  } else {
    const PartialShape& s = x.node->output(x.index).shape;
    if (!s.known_rank()) return PyError("ValueError", "transpose without perm needs a known rank");
    for (int i = s.rank() - 1; i >= 0; --i) perm.push_back(i);
  }
  return t->Op("Transpose", {x}, {{"perm", perm}}, "transpose");
}

StatusOr<Value> Where(Interpreter& in, CallArgs& call) {
  Args a("where", call, {"condition", "x", "y", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(OutputRef c, t->ToTensor(*a.Get("condition"), DType::kBool));
  ASSIGN_OR_RETURN(Value x, a.Get("x"));
  ASSIGN_OR_RETURN(Value y, a.Get("y"));
  DType hint = x.is(K::kTensor) ? x.as_tensor()->dtype : (y.is(K::kTensor) ? y.as_tensor()->dtype : DType::kInvalid);
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x, hint));
  ASSIGN_OR_RETURN(OutputRef yr, t->ToTensor(y, xr.node->output(xr.index).dtype));
  return t->Op("SelectV2", {c, xr, yr}, {}, "where");
}

StatusOr<Value> TensorSpec(Interpreter&, CallArgs& call) {
  Args a("TensorSpec", call, {"shape", "dtype", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(PartialShape shape, ShapeFromValue(a.GetOr("shape", Value::None())));
  DType dtype = DType::kFloat32;
  if (a.Has("dtype")) {
    ASSIGN_OR_RETURN(dtype, DTypeFromValue(*a.Get("dtype")));
  }
  Value name = a.GetOr("name", Value::None());
  return Value::Obj(std::make_shared<TensorSpecObj>(shape, dtype, name.is(K::kStr) ? name.as_str() : ""));
}

// A PrintV2 of `values` (Python values become text of the template, tensors fields).
StatusOr<Value> PrintOp(Interpreter&, Tracer& t, const std::vector<Value>& values, const std::string& sep,
                        const std::string& end, const char* stream) {
  std::string tmpl;
  std::vector<OutputRef> inputs;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) tmpl += sep;
    if (values[i].is(K::kTensor)) {
      ASSIGN_OR_RETURN(OutputRef r, t.ToTensor(values[i]));
      inputs.push_back(r);
      tmpl += "{}";
    } else {
      tmpl += PyStr(values[i]);
    }
  }
  RETURN_IF_ERROR(t.Op("PrintV2", inputs, {{"template", tmpl}, {"output_stream", std::string(stream)}, {"end", end}},
                       "PrintV2", /*stateful=*/true)
                      .status());
  return Value::None();
}

std::string KwString(const CallArgs& call, const std::string& name, const std::string& dflt) {
  for (const auto& [k, v] : call.kwargs) {
    if (k == name && v.is(K::kStr)) return v.as_str();
  }
  return dflt;
}

StatusOr<Value> TfPrint(Interpreter& in, CallArgs& call) {
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  return PrintOp(in, *t, call.args, KwString(call, "sep", " "), KwString(call, "end", "\n"), "stderr");
}

StatusOr<Value> ToCode(Interpreter&, CallArgs& call) {
  if (call.args.size() != 1) return PyError("TypeError", "to_code() takes one function");
  auto fn = call.args[0].object_as<FunctionObj>();
  if (fn == nullptr || fn->def == nullptr) return PyError("TypeError", "to_code() takes a function defined with def");
  return Value::Str(autograph::ToCode(*fn->def->As<ast::FunctionDef>()));
}

}  // namespace

std::shared_ptr<Namespace> MakeTracingBuiltins() {
  auto b = MakeBuiltins();
  const Value* python_print = b->Find("print");
  Value fallback = *python_print;
  b->Set("print", Fn("print", [fallback](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    // In a staged branch or loop body, a print of tensors prints on every run (the
    // seed's nested `while` example); elsewhere it prints once, while tracing.
    auto* tracer = dynamic_cast<Tracer*>(in.tensor_hooks());
    bool tensors = false;
    for (const Value& v : call.args) tensors |= v.is(K::kTensor) && v.as_tensor()->symbolic();
    if (tracer != nullptr && tensors && tracer->in_staged_body()) {
      return PrintOp(in, *tracer, call.args, KwString(call, "sep", " "), KwString(call, "end", "\n"), "stdout");
    }
    return in.Call(fallback, call);
  }));
  return b;
}

std::shared_ptr<Namespace> MakeNumpyModule() {
  auto np = std::make_shared<Namespace>("numpy");
  for (int d = 1; d < kNumDTypes; ++d) {
    DType dtype = static_cast<DType>(d);
    if (dtype == DType::kBFloat16 || dtype == DType::kString) continue;
    np->Set(dtype == DType::kBool ? "bool_" : std::string(DTypeName(dtype)), DTypeObj::Make(dtype));
  }
  np->Set("pi", Value::Float(3.141592653589793));
  np->Set("e", Value::Float(2.718281828459045));
  np->Set("newaxis", Value::None());
  return np;
}

std::shared_ptr<Namespace> MakeTfModule() {
  auto tf = std::make_shared<Namespace>("tensorflow");
  auto nn = std::make_shared<Namespace>("tensorflow.nn");
  auto math = std::make_shared<Namespace>("tensorflow.math");
  auto linalg = std::make_shared<Namespace>("tensorflow.linalg");
  auto autograph = std::make_shared<Namespace>("tensorflow.autograph");
  tf->Set("nn", Value::Obj(nn));
  tf->Set("math", Value::Obj(math));
  tf->Set("linalg", Value::Obj(linalg));
  tf->Set("autograph", Value::Obj(autograph));
  for (int d = 1; d < kNumDTypes; ++d) {
    DType dtype = static_cast<DType>(d);
    tf->Set(std::string(DTypeName(dtype)), DTypeObj::Make(dtype));
  }
  tf->Set("newaxis", Value::None());
  tf->Set("constant", Fn("constant", Constant));
  tf->Set("convert_to_tensor", Fn("convert_to_tensor", Constant));
  tf->Set("cast", Fn("cast", Cast));
  tf->Set("reshape", Fn("reshape", Reshape));
  tf->Set("matmul", Fn("matmul", MatMul));
  linalg->Set("matmul", Fn("matmul", MatMul));
  tf->Set("range", Fn("range", Range));
  tf->Set("zeros", Fn("zeros", [](Interpreter& in, CallArgs& c) { return FillLike(in, c, "zeros", 0); }));
  tf->Set("ones", Fn("ones", [](Interpreter& in, CallArgs& c) { return FillLike(in, c, "ones", 1); }));
  tf->Set("concat", Fn("concat", Concat));
  tf->Set("transpose", Fn("transpose", Transpose));
  tf->Set("where", Fn("where", Where));
  tf->Set("TensorSpec", Fn("TensorSpec", TensorSpec));
  autograph->Set("to_code", Fn("to_code", ToCode));
  auto experimental = std::make_shared<Namespace>("tensorflow.autograph.experimental");
  autograph->Set("experimental", Value::Obj(experimental));
  Value set_element_type = Fn("set_element_type", [](Interpreter&, CallArgs& call) -> StatusOr<Value> {
    if (call.args.size() < 2 || !call.args[0].is(K::kList)) {
      return PyError("TypeError", "set_element_type(list, dtype) takes a Python list and a dtype");
    }
    ASSIGN_OR_RETURN(DType dtype, DTypeFromValue(call.args[1]));
    call.args[0].as_list()->element_dtype = static_cast<int>(dtype);
    return Value::None();
  });
  experimental->Set("set_element_type", set_element_type);
  autograph->Set("set_element_type", set_element_type);
  Value stack = Fn("stack", [](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    if (call.args.empty()) return PyError("TypeError", "stack() takes a list of tensors or a TensorArray");
    if (auto ta = call.args[0].object_as<TensorArrayObj>()) return ta->BufferTensor(in);
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
    ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(call.args[0]));
    std::vector<OutputRef> inputs;
    DType hint = DType::kInvalid;
    for (const Value& v : items) {
      if (v.is(K::kTensor)) hint = v.as_tensor()->dtype;
    }
    for (const Value& v : items) {
      ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(v, hint));
      inputs.push_back(r);
    }
    int64_t axis = 0;
    for (const auto& [k, v] : call.kwargs) {
      if (k == "axis" && v.is_int_like()) axis = v.as_int();
    }
    return t->Op("Pack", inputs, {{"axis", axis}}, "stack");
  });
  tf->Set("stack", stack);
  autograph->Set("stack", stack);
  tf->Set("print", Fn("print", TfPrint));
  tf->Set("Variable", Fn("Variable", MakeVariable));
  tf->Set("TensorArray", Fn("TensorArray", MakeTensorArray));
  const std::pair<const char*, const char*> kBinary[] = {
      {"add", "Add"}, {"subtract", "Sub"}, {"multiply", "Mul"}, {"divide", "Div"}, {"maximum", "Maximum"},
      {"minimum", "Minimum"}, {"floordiv", "FloorDiv"}, {"pow", "Pow"}, {"equal", "Equal"},
      {"not_equal", "NotEqual"}, {"less", "Less"}, {"less_equal", "LessEqual"}, {"greater", "Greater"},
      {"greater_equal", "GreaterEqual"}, {"logical_and", "LogicalAnd"}, {"logical_or", "LogicalOr"}};
  for (const auto& [name, op] : kBinary) {
    tf->Set(name, BinaryFn(name, op));
    math->Set(name, BinaryFn(name, op));
  }
  math->Set("floormod", BinaryFn("floormod", "FloorMod"));
  const std::pair<const char*, const char*> kUnary[] = {
      {"abs", "Abs"}, {"negative", "Neg"}, {"sign", "Sign"}, {"exp", "Exp"}, {"log", "Log"}, {"sqrt", "Sqrt"},
      {"rsqrt", "Rsqrt"}, {"square", "Square"}, {"sin", "Sin"}, {"cos", "Cos"}, {"round", "Round"},
      {"floor", "Floor"}, {"ceil", "Ceil"}, {"tanh", "Tanh"}, {"sigmoid", "Sigmoid"}, {"identity", "Identity"},
      {"logical_not", "LogicalNot"}};
  for (const auto& [name, op] : kUnary) {
    tf->Set(name, UnaryFn(name, op));
    math->Set(name, UnaryFn(name, op));
  }
  for (const auto& [name, op] : std::vector<std::pair<const char*, const char*>>{
           {"relu", "Relu"}, {"relu6", "Relu6"}, {"sigmoid", "Sigmoid"}, {"tanh", "Tanh"},
           {"softmax", "Softmax"}, {"log_softmax", "LogSoftmax"}}) {
    nn->Set(name, UnaryFn(name, op));
  }
  const std::pair<const char*, const char*> kReduce[] = {
      {"reduce_sum", "Sum"}, {"reduce_mean", "Mean"}, {"reduce_max", "Max"}, {"reduce_min", "Min"},
      {"reduce_prod", "Prod"}, {"reduce_any", "Any"}, {"reduce_all", "All"}};
  for (const auto& [name, op] : kReduce) {
    tf->Set(name, ReduceFn(name, op));
    math->Set(name, ReduceFn(name, op));
  }
  // @tf.function and @tf.function(...): this stage traces the whole call, so a
  // decorated function is the function itself (inlined when called from another).
  tf->Set("function", Fn("function", [](Interpreter& in, CallArgs& call) -> StatusOr<Value> {
    if (call.args.size() == 1 && call.args[0].object_as<FunctionObj>()) return call.args[0];
    std::optional<std::vector<Value>> signature;
    for (const auto& [k, v] : call.kwargs) {
      if (k != "input_signature" || v.is_none()) continue;
      ASSIGN_OR_RETURN(std::vector<Value> specs, in.Iterate(v));
      for (const Value& s : specs) {
        if (!s.object_as<TensorSpecObj>()) return PyError("TypeError", "input_signature must be a list of tf.TensorSpec");
      }
      signature = std::move(specs);
    }
    return Fn("function", [signature](Interpreter&, CallArgs& inner) -> StatusOr<Value> {
      auto fn = inner.args.size() == 1 ? inner.args[0].object_as<FunctionObj>() : nullptr;
      if (fn == nullptr) return PyError("TypeError", "tf.function(...) decorates one function");
      if (signature) fn->input_signature = signature;
      return inner.args[0];
    });
  }));
  return tf;
}

}  // namespace graphd::compiler::tracer
