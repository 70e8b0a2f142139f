// tf control flow and side effects: cond, while_loop (staged through staging.h, as
// AutoGraph's if/while are), Assert (also tf.debugging.Assert) and print.
#include <algorithm>

#include "compiler/tracer/errors.h"
#include "compiler/tracer/nest.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/staging.h"
#include "compiler/tracer/tf_args.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

bool IsSequence(const Value& v) { return v.is(K::kList) || v.is(K::kTuple); }

const std::vector<Value>& Items(const Value& v) { return v.is(K::kList) ? v.as_list()->items : v.as_tuple(); }

// Same nesting (list and tuple interchangeable, dicts with the same keys).
bool SameStructure(const Value& a, const Value& b) { return !StructureMismatch(a, b, /*sequences_alike=*/true); }

// `leaves` in the structure of `like`.
Value Pack(const Value& like, const std::vector<Value>& leaves) {
  size_t pos = 0;
  return PackLike(like, leaves, &pos);
}

Status CheckCallable(const Args& a, const Value& v, const std::string& what) {
  if (!v.is(K::kObject)) return PyError("TypeError", a.fn() + "() " + what + " must be callable, got " + v.TypeName());
  return absl::OkStatus();
}

std::vector<std::string> OutputNames(const std::string& base, size_t n) {
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) names.push_back(base + "[" + std::to_string(i) + "]");
  return names;
}

// --- tf.cond ---

StatusOr<Value> Cond(Interpreter& in, CallArgs& call) {
  Args a("cond", call, {"pred", "true_fn", "false_fn", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Value pred, a.Get("pred"));
  Value true_fn = a.GetOr("true_fn", Value::None()), false_fn = a.GetOr("false_fn", Value::None());
  RETURN_IF_ERROR(CheckCallable(a, true_fn, "true_fn"));
  RETURN_IF_ERROR(CheckCallable(a, false_fn, "false_fn"));
  if (!pred.is(K::kTensor) || !pred.as_tensor()->symbolic()) {
    // A Python (or eager) predicate picks the branch now; only that one runs.
    ASSIGN_OR_RETURN(bool truth, in.Truthy(pred));
    return in.CallNoArgs(truth ? true_fn : false_fn, call.site);
  }
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  auto branch = [&](const Value& fn, const char* name, Value* structure) {
    return TraceBody(in, *t, name, {}, [&](const std::vector<Value>&) -> StatusOr<std::vector<Value>> {
      ASSIGN_OR_RETURN(*structure, in.CallNoArgs(fn, call.site));
      std::vector<Value> leaves;
      RETURN_IF_ERROR(FlattenLeaves(*structure, leaves));
      for (Value& leaf : leaves) {
        // Branch results are tensors, as in TensorFlow (None stays None; variables
        // are read).
        if (leaf.is_number() || leaf.is(K::kStr) || IsTensorLikeObject(leaf)) {
          ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(leaf));
          leaf = t->Wrap(r);
        }
      }
      return leaves;
    });
  };
  Value then_structure, else_structure;
  ASSIGN_OR_RETURN(TracedBody then_body, branch(true_fn, "cond_true", &then_structure));
  ASSIGN_OR_RETURN(TracedBody else_body, branch(false_fn, "cond_false", &else_structure));
  if (!SameStructure(then_structure, else_structure) || then_body.outputs.size() != else_body.outputs.size()) {
    return PyError("ValueError", "true_fn and false_fn arguments to tf.cond must have the same number, type, and "
                                 "overall structure of return values; true_fn returned " + PyRepr(then_structure) +
                                 ", false_fn returned " + PyRepr(else_structure));
  }
  std::vector<std::string> names = OutputNames("cond output", then_body.outputs.size());
  ASSIGN_OR_RETURN(std::vector<Value> out,
                   StageCond(in, *t, pred, names, std::move(then_body), std::move(else_body)));
  return Pack(then_structure, out);
}

// --- tf.while_loop ---

class WhileLoop {
 public:
  WhileLoop(Interpreter& in, Value cond, Value body, Value loop_vars, const SourceRange& site)
      : in_(in), cond_(std::move(cond)), body_(std::move(body)), site_(site) {
    single_ = !IsSequence(loop_vars);
    structure_ = single_ ? Value::Tuple({loop_vars}) : loop_vars;
    init_status_ = FlattenLeaves(structure_, state_);
  }

  // cond(*vars): the loop's test on the current state.
  StatusOr<Value> Test() { return in_.Call(cond_, CallArgs{.args = Items(Pack(structure_, state_)), .site = site_}); }

