// tf.strings (join, length); tf.random: the stateless generators (stateless_uniform,
// stateless_normal), the stateful ones (uniform, normal) and set_seed, shapes and
// seeds being attributes known at trace time; tf.name_scope.
#include "absl/strings/ascii.h"
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

// The shape of a generator (static), into attrs.
Status ShapeAttr(const Args& a, AttrMap& attrs) {
  ASSIGN_OR_RETURN(Value shape_value, a.Get("shape"));
  ASSIGN_OR_RETURN(IntList shape, StaticInts(shape_value, a.fn() + "() shape"));
  for (int64_t d : shape) {
    if (d < 0) return PyError("ValueError", a.fn() + "() dimensions must be >= 0, got " + std::to_string(d));
  }
  attrs["shape"] = shape;
  return absl::OkStatus();
}

// The seed pair of a stateless generator ([2] ints), into attrs.
Status StatelessSeedAttr(const Args& a, AttrMap& attrs) {
  ASSIGN_OR_RETURN(Value seed_value, a.Get("seed"));
  ASSIGN_OR_RETURN(IntList seed, StaticInts(seed_value, a.fn() + "() seed"));
  if (seed.size() != 2) {
    return PyError("ValueError", a.fn() + "() seed must have shape [2], got " + std::to_string(seed.size()) + " values");
  }
  attrs["seed"] = seed;
  return absl::OkStatus();
}

// TensorFlow's graph-level default seed, used when only the op seed is given.
constexpr int64_t kDefaultGraphSeed = 87654321;

// The seed pair of a stateful generator, as TensorFlow's get_seed picks it from the
// global seed (tf.random.set_seed, kept in `random`) and the op's `seed`: both when
// given; the default graph seed with an op seed; the global seed with a per-trace
// count when only it is set; [0, 0] (a fresh seed per kernel) when neither is.
Status StatefulSeedAttr(const Args& a, Tracer& t, const Namespace& random, AttrMap& attrs) {
  const Value* global = random.Find("_global_seed");
  Value op_seed = a.GetOr("seed", Value::None());
  if (!op_seed.is_none() && !op_seed.is_int_like()) {
    return PyError("TypeError", a.fn() + "() seed must be an int or None, got " + op_seed.TypeName());
  }
  const bool has_global = global != nullptr && global->is_int_like();
  IntList seed = {0, 0};
  if (has_global) {
    seed = {global->as_int(), op_seed.is_none() ? int64_t{t.scope().graph().num_nodes()} : op_seed.as_int()};
  } else if (!op_seed.is_none()) {
    seed = {kDefaultGraphSeed, op_seed.as_int()};
  }
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

// Uniform numbers from `op` (attrs: shape and seed set): floats in [minval, maxval)
// (default [0, 1)); integers (both bounds required) as floor(minval + u * (maxval -
// minval)), the bounds Python numbers or tensors.
StatusOr<Value> Uniform(Interpreter& in, const Args& a, const std::string& op, AttrMap attrs) {
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kFloat32));
  Value minval = a.GetOr("minval", Value::Int(0));
  if (minval.is_none()) minval = Value::Int(0);
  const std::string base = absl::AsciiStrToLower(op);
  if (IsFloating(dtype)) {
    Value maxval = a.Has("maxval") && !a.Get("maxval")->is_none() ? *a.Get("maxval") : Value::Int(1);
    attrs["dtype"] = dtype;
    ASSIGN_OR_RETURN(Value u, t->Op(op, {}, std::move(attrs), base));
    ASSIGN_OR_RETURN(Value scale, in.BinaryOp(ast::BinOpKind::kSub, maxval, minval));
    return Affine(in, u, scale, minval);
  }
  if (!IsInteger(dtype)) {
    return PyError("TypeError", a.fn() + "() dtype must be a float or an integer type, got " +
                                    std::string(DTypeName(dtype)));
  }
  if (!a.Has("maxval") || a.Get("maxval")->is_none()) {
    return PyError("ValueError", "Must specify maxval for integer dtype " + std::string(DTypeName(dtype)));
  }
  Value maxval = *a.Get("maxval");
  if (minval.is_number() && maxval.is_number() && !(minval.as_float() < maxval.as_float())) {
    return PyError("ValueError", a.fn() + "() needs minval < maxval");
  }
  attrs["dtype"] = DType::kFloat64;
  ASSIGN_OR_RETURN(Value u, t->Op(op, {}, std::move(attrs), base));
  auto as_f64 = [&](const Value& v) -> StatusOr<Value> {
    if (!v.is(Value::Kind::kTensor)) return Value::Float(v.as_float());
    ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(v));
    return t->Op("Cast", {r}, {{"DstT", DType::kFloat64}}, base);
  };
  if (!minval.is_number() && !minval.is(Value::Kind::kTensor)) {
    return PyError("TypeError", a.fn() + "() minval must be a number or a tensor");
  }
  if (!maxval.is_number() && !maxval.is(Value::Kind::kTensor)) {
    return PyError("TypeError", a.fn() + "() maxval must be a number or a tensor");
  }
  ASSIGN_OR_RETURN(Value lo, as_f64(minval));
  ASSIGN_OR_RETURN(Value hi, as_f64(maxval));
  ASSIGN_OR_RETURN(Value span, in.BinaryOp(ast::BinOpKind::kSub, hi, lo));
  ASSIGN_OR_RETURN(Value scaled, Affine(in, u, span, lo));
  ASSIGN_OR_RETURN(OutputRef sr, t->ToTensor(scaled));
  ASSIGN_OR_RETURN(Value floored, t->Op("Floor", {sr}, {}, base));
  ASSIGN_OR_RETURN(OutputRef fr, t->ToTensor(floored));
  return t->Op("Cast", {fr}, {{"DstT", dtype}}, base);
}

