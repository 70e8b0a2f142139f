// ag__ with tensor dispatch: MakeStagingRuntime (see tracer.h).
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/nest.h"
#include "compiler/tracer/staging.h"
#include "compiler/tracer/tensor_array.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

std::vector<std::string> Names(const Value& tuple) {
  std::vector<std::string> out;
  for (const Value& v : tuple.as_tuple()) out.push_back(v.as_str());
  return out;
}

StatusOr<std::vector<Value>> GetState(Interpreter& in, const Value& fn, const SourceRange& site) {
  ASSIGN_OR_RETURN(Value t, in.CallNoArgs(fn, site));
  return t.as_tuple();
}

Status SetState(Interpreter& in, const Value& fn, const std::vector<Value>& values, const SourceRange& site) {
  return in.Call(fn, CallArgs{.args = {Value::Tuple(values)}, .site = site}).status();
}

// The Python-semantics version of an ag__ entry.
StatusOr<Value> Fallback(Interpreter& in, const std::string& name, CallArgs& a) {
  static const std::shared_ptr<Namespace>* python = new std::shared_ptr<Namespace>(MakeAutographRuntime());
  const Value* fn = (*python)->Find(name);
  return in.Call(*fn, a);
}

// The shape invariants of a loop's options dict (set_loop_options), one per leaf of the
// state `init` (see StageWhile), matched as TensorFlow matches them: by the identity of
// the tensor a loop variable holds before the loop.
StatusOr<std::vector<std::optional<PartialShape>>> ShapeInvariants(Interpreter& in, const CallArgs& a, size_t at,
                                                                   const std::vector<Value>& init) {
  std::vector<Value> leaves;
  for (const Value& v : init) RETURN_IF_ERROR(FlattenLeaves(v, leaves));
  std::vector<std::optional<PartialShape>> out(leaves.size());
  if (a.args.size() <= at || !a.args[at].is(K::kDict)) return out;
  for (const auto& [key, value] : a.args[at].as_dict()->items) {
    if (!key.is(K::kStr)) continue;
    if (key.as_str() != "shape_invariants") {
      if (key.as_str() == "parallel_iterations" || key.as_str() == "swap_memory" ||
          key.as_str() == "maximum_iterations" || key.as_str() == "iterate_names" ||
          key.as_str() == "else_clause") {
        continue;  // no effect here
      }
      return PyError("ValueError", "set_loop_options() got an unsupported option '" + key.as_str() +
                                       "' (supported: shape_invariants, parallel_iterations, swap_memory)");
    }
    ASSIGN_OR_RETURN(std::vector<Value> pairs, in.Iterate(value));
    for (const Value& pair : pairs) {
      ASSIGN_OR_RETURN(std::vector<Value> kv, in.Iterate(pair));
      if (kv.size() != 2 || !kv[0].is(K::kTensor)) {
        return PyError("TypeError", "shape_invariants must be a list of (tensor, shape) pairs");
      }
      ASSIGN_OR_RETURN(PartialShape shape, ShapeFromValue(kv[1]));
      bool matched = false;
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (leaves[i].is(K::kTensor) && leaves[i].as_tensor() == kv[0].as_tensor()) {
          out[i] = shape;
          matched = true;
        }
      }
      if (!matched) {
        return PyError("ValueError", "a tensor in shape_invariants is not the value of a loop variable of this loop");
      }
    }
  }
  return out;
}

// TensorFlow's error for a Python loop whose condition becomes a tensor (a break or
// return under a tensor condition): NotImplementedError in TensorFlow; the seed
// articles expect a TypeError (TensorFlow's older OperatorNotAllowedInGraphError), so
// the class is both.
Status BecameTensor(bool while_loop) {
  return PyError("OperatorNotAllowedInGraphError",
                 while_loop ? "The condition of while loop started as non-Tensor, then changed to Tensor. This may "
                              "happen either because variables changed type, or when a break or return statement "
                              "inside the loop depends on a Tensor condition. In both cases, changing to a TF loop "
                              "should remove the error (`while tf.constant(True):`)."
                            : "break and return statements which depend on a TF condition are not supported in "
                              "Python for loops. Did you intend to make it a TF loop (iterate over tf.range(...))?");
}

// The value of option `key` in a loop's options dict (argument `at`), or null.
const Value* LoopOption(const CallArgs& a, size_t at, const std::string& key) {
  if (a.args.size() <= at || !a.args[at].is(K::kDict)) return nullptr;
  for (const auto& [k, v] : a.args[at].as_dict()->items) {
    if (k.is(K::kStr) && k.as_str() == key) return &v;
  }
  return nullptr;
}

