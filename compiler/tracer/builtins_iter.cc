// Builtins over iterables: any all map filter iter next.
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/interpreter.h"

namespace graphd::compiler::tracer {
namespace {

Value Fn(const std::string& name, BuiltinFn fn) { return Value::Obj(std::make_shared<BuiltinObj>(name, std::move(fn))); }

Status Arity(const CallArgs& a, size_t lo, size_t hi, const std::string& name) {
  if (a.args.size() < lo || a.args.size() > hi || !a.kwargs.empty()) {
    return PyError("TypeError", name + "() takes " + std::to_string(lo) +
                                    (lo == hi ? "" : " to " + std::to_string(hi)) + " positional arguments");
  }
  return absl::OkStatus();
}

// any()/all(): the truth of tensors is an error here as in Python (use tf.reduce_any).
StatusOr<Value> AnyAll(Interpreter& in, CallArgs& a, bool any) {
  RETURN_IF_ERROR(Arity(a, 1, 1, any ? "any" : "all"));
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
  for (const Value& v : items) {
    ASSIGN_OR_RETURN(bool t, in.Truthy(v));
    if (t == any) return Value::Bool(any);
  }
  return Value::Bool(!any);
}

StatusOr<Value> Map(Interpreter& in, CallArgs& a) {
  if (a.args.size() < 2) return PyError("TypeError", "map() must have at least two arguments.");
  std::vector<std::vector<Value>> columns;
  size_t n = SIZE_MAX;
  for (size_t i = 1; i < a.args.size(); ++i) {
    ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[i]));
    n = std::min(n, items.size());
    columns.push_back(std::move(items));
  }
  std::vector<Value> out;
  for (size_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(in.Step());
    CallArgs call{.site = a.site};
    for (const auto& col : columns) call.args.push_back(col[i]);
    ASSIGN_OR_RETURN(Value v, in.Call(a.args[0], call));
    out.push_back(std::move(v));
  }
  return Value::Obj(std::make_shared<IteratorObj>(std::move(out)));
}

StatusOr<Value> Filter(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Arity(a, 2, 2, "filter"));
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[1]));
  std::vector<Value> out;
  for (const Value& v : items) {
    RETURN_IF_ERROR(in.Step());
    Value keep_value = v;
    if (!a.args[0].is_none()) {
      ASSIGN_OR_RETURN(keep_value, in.Call(a.args[0], CallArgs{.args = {v}, .site = a.site}));
    }
    ASSIGN_OR_RETURN(bool keep, in.Truthy(keep_value));
    if (keep) out.push_back(v);
  }
  return Value::Obj(std::make_shared<IteratorObj>(std::move(out)));
}

StatusOr<Value> Iter(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Arity(a, 1, 1, "iter"));
  if (a.args[0].object_as<IteratorObj>()) return a.args[0];
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
  return Value::Obj(std::make_shared<IteratorObj>(std::move(items)));
}

StatusOr<Value> Next(Interpreter&, CallArgs& a) {
  RETURN_IF_ERROR(Arity(a, 1, 2, "next"));
  auto it = a.args[0].object_as<IteratorObj>();
  if (it == nullptr) return PyError("TypeError", "'" + a.args[0].TypeName() + "' object is not an iterator");
  if (std::optional<Value> v = it->Next()) return *v;
  if (a.args.size() == 2) return a.args[1];
  return PyError("StopIteration", "the iterator is exhausted");
}

}  // namespace

void AddIterationBuiltins(Namespace& b) {
  b.Set("any", Fn("any", [](Interpreter& in, CallArgs& a) { return AnyAll(in, a, true); }));
  b.Set("all", Fn("all", [](Interpreter& in, CallArgs& a) { return AnyAll(in, a, false); }));
  b.Set("map", Fn("map", Map));
  b.Set("filter", Fn("filter", Filter));
  b.Set("iter", Fn("iter", Iter));
  b.Set("next", Fn("next", Next));
}

}  // namespace graphd::compiler::tracer
