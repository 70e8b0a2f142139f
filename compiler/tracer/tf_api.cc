// The `tf` namespace: TensorFlow's Python API over the tracer, wired from the
// function families (tf_api_*.cc, declared in tf_args.h); also the tracing builtins
// and the numpy namespace. Each function parses its arguments as TensorFlow does
// (positional or keyword) and adds ops.
#include "compiler/autograph/converter.h"
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/tensor_array.h"
#include "compiler/tracer/tf_args.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/variables.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

StatusOr<Value> TensorSpec(Interpreter&, CallArgs& call) {
  Args a("TensorSpec", call, {"shape", "dtype", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(PartialShape shape, ShapeFromValue(a.GetOr("shape", Value::None())));
  ASSIGN_OR_RETURN(DType dtype, a.DTypeOr("dtype", DType::kFloat32));
  Value name = a.GetOr("name", Value::None());
  return Value::Obj(std::make_shared<TensorSpecObj>(shape, dtype, name.is(K::kStr) ? name.as_str() : ""));
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
      return PrintOp(*tracer, call.args, KwString(call, "sep", " "), KwString(call, "end", "\n"), "stdout");
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
  auto sub = [&](const std::string& name) {
    auto ns = std::make_shared<Namespace>("tensorflow." + name);
    tf->Set(name, Value::Obj(ns));
    return ns;
  };
  auto nn = sub("nn"), math = sub("math"), linalg = sub("linalg"), autograph = sub("autograph");
  auto debugging = sub("debugging"), strings = sub("strings"), random = sub("random");
  for (int d = 1; d < kNumDTypes; ++d) {
    DType dtype = static_cast<DType>(d);
    tf->Set(std::string(DTypeName(dtype)), DTypeObj::Make(dtype));
  }
  tf->Set("newaxis", Value::None());
  AddCreationFunctions(*tf);
  AddShapeFunctions(*tf);
  AddArrayFunctions(*tf);
  AddMathFunctions(*tf, *math, *linalg);
  AddNnFunctions(*nn);
  for (const char* name : {"softmax", "log_softmax"}) math->Set(name, *nn->Find(name));
  AddControlFunctions(*tf, *debugging);
  AddStringAndRandomFunctions(*strings, *random);
  tf->Set("TensorSpec", Fn("TensorSpec", TensorSpec));
  tf->Set("Variable", Fn("Variable", MakeVariable));
  tf->Set("TensorArray", Fn("TensorArray", MakeTensorArray));
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
  autograph->Set("stack", *tf->Find("stack"));
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