// A loop over tensors with an else clause: TensorFlow cannot convert one (and the
// unconverted loop cannot iterate a tensor), so graphd refuses it the same way.
Status ElseClauseNotSupported(const std::string& loop) {
  return PyError("OperatorNotAllowedInGraphError", loop + "/else statement not yet supported in a loop over tensors "
                                                          "(TensorFlow's AutoGraph cannot convert it either): move the "
                                                          "else block after the loop, guarded by a flag the loop sets");
}

// The start of `x` when it is a tf.range made in the current scope.
std::optional<Value> RangeStart(Tracer& tracer, const TensorObj& x) {
  if (!x.symbolic() || x.scope != &tracer.scope() || x.scope_serial != tracer.scope().serial()) return std::nullopt;
  if (x.ref.node->op_name() != "Range" || x.ref.node->inputs().empty()) return std::nullopt;
  return tracer.Wrap(x.ref.node->inputs()[0]);
}

StatusOr<Value> IfStmt(Interpreter& in, CallArgs& a) {
  if (a.args.size() != 7 || !a.args[0].is(K::kTensor)) return Fallback(in, "if_stmt", a);
  ASSIGN_OR_RETURN(Tracer * tracer, TracerOf(in));
  const SourceRange& site = a.site;
  std::vector<std::string> names = Names(a.args[5]);
  ASSIGN_OR_RETURN(std::vector<Value> init, GetState(in, a.args[3], site));
  auto branch = [&](const Value& fn, const char* name) -> StatusOr<TracedBody> {
    auto traced = TraceBody(in, *tracer, name, {}, [&](const std::vector<Value>&) -> StatusOr<std::vector<Value>> {
      RETURN_IF_ERROR(in.CallNoArgs(fn, site).status());
      return GetState(in, a.args[3], site);
    });
    RETURN_IF_ERROR(SetState(in, a.args[4], init, site));
    return traced;
  };
  ASSIGN_OR_RETURN(TracedBody then_body, branch(a.args[1], "cond_true"));
  ASSIGN_OR_RETURN(TracedBody else_body, branch(a.args[2], "cond_false"));
  ASSIGN_OR_RETURN(std::vector<Value> out,
                   StageCond(in, *tracer, a.args[0], names, std::move(then_body), std::move(else_body)));
  RETURN_IF_ERROR(SetState(in, a.args[4], out, site));
  return Value::None();
}

// cond ? then_fn() : else_fn() for one value (if_exp, and_, or_).
StatusOr<Value> StageValue(Interpreter& in, const Value& cond, const std::function<StatusOr<Value>()>& then_fn,
                           const std::function<StatusOr<Value>()>& else_fn, const std::string& what) {
  ASSIGN_OR_RETURN(Tracer * tracer, TracerOf(in));
  auto one = [&](const std::function<StatusOr<Value>()>& fn, const char* name) {
    return TraceBody(in, *tracer, name, {}, [&](const std::vector<Value>&) -> StatusOr<std::vector<Value>> {
      ASSIGN_OR_RETURN(Value v, fn());
      return std::vector<Value>{v};
    });
  };
  ASSIGN_OR_RETURN(TracedBody t, one(then_fn, "cond_true"));
  ASSIGN_OR_RETURN(TracedBody e, one(else_fn, "cond_false"));
  if (StructureMismatch(t.outputs[0], e.outputs[0])) {
    return PyError("ValueError", what == "<if_exp>"
                                     ? "a conditional expression (x if c else y) with a tensor condition must return "
                                       "the same nested structure in both branches. If you only need side effects, "
                                       "use a statement `if:` instead"
                                     : "the operands of `and` / `or` with a tensor on the left must have the same "
                                       "nested structure");
  }
  ASSIGN_OR_RETURN(std::vector<Value> out, StageCond(in, *tracer, cond, {what}, std::move(t), std::move(e)));
  return out[0];
}

StatusOr<Value> WhileStmt(Interpreter& in, CallArgs& a) {
  if (a.args.size() != 5 && a.args.size() != 6) return Fallback(in, "while_stmt", a);
  const SourceRange& site = a.site;
  ASSIGN_OR_RETURN(Value first, in.CallNoArgs(a.args[0], site));
  if (!first.is(K::kTensor)) {
    Value test = first;
    while (true) {
      RETURN_IF_ERROR(in.Step());
      if (test.is(K::kTensor)) return BecameTensor(true);
      ASSIGN_OR_RETURN(bool go_on, in.Truthy(test));
      if (!go_on) return Value::None();
      RETURN_IF_ERROR(in.CallNoArgs(a.args[1], site).status());
      ASSIGN_OR_RETURN(test, in.CallNoArgs(a.args[0], site));
    }
  }
  if (LoopOption(a, 5, "else_clause") != nullptr) return ElseClauseNotSupported("while");
  ASSIGN_OR_RETURN(Tracer * tracer, TracerOf(in));
  ASSIGN_OR_RETURN(std::vector<Value> init, GetState(in, a.args[2], site));
  ASSIGN_OR_RETURN(auto invariants, ShapeInvariants(in, a, 5, init));
  RETURN_IF_ERROR(StageWhile(
      in, *tracer, Names(a.args[4]), init, [&]() { return in.CallNoArgs(a.args[0], site); },
      [&]() { return in.CallNoArgs(a.args[1], site).status(); },
      [&]() { return GetState(in, a.args[2], site); },
      [&](const std::vector<Value>& v) { return SetState(in, a.args[3], v, site); }, invariants).status());
  return Value::None();
}