// mean + stddev * N(0, 1) from `op` (attrs: shape and seed set).
StatusOr<Value> Normal(Interpreter& in, const Args& a, const std::string& op, AttrMap attrs) {
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kFloat32));
  if (!IsFloating(dtype)) {
    return PyError("TypeError", a.fn() + "() dtype must be float32 or float64, got " + std::string(DTypeName(dtype)));
  }
  attrs["dtype"] = dtype;
  ASSIGN_OR_RETURN(Value n, t->Op(op, {}, std::move(attrs), absl::AsciiStrToLower(op)));
  Value mean = a.Has("mean") ? *a.Get("mean") : Value::Float(0);
  Value stddev = a.Has("stddev") ? *a.Get("stddev") : Value::Float(1);
  return Affine(in, n, stddev, mean);
}

StatusOr<Value> StatelessUniform(Interpreter& in, CallArgs& call) {
  Args a("stateless_uniform", call, {"shape", "seed", "minval", "maxval", "dtype", "name", "alg"});
  RETURN_IF_ERROR(a.Check());
  AttrMap attrs;
  RETURN_IF_ERROR(ShapeAttr(a, attrs));
  RETURN_IF_ERROR(StatelessSeedAttr(a, attrs));
  return Uniform(in, a, "StatelessRandomUniform", std::move(attrs));
}

StatusOr<Value> StatelessNormal(Interpreter& in, CallArgs& call) {
  Args a("stateless_normal", call, {"shape", "seed", "mean", "stddev", "dtype", "name", "alg"});
  RETURN_IF_ERROR(a.Check());
  AttrMap attrs;
  RETURN_IF_ERROR(ShapeAttr(a, attrs));
  RETURN_IF_ERROR(StatelessSeedAttr(a, attrs));
  return Normal(in, a, "StatelessRandomNormal", std::move(attrs));
}

// tf.random.uniform / normal (`normal`): new numbers on every run (RandomUniform,
// RandomStandardNormal), reproducible for a given global and op seed, not TensorFlow's
// numbers (its generator's stream is its own).
StatusOr<Value> Stateful(Interpreter& in, CallArgs& call, const Namespace& random, bool normal) {
  Args a(normal ? "normal" : "uniform", call,
         {"shape", normal ? "mean" : "minval", normal ? "stddev" : "maxval", "dtype", "seed", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  AttrMap attrs;
  RETURN_IF_ERROR(ShapeAttr(a, attrs));
  RETURN_IF_ERROR(StatefulSeedAttr(a, *t, random, attrs));
  if (normal) return Normal(in, a, "RandomStandardNormal", std::move(attrs));
  return Uniform(in, a, "RandomUniform", std::move(attrs));
}

// Generators graphd does not have say which ones to use.
StatusOr<Value> MissingRandom(const std::string& name) {
  return PyError("NotImplementedError", "tf.random." + name + " is not supported by graphd; tf.random.uniform, "
                                        "tf.random.normal and their stateless_ forms are");
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
  strings.Set("join", Fn("join", StringsJoin));
  strings.Set("length", Fn("length", StringsLength));
  // tf.random.set_seed(seed): the global seed the stateful generators traced later
  // derive theirs from.
  auto random_ns = std::static_pointer_cast<Namespace>(random.shared_from_this());
  std::weak_ptr<Namespace> weak_random = random_ns;
  random.Set("set_seed", Fn("set_seed", [weak_random](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    if (a.args.size() != 1 || !(a.args[0].is_int_like() || a.args[0].is_none())) {
      return PyError("TypeError", "set_seed() takes one int (or None)");
    }
    if (auto r = weak_random.lock()) r->Set("_global_seed", a.args[0]);
    return Value::None();
  }));
  for (bool normal : {false, true}) {
    const char* name = normal ? "normal" : "uniform";
    random.Set(name, Fn(name, [weak_random, normal](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
      auto r = weak_random.lock();
      if (r == nullptr) return PyError("RuntimeError", "tf.random is gone");
      return Stateful(in, a, *r, normal);
    }));
  }
  for (const char* name : {"truncated_normal", "shuffle", "categorical", "poisson", "gamma"}) {
    std::string n = name;
    random.Set(n, Fn(n, [n](Interpreter&, CallArgs&) { return MissingRandom(n); }));
  }
  random.Set("stateless_uniform", Fn("stateless_uniform", StatelessUniform));
  random.Set("stateless_normal", Fn("stateless_normal", StatelessNormal));
}

}  // namespace graphd::compiler::tracer
