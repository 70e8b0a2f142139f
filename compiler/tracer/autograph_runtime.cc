// AutoGraph's runtime (`ag__`) for Python values: the converted code runs exactly as
// the original Python would. The tracer overrides the entries that must dispatch on
// tensors (conditions, iterables), falling back to these.
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/interpreter.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// `n` arguments, or n + `optional` (loops take an options dict last).
Status Args(const CallArgs& a, size_t n, const char* name, size_t optional = 0) {
  if (a.args.size() < n || a.args.size() > n + optional) {
    return PyError("TypeError", std::string("ag__.") + name + "() takes " + std::to_string(n) + " arguments");
  }
  return absl::OkStatus();
}

StatusOr<Value> IfStmt(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Args(a, 7, "if_stmt"));
  ASSIGN_OR_RETURN(bool cond, in.Truthy(a.args[0]));
  RETURN_IF_ERROR(in.CallNoArgs(cond ? a.args[1] : a.args[2], a.site).status());
  return Value::None();
}

StatusOr<Value> WhileStmt(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Args(a, 5, "while_stmt", 1));
  while (true) {
    RETURN_IF_ERROR(in.Step());
    ASSIGN_OR_RETURN(Value test, in.CallNoArgs(a.args[0], a.site));
    ASSIGN_OR_RETURN(bool go_on, in.Truthy(test));
    if (!go_on) break;
    RETURN_IF_ERROR(in.CallNoArgs(a.args[1], a.site).status());
  }
  return Value::None();
}

StatusOr<Value> ForStmt(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Args(a, 6, "for_stmt", 1));
  ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(a.args[0]));
  for (const Value& item : items) {
    RETURN_IF_ERROR(in.Step());
    if (!a.args[1].is_none()) {
      ASSIGN_OR_RETURN(Value test, in.CallNoArgs(a.args[1], a.site));
      ASSIGN_OR_RETURN(bool go_on, in.Truthy(test));
      if (!go_on) break;
    }
    RETURN_IF_ERROR(in.Call(a.args[2], CallArgs{.args = {item}, .site = a.site}).status());
  }
  return Value::None();
}

StatusOr<Value> IfExp(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Args(a, 4, "if_exp"));
  ASSIGN_OR_RETURN(bool cond, in.Truthy(a.args[0]));
  return in.CallNoArgs(cond ? a.args[1] : a.args[2], a.site);
}

StatusOr<Value> AndOr(Interpreter& in, CallArgs& a, bool is_and) {
  RETURN_IF_ERROR(Args(a, 2, is_and ? "and_" : "or_"));
  ASSIGN_OR_RETURN(Value left, in.CallNoArgs(a.args[0], a.site));
  ASSIGN_OR_RETURN(bool truth, in.Truthy(left));
  if (truth != is_and) return left;
  return in.CallNoArgs(a.args[1], a.site);
}

StatusOr<Value> AssertStmt(Interpreter& in, CallArgs& a) {
  RETURN_IF_ERROR(Args(a, 2, "assert_stmt"));
  ASSIGN_OR_RETURN(bool ok, in.Truthy(a.args[0]));
  if (ok) return Value::None();
  std::string msg;
  if (!a.args[1].is_none()) {
    ASSIGN_OR_RETURN(Value m, in.CallNoArgs(a.args[1], a.site));
    msg = PyStr(m);
  }
  return PyError("AssertionError", msg);
}

Value Fn(const std::string& name, BuiltinFn fn) { return Value::Obj(std::make_shared<BuiltinObj>(name, std::move(fn))); }

}  // namespace

std::shared_ptr<Namespace> MakeAutographRuntime() {
  auto ag = std::make_shared<Namespace>("ag__");
  ag->Set("if_stmt", Fn("if_stmt", IfStmt));
  ag->Set("while_stmt", Fn("while_stmt", WhileStmt));
  ag->Set("for_stmt", Fn("for_stmt", ForStmt));
  ag->Set("if_exp", Fn("if_exp", IfExp));
  ag->Set("and_", Fn("and_", [](Interpreter& in, CallArgs& a) { return AndOr(in, a, true); }));
  ag->Set("or_", Fn("or_", [](Interpreter& in, CallArgs& a) { return AndOr(in, a, false); }));
  ag->Set("not_", Fn("not_", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Args(a, 1, "not_"));
    return in.UnaryOp(ast::UnaryOpKind::kNot, a.args[0]);
  }));
  ag->Set("assert_stmt", Fn("assert_stmt", AssertStmt));
  ag->Set("list_append", Fn("list_append", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Args(a, 2, "list_append"));
    ASSIGN_OR_RETURN(Value append, in.GetAttr(a.args[0], "append"));
    RETURN_IF_ERROR(in.Call(append, CallArgs{.args = {a.args[1]}, .site = a.site}).status());
    return a.args[0];
  }));
  ag->Set("Undefined", Fn("Undefined", [](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Args(a, 1, "Undefined"));
    return Value::Obj(std::make_shared<UndefinedObj>(PyStr(a.args[0])));
  }));
  // ldu(lambda: x, 'x'): x, or Undefined('x') when x is not bound, or the composite
  // x['a'] / x.a does not exist (get_state uses it).
  ag->Set("ldu", Fn("ldu", [](Interpreter& in, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Args(a, 2, "ldu"));
    auto v = in.CallNoArgs(a.args[0], a.site);
    if (!v.ok() && (IsPyError(v.status(), "NameError") || IsPyError(v.status(), "KeyError") ||
                    IsPyError(v.status(), "AttributeError"))) {
      return Value::Obj(std::make_shared<UndefinedObj>(PyStr(a.args[1])));
    }
    return v;
  }));
  ag->Set("UndefinedReturnValue", Fn("UndefinedReturnValue", [](Interpreter&, CallArgs&) -> StatusOr<Value> {
    return Value::Obj(std::make_shared<UndefinedReturnValueObj>());
  }));
  ag->Set("retval", Fn("retval", [](Interpreter&, CallArgs& a) -> StatusOr<Value> {
    RETURN_IF_ERROR(Args(a, 1, "retval"));
    if (a.args[0].object_as<UndefinedReturnValueObj>()) return Value::None();
    return a.args[0];
  }));
  return ag;
}

}  // namespace graphd::compiler::tracer