StatusOr<Value> ForStmt(Interpreter& in, CallArgs& a) {
  if (a.args.size() != 6 && a.args.size() != 7) return Fallback(in, "for_stmt", a);
  const SourceRange& site = a.site;
  const Value& iterable = a.args[0];
  const Value& extra_test = a.args[1];
  if (!iterable.is(K::kTensor)) {
    // As TensorFlow's Python for loop: the extra test (break and return flags) runs
    // before the loop and after every item, and must stay a Python value.
    auto more = [&]() -> StatusOr<bool> {
      if (extra_test.is_none()) return true;
      ASSIGN_OR_RETURN(Value go, in.CallNoArgs(extra_test, site));
      if (go.is(K::kTensor)) return BecameTensor(false);
      return in.Truthy(go);
    };
    ASSIGN_OR_RETURN(std::vector<Value> items, in.Iterate(iterable));
    ASSIGN_OR_RETURN(bool go_on, more());
    for (size_t i = 0; i < items.size() && go_on; ++i) {
      RETURN_IF_ERROR(in.Step());
      RETURN_IF_ERROR(in.Call(a.args[2], CallArgs{.args = {items[i]}, .site = site}).status());
      ASSIGN_OR_RETURN(go_on, more());
    }
    return Value::None();
  }
  // for item in tensor: a While over the index i in [0, len) with the user's state.
  if (LoopOption(a, 6, "else_clause") != nullptr) return ElseClauseNotSupported("for");
  ASSIGN_OR_RETURN(Tracer * tracer, TracerOf(in));
  const TensorObj& x = *iterable.as_tensor();
  if (!x.shape.known_rank() || x.shape.rank() == 0) {
    return PyError("TypeError", "cannot iterate over a scalar tensor or one of unknown rank");
  }
  Value length;
  if (x.shape.dim(0) != kUnknownDim) {
    length = Value::Int(x.shape.dim(0));
  } else {
    ASSIGN_OR_RETURN(OutputRef xr, tracer->ToTensor(iterable));
    ASSIGN_OR_RETURN(Value shape, tracer->Op("Shape", {xr}, {{"out_type", DType::kInt32}}));
    ASSIGN_OR_RETURN(length, in.Subscript(shape, Value::Int(0)));
  }
  std::vector<std::string> names = {"<for index>"};
  for (const std::string& n : Names(a.args[5])) names.push_back(n);
  ASSIGN_OR_RETURN(std::vector<Value> user_init, GetState(in, a.args[3], site));
  // As TensorFlow's loop over a tf.range: the target is a loop variable that starts
  // at the range's start (so it is defined after a loop that ran zero times).
  if (const Value* iterate = LoopOption(a, 6, "iterate_names"); iterate != nullptr && iterate->is(K::kStr)) {
    std::vector<std::string> state_names = Names(a.args[5]);
    for (size_t i = 0; i < state_names.size(); ++i) {
      if (state_names[i] != iterate->as_str() || !IsUndefined(user_init[i])) continue;
      if (std::optional<Value> start = RangeStart(*tracer, x)) user_init[i] = *start;
    }
  }
  ASSIGN_OR_RETURN(auto invariants, ShapeInvariants(in, a, 6, user_init));
  invariants.insert(invariants.begin(), std::nullopt);  // the index
  std::vector<Value> init = {Value::Int(0)};
  init.insert(init.end(), user_init.begin(), user_init.end());
  Value index;  // the current iteration's index tensor
  auto get_state = [&]() -> StatusOr<std::vector<Value>> {
    ASSIGN_OR_RETURN(std::vector<Value> s, GetState(in, a.args[3], site));
    s.insert(s.begin(), index);
    return s;
  };
  auto set_state = [&](const std::vector<Value>& v) -> Status {
    index = v[0];
    return SetState(in, a.args[4], std::vector<Value>(v.begin() + 1, v.end()), site);
  };
  auto test = [&]() -> StatusOr<Value> {
    ASSIGN_OR_RETURN(Value in_range, in.CompareOp(ast::CmpOpKind::kLt, index, length));
    if (extra_test.is_none()) return in_range;
    ASSIGN_OR_RETURN(Value more, in.CallNoArgs(extra_test, site));
    ASSIGN_OR_RETURN(OutputRef l, tracer->ToTensor(in_range, DType::kBool));
    ASSIGN_OR_RETURN(OutputRef r, tracer->ToTensor(more, DType::kBool));
    return tracer->Op("LogicalAnd", {l, r});
  };
  auto body = [&]() -> Status {
    ASSIGN_OR_RETURN(Value item, in.Subscript(iterable, index));
    RETURN_IF_ERROR(in.Call(a.args[2], CallArgs{.args = {item}, .site = site}).status());
    ASSIGN_OR_RETURN(index, in.BinaryOp(ast::BinOpKind::kAdd, index, Value::Int(1)));
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(StageWhile(in, *tracer, names, init, test, body, get_state, set_state, invariants).status());
  return Value::None();
}

StatusOr<Value> IfExp(Interpreter& in, CallArgs& a) {
  if (a.args.size() != 4 || !a.args[0].is(K::kTensor)) return Fallback(in, "if_exp", a);
  return StageValue(in, a.args[0], [&]() { return in.CallNoArgs(a.args[1], a.site); },
                    [&]() { return in.CallNoArgs(a.args[2], a.site); }, "<if_exp>");
}

StatusOr<Value> AndOr(Interpreter& in, CallArgs& a, bool is_and) {
  if (a.args.size() != 2) return Fallback(in, is_and ? "and_" : "or_", a);
  ASSIGN_OR_RETURN(Value left, in.CallNoArgs(a.args[0], a.site));
  if (!left.is(K::kTensor)) {
    ASSIGN_OR_RETURN(bool truth, in.Truthy(left));
    if (truth != is_and) return left;
    return in.CallNoArgs(a.args[1], a.site);
  }
  auto right = [&]() { return in.CallNoArgs(a.args[1], a.site); };
  auto keep = [&]() -> StatusOr<Value> { return left; };
  return is_and ? StageValue(in, left, right, keep, "<and>") : StageValue(in, left, keep, right, "<or>");
}

// assert on a tensor: an Assert op that fails the run with the message.
StatusOr<Value> AssertStmt(Interpreter& in, CallArgs& a) {
  if (a.args.size() != 2 || !a.args[0].is(K::kTensor)) return Fallback(in, "assert_stmt", a);
  ASSIGN_OR_RETURN(Tracer * tracer, TracerOf(in));
  std::string message;
  if (!a.args[1].is_none()) {
    ASSIGN_OR_RETURN(Value m, in.CallNoArgs(a.args[1], a.site));
    message = m.is(K::kStr) ? m.as_str() : "";
  }
  ASSIGN_OR_RETURN(OutputRef cond, tracer->ToTensor(a.args[0], DType::kBool));
  RETURN_IF_ERROR(tracer->Op("Assert", {cond}, {{"message", message}}, "Assert", /*stateful=*/true).status());
  return Value::None();
}

// list_append on a TensorArray (a Python list turned into one by a staged loop).
StatusOr<Value> ListAppend(Interpreter& in, CallArgs& a) {
  if (a.args.size() == 2) {
    if (auto ta = a.args[0].object_as<TensorArrayObj>()) {
      ASSIGN_OR_RETURN(Value append, ta->GetAttr(in, "append"));
      return in.Call(append, CallArgs{.args = {a.args[1]}, .site = a.site});
    }
  }
  return Fallback(in, "list_append", a);
}

Value Fn(const std::string& name, BuiltinFn fn) { return Value::Obj(std::make_shared<BuiltinObj>(name, std::move(fn))); }

}  // namespace

std::shared_ptr<Namespace> MakeStagingRuntime() {
  auto ag = MakeAutographRuntime();
  ag->Set("if_stmt", Fn("if_stmt", IfStmt));
  ag->Set("while_stmt", Fn("while_stmt", WhileStmt));
  ag->Set("for_stmt", Fn("for_stmt", ForStmt));
  ag->Set("if_exp", Fn("if_exp", IfExp));
  ag->Set("assert_stmt", Fn("assert_stmt", AssertStmt));
  ag->Set("list_append", Fn("list_append", ListAppend));
  ag->Set("and_", Fn("and_", [](Interpreter& in, CallArgs& a) { return AndOr(in, a, true); }));
  ag->Set("or_", Fn("or_", [](Interpreter& in, CallArgs& a) { return AndOr(in, a, false); }));
  return ag;
}

}  // namespace graphd::compiler::tracer