  // state = body(*vars), checked against the structure of loop_vars.
  Status Body() {
    ASSIGN_OR_RETURN(Value out, in_.Call(body_, CallArgs{.args = Items(Pack(structure_, state_)), .site = site_}));
    if (Items(structure_).size() == 1 && !IsSequence(out)) out = Value::Tuple({out});
    if (!SameStructure(structure_, out)) {
      return PyError("ValueError", "the body of tf.while_loop must return the same structure as loop_vars " +
                                       PyRepr(structure_) + ", got " + PyRepr(out));
    }
    state_.clear();
    RETURN_IF_ERROR(FlattenLeaves(out, state_));
    return absl::OkStatus();
  }

  // The loop in Python (eager code): cond and body run until cond is false.
  StatusOr<Value> RunNow(int64_t max_iterations) {
    RETURN_IF_ERROR(init_status_);
    for (int64_t i = 0; max_iterations < 0 || i < max_iterations; ++i) {
      RETURN_IF_ERROR(in_.Step());
      ASSIGN_OR_RETURN(Value test, Test());
      ASSIGN_OR_RETURN(bool go_on, in_.Truthy(test));
      if (!go_on) break;
      RETURN_IF_ERROR(Body());
    }
    return Result(state_);
  }

  // A While node; with `max_iterations` (a scalar int32 tensor value or None) a
  // counter runs beside the loop variables and ends the loop there.
  StatusOr<Value> Stage(Tracer& t, const Value& max_iterations, const Value& shape_invariants) {
    RETURN_IF_ERROR(init_status_);
    const bool counted = !max_iterations.is_none();
    ASSIGN_OR_RETURN(std::vector<std::optional<PartialShape>> invariants, Invariants(shape_invariants));
    if (counted) invariants.insert(invariants.begin(), std::nullopt);
    for (Value& v : state_) {  // variables enter the loop as their values
      if (IsTensorLikeObject(v)) {
        ASSIGN_OR_RETURN(OutputRef r, t.ToTensor(v));
        v = t.Wrap(r);
      }
    }
    std::vector<std::string> names = OutputNames("loop_vars", state_.size());
    std::vector<Value> init = state_;
    if (counted) {
      names.insert(names.begin(), "<iteration counter>");
      init.insert(init.begin(), Value::Int(0));
    }
    Value counter;
    auto test = [&]() -> StatusOr<Value> {
      ASSIGN_OR_RETURN(Value go_on, Test());
      if (!counted) return go_on;
      ASSIGN_OR_RETURN(Value below, in_.CompareOp(ast::CmpOpKind::kLt, counter, max_iterations));
      ASSIGN_OR_RETURN(OutputRef l, t.ToTensor(below, DType::kBool));
      ASSIGN_OR_RETURN(OutputRef r, t.ToTensor(go_on, DType::kBool));
      return t.Op("LogicalAnd", {l, r}, {}, "while_loop");
    };
    auto body = [&]() -> Status {
      RETURN_IF_ERROR(Body());
      if (counted) {
        ASSIGN_OR_RETURN(counter, in_.BinaryOp(ast::BinOpKind::kAdd, counter, Value::Int(1)));
      }
      return absl::OkStatus();
    };
    auto get_state = [&]() -> StatusOr<std::vector<Value>> {
      std::vector<Value> s = state_;
      if (counted) s.insert(s.begin(), counter);
      return s;
    };
    auto set_state = [&](const std::vector<Value>& v) -> Status {
      if (counted) counter = v[0];
      state_.assign(v.begin() + (counted ? 1 : 0), v.end());
      return absl::OkStatus();
    };
    ASSIGN_OR_RETURN(std::vector<Value> out,
                     StageWhile(in_, t, names, init, test, body, get_state, set_state, invariants));
    return Result(std::vector<Value>(out.begin() + (counted ? 1 : 0), out.end()));
  }

 private:
  // shape_invariants, one shape per loop variable (loop_vars flat, or one variable);
  // empty when not given.
  StatusOr<std::vector<std::optional<PartialShape>>> Invariants(const Value& given) const {
    std::vector<std::optional<PartialShape>> out;
    if (given.is_none()) return out;
    std::vector<Value> shapes = {given};
    if (!single_) {
      ASSIGN_OR_RETURN(shapes, in_.Iterate(given));
      if (shapes.size() != state_.size() || shapes.size() != Items(structure_).size()) {
        return PyError("ValueError", "shape_invariants must have one shape per loop variable (" +
                                         std::to_string(state_.size()) + "), got " + PyRepr(given));
      }
    }
    for (const Value& shape : shapes) {
      ASSIGN_OR_RETURN(PartialShape p, ShapeFromValue(shape));
      out.push_back(p);
    }
    return out;
  }

  Value Result(const std::vector<Value>& leaves) const {
    Value packed = Pack(structure_, leaves);
    return single_ ? Items(packed)[0] : packed;
  }

  Interpreter& in_;
  Value cond_, body_;
  SourceRange site_;
  bool single_ = false;
  Value structure_;
  std::vector<Value> state_;  // the loop variables, flattened
  Status init_status_;        // of flattening loop_vars
};

