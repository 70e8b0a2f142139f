// tf.strings (join, length) and tf.random's stateless generators (stateless_uniform,
// stateless_normal): the shape and the seed are attributes, known at trace time.
#include "compiler/tracer/errors.h"
#include "compiler/tracer/tf_args.h"

namespace graphd::compiler::tracer {
namespace {

StatusOr<Value> StringsJoin(Interpreter& in, CallArgs& call) {
  Args a("join", call, {"inputs", "separator", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value inputs_value, a.Get("inputs"));
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(inputs_value));
  if (items.empty()) return PyError("ValueError", "strings.join() needs at least one input");
  ASSIGN_OR_RETURN(std::string separator, a.StrOr("separator", ""));
  std::vector<OutputRef> inputs;
  for (const Value& v : items) {
    ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(v, DType::kString));
    if (DTypeOf(r) != DType::kString) {
      return PyError("TypeError", "strings.join() inputs must be strings, got " + std::string(DTypeName(DTypeOf(r))));
    }
    inputs.push_back(r);
  }
  return t->Op("StringJoin", inputs, {{"separator", separator}}, "StringJoin");
}

StatusOr<Value> StringsLength(Interpreter& in, CallArgs& call) {
  Args a("length", call, {"input", "unit", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value x, a.Get("input"));
  ASSIGN_OR_RETURN(OutputRef xr, t->ToTensor(x, DType::kString));
  ASSIGN_OR_RETURN(std::string unit, a.StrOr("unit", "BYTE"));
  if (unit != "BYTE" && unit != "UTF8_CHAR") {
    return PyError("ValueError", "strings.length() unit must be 'BYTE' or 'UTF8_CHAR', got '" + unit + "'");
  }
  return t->Op("StringLength", {xr}, {{"unit", unit}}, "StringLength");
}

// The shape and seed of a stateless generator.
Status RandomAttrs(const Args& a, AttrMap& attrs) {
  ASSIGN_OR_RETURN(Value shape_value, a.Get("shape"));
  ASSIGN_OR_RETURN(IntList shape, StaticInts(shape_value, a.fn() + "() shape"));
  for (int64_t d : shape) {
    if (d < 0) return PyError("ValueError", a.fn() + "() dimensions must be >= 0, got " + std::to_string(d));
  }
  ASSIGN_OR_RETURN(Value seed_value, a.Get("seed"));
  ASSIGN_OR_RETURN(IntList seed, StaticInts(seed_value, a.fn() + "() seed"));
  if (seed.size() != 2) {
    return PyError("ValueError", a.fn() + "() seed must have shape [2], got " + std::to_string(seed.size()) + " values");
  }
  attrs["shape"] = shape;
  attrs["seed"] = seed;
  return absl::OkStatus();
}

// x * scale + offset, skipping the identity parts for Python 1 and 0.
StatusOr<Value> Affine(Interpreter& in, Value x, const Value& scale, const Value& offset) {
  if (!(scale.is_number() && scale.as_float() == 1)) {
    ASSIGN_OR_RETURN(x, in.BinaryOp(ast::BinOpKind::kMult, x, scale));
  }
  if (!(offset.is_number() && offset.as_float() == 0)) {
    ASSIGN_OR_RETURN(x, in.BinaryOp(ast::BinOpKind::kAdd, x, offset));
  }
  return x;
}

// stateless_uniform: floats in [minval, maxval) (default [0, 1)); integers (both
// bounds required) as floor(minval + u * (maxval - minval)).
StatusOr<Value> StatelessUniform(Interpreter& in, CallArgs& call) {
  Args a("stateless_uniform", call, {"shape", "seed", "minval", "maxval", "dtype", "name", "alg"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  AttrMap attrs;
  RETURN_IF_ERROR(RandomAttrs(a, attrs));
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kFloat32));
  Value minval = a.GetOr("minval", Value::Int(0));
  if (minval.is_none()) minval = Value::Int(0);
  if (IsFloating(dtype)) {
    Value maxval = a.Has("maxval") ? *a.Get("maxval") : Value::Int(1);
    attrs["dtype"] = dtype;
    ASSIGN_OR_RETURN(Value u, t->Op("StatelessRandomUniform", {}, std::move(attrs), "stateless_random_uniform"));
    ASSIGN_OR_RETURN(Value scale, in.BinaryOp(ast::BinOpKind::kSub, maxval, minval));
    return Affine(in, u, scale, minval);
  }
  if (!IsInteger(dtype)) {
    return PyError("TypeError", "stateless_uniform() dtype must be a float or an integer type, got " +
                                    std::string(DTypeName(dtype)));
  }
  if (!a.Has("maxval")) {
    return PyError("ValueError", "Must specify maxval for integer dtype " + std::string(DTypeName(dtype)));
  }
  ASSIGN_OR_RETURN(double lo, StaticNumber(minval, "stateless_uniform() minval"));
  ASSIGN_OR_RETURN(double hi, StaticNumber(*a.Get("maxval"), "stateless_uniform() maxval"));
  if (!(lo < hi)) return PyError("ValueError", "stateless_uniform() needs minval < maxval");
  attrs["dtype"] = DType::kFloat64;
  ASSIGN_OR_RETURN(Value u, t->Op("StatelessRandomUniform", {}, std::move(attrs), "stateless_random_uniform"));
  ASSIGN_OR_RETURN(Value scaled, Affine(in, u, Value::Float(hi - lo), Value::Float(lo)));
  ASSIGN_OR_RETURN(OutputRef sr, t->ToTensor(scaled));
  ASSIGN_OR_RETURN(Value floored, t->Op("Floor", {sr}, {}, "stateless_random_uniform"));
  ASSIGN_OR_RETURN(OutputRef fr, t->ToTensor(floored));
  return t->Op("Cast", {fr}, {{"DstT", dtype}}, "stateless_random_uniform");
}

// stateless_normal: mean + stddev * N(0, 1).
StatusOr<Value> StatelessNormal(Interpreter& in, CallArgs& call) {
  Args a("stateless_normal", call, {"shape", "seed", "mean", "stddev", "dtype", "name", "alg"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  AttrMap attrs;
  RETURN_IF_ERROR(RandomAttrs(a, attrs));
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kFloat32));
  if (!IsFloating(dtype)) {
    return PyError("TypeError",
                   "stateless_normal() dtype must be float32 or float64, got " + std::string(DTypeName(dtype)));
  }
  attrs["dtype"] = dtype;
  ASSIGN_OR_RETURN(Value n, t->Op("StatelessRandomNormal", {}, std::move(attrs), "stateless_random_normal"));
  Value mean = a.Has("mean") ? *a.Get("mean") : Value::Float(0);
  Value stddev = a.Has("stddev") ? *a.Get("stddev") : Value::Float(1);
  return Affine(in, n, stddev, mean);
}

// The stateful generators (tf.random.uniform, normal, ...) are not implemented: their
// values would differ from TensorFlow's anyway, so they say which call to use.
StatusOr<Value> StatefulRandom(const std::string& name) {
  return PyError("NotImplementedError",
                 "tf.random." + name + " is not supported by graphd: its stateful random stream cannot match "
                 "TensorFlow's. Use tf.random.stateless_" + (name == "truncated_normal" ? "normal" : name) +
                 "(shape, seed=[a, b], ...) instead, which gives the same values on every call for the same seed.");
}

// tf.name_scope(name): a context manager under which the nodes made get names
// "name/..."; `as` binds the scope's full name ("outer/name/").
class NameScopeObj : public Object {
 public:
  explicit NameScopeObj(std::string name) : name_(std::move(name)) {}
  std::string TypeName() const override { return "name_scope"; }
  StatusOr<Value> Enter(Interpreter& interp) override {
    auto* tracer = dynamic_cast<Tracer*>(interp.tensor_hooks());
    if (tracer == nullptr) return Value::Str(name_.empty() ? "" : name_ + "/");
    if (name_.empty()) return Value::Str("");
    tracer_ = tracer;
    tracer->PushNameScope(name_);
    return Value::Str(tracer->NameScopePrefix());
  }
  Status Exit(Interpreter&, bool) override {
    if (tracer_ != nullptr) tracer_->PopNameScope();
    tracer_ = nullptr;
    return absl::OkStatus();
  }

 private:
  std::string name_;
  Tracer* tracer_ = nullptr;  // the tracer entered, for the duration of the block
};

StatusOr<Value> NameScope(Interpreter&, CallArgs& call) {
  Args a("name_scope", call, {"name", "default_name", "values"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Value name, a.Get("name"));
  if (!name.is(Value::Kind::kStr)) {
    return PyError("ValueError", "name_scope() name must be a string, got " + name.TypeName());
  }
  const std::string& n = name.as_str();
  for (char c : n) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '/')) {
      return PyError("ValueError", "'" + n + "' is not a valid scope name");
    }
  }
  return Value::Obj(std::make_shared<NameScopeObj>(n.size() > 0 && n.back() == '/' ? n.substr(0, n.size() - 1) : n));
}

}  // namespace

void AddMiscFunctions(Namespace& tf, Namespace& strings, Namespace& random) {
  tf.Set("name_scope", Fn("name_scope", NameScope));
  // The global seed only affects the stateful generators, which graphd does not have.
  random.Set("set_seed", Fn("set_seed", [](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    if (a.args.size() != 1 || !(a.args[0].is_int_like() || a.args[0].is_none())) {
      return PyError("TypeError", "set_seed() takes one int (or None)");
    }
    return Value::None();
  }));
  for (const char* name : {"uniform", "normal", "truncated_normal", "shuffle", "categorical", "poisson", "gamma"}) {
    std::string n = name;
    random.Set(n, Fn(n, [n](Interpreter&, CallArgs&) { return StatefulRandom(n); }));
  }
  strings.Set("join", Fn("join", StringsJoin));
  strings.Set("length", Fn("length", StringsLength));
  random.Set("stateless_uniform", Fn("stateless_uniform", StatelessUniform));
  random.Set("stateless_normal", Fn("stateless_normal", StatelessNormal));
}

}  // namespace graphd::compiler::tracer
