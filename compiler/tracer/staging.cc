#include "compiler/tracer/staging.h"

#include "compiler/tracer/errors.h"
#include "compiler/tracer/nest.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tensor_array.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::compiler::tracer {

using K = Value::Kind;

bool IsUndefined(const Value& v) { return v.object_as<UndefinedObj>() != nullptr; }
bool IsUndefinedReturn(const Value& v) { return v.object_as<UndefinedReturnValueObj>() != nullptr; }
bool LeafConvertible(const Value& v) { return v.is(K::kTensor) || v.is_number() || v.is(K::kStr) || v.is(K::kBytes); }

namespace {

// `v` as a tensor of `scope` (pushed for the conversion).
StatusOr<OutputRef> InScope(Tracer& tracer, GraphScope* scope, const Value& v, DType hint) {
  tracer.Push(scope);
  auto ref = tracer.ToTensor(v, hint);
  tracer.Pop();
  return ref;
}

DType TensorDType(const Value& v) { return v.is(K::kTensor) ? v.as_tensor()->dtype : DType::kInvalid; }

// The same Python object in both branches that no tensor can stand for (a function, a
// class instance) passes through the If unchanged; numbers, bools and strings become
// tensors, as in TensorFlow, even when the branches agree.
bool SameObject(const Value& a, const Value& b) { return !LeafConvertible(a) && a.Is(b); }

}  // namespace

// The captures of several bodies of one node, without repeats, in first-seen order.
std::vector<std::shared_ptr<TensorObj>> UnionOfCaptures(const std::vector<GraphScope*>& scopes) {
  std::vector<std::shared_ptr<TensorObj>> out;
  for (GraphScope* s : scopes) {
    for (const auto& c : s->captures()) {
      bool seen = false;
      for (const auto& o : out) seen |= o->ref == c.outer->ref;
      if (!seen) out.push_back(c.outer);
    }
  }
  return out;
}

// Arguments of `scope` for `captures`, in that order (bringing missing ones in).
StatusOr<std::vector<const Node*>> CaptureArgs(GraphScope& scope, const std::vector<std::shared_ptr<TensorObj>>& captures) {
  std::vector<const Node*> args;
  for (const auto& c : captures) {
    ASSIGN_OR_RETURN(OutputRef r, scope.Bring(*c));
    args.push_back(r.node);
  }
  return args;
}

StatusOr<TracedBody> TraceBody(Interpreter&, Tracer& tracer, const std::string& name,
                               const std::vector<TensorType>& arg_types,
                               const std::function<StatusOr<std::vector<Value>>(const std::vector<Value>&)>& fn) {
  TracedBody body{std::make_unique<GraphScope>(&tracer.scope(), name), {}};
  tracer.Push(body.scope.get());
  std::vector<Value> args;
  Status status;
  for (size_t i = 0; i < arg_types.size() && status.ok(); ++i) {
    auto arg = body.scope->NewArg("arg", arg_types[i].dtype, arg_types[i].shape);
    if (arg.ok()) {
      args.push_back(tracer.Wrap({*arg, 0}));
    } else {
      status = arg.status();
    }
  }
  StatusOr<std::vector<Value>> outs = status.ok() ? fn(args) : StatusOr<std::vector<Value>>(status);
  tracer.Pop();
  if (!outs.ok()) return outs.status();
  body.outputs = *std::move(outs);
  return body;
}


namespace {

// TensorFlow's checks of one branch's state (main first, then else).
Status CheckBranchState(const std::vector<std::string>& names, const std::vector<Value>& values, const char* branch) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (IsUndefined(values[i])) {
      return PyError("ValueError", "'" + names[i] + "' must also be initialized in the " + branch + " branch");
    }
    if (IsUndefinedReturn(values[i])) {
      return PyError("ValueError", std::string("the ") + branch + " branch must also have a return statement.");
    }
  }
  return absl::OkStatus();
}

}  // namespace

