// tf.function and tf.autograph: the decorator (input_signature, reduce_retracing),
// to_code / to_graph / convert, set_element_type, set_loop_options; and
// tf.TensorShape, which shape invariants use.
#include "compiler/autograph/converter.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tf_args.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// The options of @tf.function(...) that change what graphd does.
struct FunctionOptions {
  std::optional<std::vector<Value>> input_signature;
  bool reduce_retracing = false;
};

StatusOr<FunctionOptions> ParseOptions(Interpreter& in, const CallArgs& call) {
  Args a("function", call,
         {"func", "input_signature", "autograph", "jit_compile", "reduce_retracing", "experimental_implements",
          "experimental_autograph_options", "experimental_attributes", "experimental_relax_shapes",
          "experimental_compile", "experimental_follow_type_hints"});
  RETURN_IF_ERROR(a.Check());
  FunctionOptions options;
  if (a.Has("input_signature")) {
    ASSIGN_OR_RETURN(std::vector<Value> specs, in.Iterate(*a.Get("input_signature")));
    for (const Value& s : specs) {
      if (!s.object_as<TensorSpecObj>()) return PyError("TypeError", "input_signature must be a list of tf.TensorSpec");
    }
    options.input_signature = std::move(specs);
  }
  ASSIGN_OR_RETURN(bool reduce, a.Flag("reduce_retracing", false));
  ASSIGN_OR_RETURN(bool relax, a.Flag("experimental_relax_shapes", false));
  options.reduce_retracing = reduce || relax;
  return options;
}

// A tf.function of `fn`: a copy marked as such, so the plain function stays plain.
StatusOr<Value> Decorate(Interpreter& in, const Value& fn, const FunctionOptions& options) {
  auto f = fn.object_as<FunctionObj>();
  if (f == nullptr) return PyError("TypeError", "tf.function decorates a function, got " + fn.TypeName());
  auto copy = std::make_shared<FunctionObj>(*f);
  copy->tf_function = true;
  in.Adopt(copy);
  if (options.input_signature) copy->input_signature = options.input_signature;
  copy->reduce_retracing = copy->reduce_retracing || options.reduce_retracing;
  return Value::Obj(copy);
}

StatusOr<Value> TfFunction(Interpreter& in, CallArgs& call) {
  ASSIGN_OR_RETURN(FunctionOptions options, ParseOptions(in, call));
  if (!call.args.empty() && !call.args[0].is_none()) return Decorate(in, call.args[0], options);
  return Fn("function", [options](Interpreter& in, CallArgs& inner) -> StatusOr<Value> {
    if (inner.args.size() != 1) return PyError("TypeError", "tf.function(...) decorates one function");
    return Decorate(in, inner.args[0], options);
  });
}

StatusOr<Value> ToCode(Interpreter&, CallArgs& call) {
  if (call.args.size() != 1) return PyError("TypeError", "to_code() takes one function");
  auto fn = call.args[0].object_as<FunctionObj>();
  if (fn == nullptr || fn->def == nullptr) return PyError("TypeError", "to_code() takes a function defined with def");
  return Value::Str(autograph::ToCode(*fn->def->As<ast::FunctionDef>()));
}

// tf.autograph.to_graph(f) and @tf.autograph.convert(): every function graphd runs is
// already converted by AutoGraph, so these return the function.
StatusOr<Value> ToGraph(Interpreter&, CallArgs& call) {
  if (call.args.empty() || !call.args[0].object_as<FunctionObj>()) {
    return PyError("TypeError", "to_graph() takes a function");
  }
  return call.args[0];
}

StatusOr<Value> Convert(Interpreter&, CallArgs&) {
  return Fn("convert", [](Interpreter& in, CallArgs& inner) { return ToGraph(in, inner); });
}

// TensorShape([2, None]) is the tuple (2, None), as graphd's x.shape; TensorShape(None)
// (unknown rank) is None. Shapes given to shape invariants accept both.
StatusOr<Value> TensorShape(Interpreter&, CallArgs& call) {
  Args a("TensorShape", call, {"dims"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Value dims, a.Get("dims"));
  ASSIGN_OR_RETURN(PartialShape shape, ShapeFromValue(dims));
  if (!shape.known_rank()) return Value::None();
  std::vector<Value> out;
  for (int64_t d : shape.dims()) out.push_back(d == kUnknownDim ? Value::None() : Value::Int(d));
  return Value::Tuple(std::move(out));
}

StatusOr<Value> SetElementType(Interpreter&, CallArgs& call) {
  if (call.args.size() < 2 || !call.args[0].is(K::kList)) {
    return PyError("TypeError", "set_element_type(list, dtype) takes a Python list and a dtype");
  }
  ASSIGN_OR_RETURN(DType dtype, DTypeFromValue(call.args[1]));
  call.args[0].as_list()->element_dtype = static_cast<int>(dtype);
  return Value::None();
}

}  // namespace

void AddFunctionAndAutograph(Namespace& tf, Namespace& autograph) {
  tf.Set("function", Fn("function", TfFunction));
  tf.Set("TensorShape", Fn("TensorShape", TensorShape));
  autograph.Set("to_code", Fn("to_code", ToCode));
  autograph.Set("to_graph", Fn("to_graph", ToGraph));
  autograph.Set("convert", Fn("convert", Convert));
  // tf.autograph.trace(*args): prints its arguments while tracing, whatever the
  // control flow around it (print() inside a staged body prints when it runs).
  autograph.Set("trace", Fn("trace", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    std::string line;
    for (size_t i = 0; i < a.args.size(); ++i) line += (i ? " " : "") + PyStr(a.args[i]);
    in.out() += line + "\n";
    return Value::None();
  }));
  auto experimental = std::make_shared<Namespace>("tensorflow.autograph.experimental");
  autograph.Set("experimental", Value::Obj(experimental));
  Value set_element_type = Fn("set_element_type", SetElementType);
  experimental->Set("set_element_type", set_element_type);
  autograph.Set("set_element_type", set_element_type);
  // AutoGraph reads the options from the loop body (the converter passes them to the
  // loop); the call itself does nothing when it runs.
  experimental->Set("set_loop_options", Fn("set_loop_options", [](Interpreter&, CallArgs&) -> StatusOr<Value> {
    return Value::None();
  }));
}

}  // namespace graphd::compiler::tracer
