// The `tf` namespace: TensorFlow's Python API over the tracer, wired from the
// function families (tf_api_*.cc, declared in tf_args.h); also the tracing builtins
// and the numpy namespace. Each function parses its arguments as TensorFlow does
// (positional or keyword) and adds ops.
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/gradient_tape.h"
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
  // Filled in by the prelude (prelude.h).
  auto keras = sub("keras");
  keras->Set("optimizers", Value::Obj(std::make_shared<Namespace>("tensorflow.keras.optimizers")));
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
  for (const char* name : {"softmax", "log_softmax", "softplus", "softsign"}) math->Set(name, *nn->Find(name));
  AddControlFunctions(*tf, *debugging);
  AddMiscFunctions(*tf, *strings, *random);
  tf->Set("TensorSpec", Fn("TensorSpec", TensorSpec));
  tf->Set("Variable", Fn("Variable", MakeVariable));
  tf->Set("TensorArray", Fn("TensorArray", MakeTensorArray));
  tf->Set("GradientTape", Fn("GradientTape", MakeGradientTape));
  tf->Set("Module", MakeModuleClass(*tf->Find("name_scope")));
  tf->Set("gradients", Fn("gradients", Gradients));
  tf->Set("stop_gradient", Fn("stop_gradient", StopGradient));
  AddFunctionAndAutograph(*tf, *autograph);
  autograph->Set("stack", *tf->Find("stack"));
  return tf;
}

}  // namespace graphd::compiler::tracer
