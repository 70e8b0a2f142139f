#include "compiler/tracer/trace.h"

#include "compiler/tracer/errors.h"
#include "compiler/tracer/nest.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/tracer.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// Replaces tensors in `v` by OutputSlots, collecting them (brought into the root).
// A tf.function (`as_tf`) returns tensors as TensorFlow does: Python numbers, bools
// and strings become tensors (int32, float32, bool, string), variables their values;
// other objects cannot be returned (TypeError). A plain function returns them as
// they are.
StatusOr<Value> Split(Tracer& tracer, const Value& v, std::vector<OutputRef>& results, const FunctionObj& fn,
                      bool as_tf, int depth = 0) {
  if (depth > kMaxNestDepth) {
    return PyError("RecursionError", "the value returned by " + fn.name + " is nested more than " +
                                         std::to_string(kMaxNestDepth) + " levels deep");
  }
  auto slot = [&](const Value& tensor) -> StatusOr<Value> {
    ASSIGN_OR_RETURN(OutputRef r, tracer.ToTensor(tensor));
    results.push_back(r);
    return Value::Obj(std::make_shared<OutputSlot>(static_cast<int>(results.size()) - 1));
  };
  switch (v.kind()) {
    case K::kTensor: return slot(v);
    case K::kTuple:
    case K::kList: {
      std::vector<Value> items;
      for (const Value& e : v.is(K::kTuple) ? v.as_tuple() : v.as_list()->items) {
        ASSIGN_OR_RETURN(Value s, Split(tracer, e, results, fn, as_tf, depth + 1));
        items.push_back(std::move(s));
      }
      return v.is(K::kTuple) ? Value::Tuple(std::move(items)) : Value::List(std::move(items));
    }
    case K::kDict: {
      Value out = Value::NewDict();
      for (const auto& [k, e] : v.as_dict()->items) {
        ASSIGN_OR_RETURN(Value s, Split(tracer, e, results, fn, as_tf, depth + 1));
        out.as_dict()->items.emplace_back(k, std::move(s));
      }
      return out;
    }
    case K::kObject:
      if (v.object_as<UndefinedObj>()) return PyError("UnboundLocalError", "the function returned an undefined value");
      if (const std::vector<Value>* items = v.as_object()->Items()) {  // a namedtuple: as a tuple
        return Split(tracer, Value::Tuple(*items), results, fn, as_tf, depth + 1);
      }
      if (!as_tf) return v;
      if (IsTensorLikeObject(v)) return slot(v);
      return PyError("TypeError", "To be compatible with tf.function, Python functions must return zero or more "
                                  "Tensors or None values; in compilation of " + fn.name +
                                  ", found return value of type " + v.TypeName() + ", which is not a Tensor.");
    case K::kNone: return v;
    default: return as_tf ? slot(v) : v;
  }
}

// Restores the interpreter's previous hooks when the trace ends.
class HooksGuard {
 public:
  HooksGuard(Interpreter& interp, TensorHooks* hooks) : interp_(interp), saved_(interp.tensor_hooks()) {
    interp.set_tensor_hooks(hooks);
  }
  ~HooksGuard() { interp_.set_tensor_hooks(saved_); }

 private:
  Interpreter& interp_;
  TensorHooks* saved_;
};

}  // namespace

StatusOr<ConcreteFunction> TraceFunction(Interpreter& interp, const Value& fn, const TraceArgs& trace_args,
                                         bool allow_variable_creation, const passes::Pipeline* passes) {
  auto user = fn.object_as<FunctionObj>();
  if (user == nullptr) return PyError("TypeError", "only functions defined with def can be traced, got " + fn.TypeName());
  GraphScope root(nullptr, user->name);
  root.set_passes(passes);
  Tracer tracer(&root, &interp);
  tracer.set_variable_creation_allowed(allow_variable_creation);
  HooksGuard hooks(interp, &tracer);
  std::string out_before = interp.out();
  interp.out().clear();

  // Tensor arguments become Args named after their parameters.
  std::vector<std::string> params;
  for (const auto& p : user->params->args) params.push_back(p.name);
  auto materialize = [&](const Value& v, const std::string& name) -> StatusOr<Value> {
    auto spec = v.object_as<TensorSpecObj>();
    if (spec == nullptr) return v;
    ASSIGN_OR_RETURN(const Node* arg, root.NewArg(spec->name.empty() ? name : spec->name, spec->dtype, spec->shape));
    return tracer.Wrap({arg, 0});
  };
  CallArgs call;
  for (size_t i = 0; i < trace_args.args.size(); ++i) {
    ASSIGN_OR_RETURN(Value v, materialize(trace_args.args[i], i < params.size() ? params[i] : "args_" + std::to_string(i)));
    call.args.push_back(std::move(v));
  }
  for (const auto& [k, v] : trace_args.kwargs) {
    ASSIGN_OR_RETURN(Value mv, materialize(v, k));
    call.kwargs.emplace_back(k, std::move(mv));
  }
  auto result = interp.Call(fn, std::move(call));
  ConcreteFunction cf{.trace_stdout = interp.out()};
  interp.out() = out_before;
  if (!result.ok()) return result.status();
  std::vector<OutputRef> results;
  ASSIGN_OR_RETURN(cf.output_template, Split(tracer, *result, results, *user, user->tf_function));
  for (int i = 0; i < root.graph().num_nodes(); ++i) {
    cf.traced_nodes.emplace_back(root.graph().node(i)->name(), root.graph().node(i)->op_name());
  }
  ASSIGN_OR_RETURN(cf.function, root.Finish(std::move(results)));
  return cf;
}

}  // namespace graphd::compiler::tracer