StatusOr<std::vector<Value>> StageCond(Interpreter&, Tracer& tracer, const Value& cond,
                                       const std::vector<std::string>& names, TracedBody then_body,
                                       TracedBody else_body) {
  const TensorObj& c = *cond.as_tensor();
  if (c.dtype != DType::kBool) {
    return PyError("ValueError", "condition of if statement expected to be `tf.bool` scalar, got a " +
                                     std::string(DTypeName(c.dtype)) + " tensor; to use as boolean Tensor, use "
                                     "`tf.cast`; to check for None, use `is not None`");
  }
  if (c.shape.known_rank() && c.shape.rank() != 0) {
    return PyError("ValueError", "condition of if statement expected to be `tf.bool` scalar, got shape " +
                                     ShapeRepr(c.shape));
  }
  RETURN_IF_ERROR(CheckBranchState(names, then_body.outputs, "main"));
  RETURN_IF_ERROR(CheckBranchState(names, else_body.outputs, "else"));
  std::vector<std::vector<Value>> then_leaves(names.size()), else_leaves(names.size());
  std::vector<OutputRef> then_refs, else_refs;
  std::vector<std::pair<size_t, size_t>> staged;  // (state index, leaf index) of each If output
  for (size_t i = 0; i < names.size(); ++i) {
    const Value& vt = then_body.outputs[i];
    const Value& vf = else_body.outputs[i];
    if (auto why = StructureMismatch(vt, vf)) {
      return PyError("TypeError", "'" + names[i] + "' must have the same nested structure in the main and else "
                                  "branches:\n\n" + *why);
    }
    RETURN_IF_ERROR(FlattenLeaves(vt, then_leaves[i]));
    RETURN_IF_ERROR(FlattenLeaves(vf, else_leaves[i]));
    for (size_t k = 0; k < then_leaves[i].size(); ++k) {
      const Value& lt = then_leaves[i][k];
      const Value& lf = else_leaves[i][k];
      if (lt.is_none() || lf.is_none()) {
        return PyError("ValueError", "'" + names[i] + "' is None at the end of the " +
                                         (lt.is_none() ? "main" : "else") + " branch.");
      }
      if (SameObject(lt, lf)) continue;
      if (!LeafConvertible(lt) || !LeafConvertible(lf)) {
        return PyError("TypeError", "'" + names[i] + "' has a " + lt.TypeName() + " in the main branch and a " +
                                        lf.TypeName() + " in the else branch; values that differ between the "
                                        "branches of a tensor `if` must be tensors (or numbers)");
      }
      DType hint = TensorDType(lt) != DType::kInvalid ? TensorDType(lt) : TensorDType(lf);
      ASSIGN_OR_RETURN(OutputRef rt, InScope(tracer, then_body.scope.get(), lt, hint));
      ASSIGN_OR_RETURN(OutputRef rf, InScope(tracer, else_body.scope.get(), lf, hint));
      DType dt = rt.node->output(rt.index).dtype, df = rf.node->output(rf.index).dtype;
      if (dt != df) {
        return PyError("TypeError", "'" + names[i] + "' has dtype " + std::string(DTypeName(dt)) +
                                        " in the main branch, but dtype " + std::string(DTypeName(df)) +
                                        " in the else branch");
      }
      then_refs.push_back(rt);
      else_refs.push_back(rf);
      staged.emplace_back(i, k);
    }
  }
  auto captures = UnionOfCaptures({then_body.scope.get(), else_body.scope.get()});
  ASSIGN_OR_RETURN(auto then_args, CaptureArgs(*then_body.scope, captures));
  ASSIGN_OR_RETURN(auto else_args, CaptureArgs(*else_body.scope, captures));
  ASSIGN_OR_RETURN(FunctionRef then_fn, then_body.scope->Finish(then_args, then_refs));
  ASSIGN_OR_RETURN(FunctionRef else_fn, else_body.scope->Finish(else_args, else_refs));
  ASSIGN_OR_RETURN(OutputRef cond_ref, tracer.scope().Bring(c));
  std::vector<OutputRef> inputs = {cond_ref};
  for (const auto& cap : captures) inputs.push_back(cap->ref);
  ASSIGN_OR_RETURN(Value out, tracer.Op("If", inputs, {{"then_branch", then_fn}, {"else_branch", else_fn}}, "cond",
                                        /*stateful=*/true));
  for (size_t k = 0; k < staged.size(); ++k) {
    then_leaves[staged[k].first][staged[k].second] = staged.size() == 1 ? out : out.as_tuple()[k];
  }
  std::vector<Value> results;
  for (size_t i = 0; i < names.size(); ++i) {
    size_t pos = 0;
    results.push_back(PackLike(then_body.outputs[i], then_leaves[i], &pos));
  }
  return results;
}

}  // namespace graphd::compiler::tracer