StatusOr<Value> WhileLoopFn(Interpreter& in, CallArgs& call) {
  Args a("while_loop", call, {"cond", "body", "loop_vars", "shape_invariants", "parallel_iterations", "back_prop",
                              "swap_memory", "maximum_iterations", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Value cond, a.Get("cond"));
  ASSIGN_OR_RETURN(Value body, a.Get("body"));
  ASSIGN_OR_RETURN(Value loop_vars, a.Get("loop_vars"));
  RETURN_IF_ERROR(CheckCallable(a, cond, "cond"));
  RETURN_IF_ERROR(CheckCallable(a, body, "body"));
  Value max_iterations = a.GetOr("maximum_iterations", Value::None());
  if (!max_iterations.is_none() && !max_iterations.is_int_like() && !max_iterations.is(K::kTensor)) {
    return PyError("TypeError", "while_loop() maximum_iterations must be an int or a scalar int tensor, got " +
                                    max_iterations.TypeName());
  }
  WhileLoop loop(in, cond, body, loop_vars, call.site);
  auto* tracer = dynamic_cast<Tracer*>(in.tensor_hooks());
  bool eager = tracer == nullptr || (tracer->eager() && !tracer->in_staged_body());
  if (eager) {
    int64_t max = -1;
    if (!max_iterations.is_none()) {
      ASSIGN_OR_RETURN(max, StaticInt(max_iterations, "while_loop() maximum_iterations"));
      max = std::max<int64_t>(max, 0);
    }
    return loop.RunNow(max);
  }
  if (max_iterations.is(K::kTensor) && max_iterations.as_tensor()->dtype != DType::kInt32) {
    ASSIGN_OR_RETURN(OutputRef r, tracer->ToTensor(max_iterations));
    ASSIGN_OR_RETURN(max_iterations, tracer->Op("Cast", {r}, {{"DstT", DType::kInt32}}, "maximum_iterations"));
  }
  return loop.Stage(*tracer, max_iterations, a.GetOr("shape_invariants", Value::None()));
}

// --- tf.Assert, tf.print ---

// Assert(condition, data, summarize=None): fails the run with "assertion failed:" and
// the data, each in brackets as TensorFlow shows it (leading Python strings go into
// the message; scalars are shown as one-element vectors to get their brackets).
StatusOr<Value> Assert(Interpreter& in, CallArgs& call) {
  Args a("Assert", call, {"condition", "data", "summarize", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  ASSIGN_OR_RETURN(Value condition, a.Get("condition"));
  ASSIGN_OR_RETURN(Value data_value, a.Get("data"));
  ASSIGN_OR_RETURN(std::vector<Value> data, in.Iterate(data_value));
  ASSIGN_OR_RETURN(OutputRef cond, t->ToTensor(condition, DType::kBool));
  if (DTypeOf(cond) != DType::kBool) {
    return PyError("TypeError", "Assert() condition must be bool, got " + std::string(DTypeName(DTypeOf(cond))));
  }
  std::string message = "assertion failed:";
  std::vector<OutputRef> inputs = {cond};
  size_t i = 0;
  for (; i < data.size() && data[i].is(K::kStr); ++i) message += " [" + data[i].as_str() + "]";
  for (; i < data.size(); ++i) {
    ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(data[i]));
    if (ShapeOf(r).known_rank() && ShapeOf(r).rank() == 0 && DTypeOf(r) != DType::kString) {
      ASSIGN_OR_RETURN(Value v, t->Op("ExpandDims", {r}, {{"axis", int64_t{0}}}, "Assert"));
      ASSIGN_OR_RETURN(r, t->ToTensor(v));
    }
    inputs.push_back(r);
  }
  RETURN_IF_ERROR(t->Op("Assert", inputs, {{"message", message}}, "Assert", /*stateful=*/true).status());
  return Value::None();
}

StatusOr<Value> TfPrint(Interpreter& in, CallArgs& call) {
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(in));
  std::vector<Value> values = call.args;
  for (Value& v : values) {  // tf.print shows a variable's value, as TensorFlow does
    if (v.is(K::kObject) && v.as_object() && v.as_object()->IsTensorLike()) {
      ASSIGN_OR_RETURN(v, v.as_object()->AsTensor(in));
    }
  }
  return PrintOp(*t, values, KwString(call, "sep", " "), KwString(call, "end", "\n"), "stderr");
}

}  // namespace

StatusOr<Value> PrintOp(Tracer& t, const std::vector<Value>& values, const std::string& sep, const std::string& end,
                        const char* stream) {
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

void AddControlFunctions(Namespace& tf, Namespace& debugging) {
  tf.Set("cond", Fn("cond", Cond));
  tf.Set("while_loop", Fn("while_loop", WhileLoopFn));
  tf.Set("Assert", Fn("Assert", Assert));
  debugging.Set("Assert", Fn("Assert", Assert));
  tf.Set("print", Fn("print", TfPrint));
}

}  // namespace graphd::compiler::tracer
