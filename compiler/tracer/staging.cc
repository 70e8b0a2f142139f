#include "compiler/tracer/staging.h"

#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/tensor_array.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

bool IsUndefined(const Value& v) { return v.object_as<UndefinedObj>() != nullptr; }

bool TensorConvertible(const Value& v) {
  if (v.is(K::kTensor) || v.is_number() || v.is(K::kStr) || v.is(K::kBytes)) return true;
  if (v.is(K::kList) || v.is(K::kTuple)) {
    for (const Value& e : v.is(K::kList) ? v.as_list()->items : v.as_tuple()) {
      if (!TensorConvertible(e)) return false;
    }
    return true;
  }
  return false;
}

// `v` as a tensor of `scope` (pushed for the conversion).
StatusOr<OutputRef> InScope(Tracer& tracer, GraphScope* scope, const Value& v, DType hint) {
  tracer.Push(scope);
  auto ref = tracer.ToTensor(v, hint);
  tracer.Pop();
  return ref;
}

DType TensorDType(const Value& v) { return v.is(K::kTensor) ? v.as_tensor()->dtype : DType::kInvalid; }

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

}  // namespace

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

StatusOr<std::vector<Value>> StageCond(Interpreter&, Tracer& tracer, const Value& cond,
                                       const std::vector<std::string>& names, TracedBody then_body,
                                       TracedBody else_body) {
  const TensorObj& c = *cond.as_tensor();
  if (c.dtype != DType::kBool) {
    return PyError("TypeError", "a tensor used as a condition must be bool, got " + std::string(DTypeName(c.dtype)));
  }
  if (c.shape.known_rank() && c.shape.rank() != 0) {
    return PyError("ValueError", "a tensor used as a condition must be a scalar, got shape " + ShapeRepr(c.shape));
  }
  std::vector<Value> results = then_body.outputs;
  std::vector<OutputRef> then_refs, else_refs;
  std::vector<size_t> staged;  // state index of each If output
  for (size_t i = 0; i < names.size(); ++i) {
    const Value& vt = then_body.outputs[i];
    const Value& vf = else_body.outputs[i];
    bool ut = IsUndefined(vt), uf = IsUndefined(vf);
    if (ut && uf) continue;
    if (ut || uf) {
      return PyError("ValueError", "'" + names[i] + "' must also be initialized in the " + (ut ? "if" : "else") +
                                       " branch");
    }
    if (!vt.is(K::kTensor) && !vf.is(K::kTensor) && (vt.Is(vf) || (TensorConvertible(vt) && PyEquals(vt, vf)))) continue;
    if (!TensorConvertible(vt) || !TensorConvertible(vf)) {
      return PyError("TypeError", "'" + names[i] + "' has a " + vt.TypeName() + " in the main branch and a " +
                                      vf.TypeName() + " in the else branch; values that differ between the branches "
                                      "of a tensor `if` must be tensors");
    }
    DType hint = TensorDType(vt) != DType::kInvalid ? TensorDType(vt) : TensorDType(vf);
    ASSIGN_OR_RETURN(OutputRef rt, InScope(tracer, then_body.scope.get(), vt, hint));
    ASSIGN_OR_RETURN(OutputRef rf, InScope(tracer, else_body.scope.get(), vf, hint));
    DType dt = rt.node->output(rt.index).dtype, df = rf.node->output(rf.index).dtype;
    if (dt != df) {
      return PyError("TypeError", "'" + names[i] + "' has dtype " + std::string(DTypeName(dt)) +
                                      " in the main branch, but dtype " + std::string(DTypeName(df)) +
                                      " in the else branch");
    }
    then_refs.push_back(rt);
    else_refs.push_back(rf);
    staged.push_back(i);
  }
  auto captures = UnionOfCaptures({then_body.scope.get(), else_body.scope.get()});
  ASSIGN_OR_RETURN(auto then_args, CaptureArgs(*then_body.scope, captures));
  ASSIGN_OR_RETURN(auto else_args, CaptureArgs(*else_body.scope, captures));
  ASSIGN_OR_RETURN(FunctionRef then_fn, then_body.scope->Finish(then_args, then_refs));
  ASSIGN_OR_RETURN(FunctionRef else_fn, else_body.scope->Finish(else_args, else_refs));
  std::vector<OutputRef> inputs = {c.ref};
  for (const auto& cap : captures) inputs.push_back(cap->ref);
  ASSIGN_OR_RETURN(OutputRef cond_ref, tracer.scope().Bring(c));
  inputs[0] = cond_ref;
  ASSIGN_OR_RETURN(Value out, tracer.Op("If", inputs, {{"then_branch", then_fn}, {"else_branch", else_fn}}, "cond",
                                        /*stateful=*/true));
  if (staged.size() == 1) {
    results[staged[0]] = out;
  } else {
    for (size_t k = 0; k < staged.size(); ++k) results[staged[k]] = out.as_tuple()[k];
  }
  return results;
}

namespace {

// True when every shape `specific` stands for is one `general` stands for. A specific
// shape of unknown rank passes (inference lost it; the kernels check at run time).
bool ShapeFits(const PartialShape& general, const PartialShape& specific) {
  if (!general.known_rank() || !specific.known_rank()) return true;
  if (specific.rank() != general.rank()) return false;
  for (int d = 0; d < general.rank(); ++d) {
    if (general.dim(d) != kUnknownDim && general.dim(d) != specific.dim(d)) return false;
  }
  return true;
}

}  // namespace

StatusOr<std::vector<Value>> StageWhile(Interpreter& interp, Tracer& tracer, const std::vector<std::string>& names,
                                        const std::vector<Value>& init_in, const std::function<StatusOr<Value>()>& test,
                                        const std::function<Status()>& body,
                                        const std::function<StatusOr<std::vector<Value>>()>& get_state_in,
                                        const std::function<Status(const std::vector<Value>&)>& set_state_in,
                                        const std::vector<std::optional<PartialShape>>& invariants) {
  // TensorArrays are carried as their buffers (any shape: they grow) and rewrapped.
  std::vector<DType> array_dtype(names.size(), DType::kInvalid);
  std::vector<Value> init = init_in;
  for (size_t i = 0; i < init.size(); ++i) {
    if (init[i].is(K::kList) && init[i].as_list()->element_dtype != 0) {
      // A Python list appended to in a staged loop: a TensorArray of its element type.
      auto ta = std::make_shared<TensorArrayObj>(static_cast<DType>(init[i].as_list()->element_dtype), Value::None());
      for (const Value& item : init[i].as_list()->items) {
        ASSIGN_OR_RETURN(Value append, ta->GetAttr(interp, "append"));
        ASSIGN_OR_RETURN(Value grown, interp.Call(append, CallArgs{.args = {item}}));
        ta = grown.object_as<TensorArrayObj>();
      }
      init[i] = Value::Obj(ta);
    }
    if (auto ta = init[i].object_as<TensorArrayObj>()) {
      array_dtype[i] = ta->dtype();
      ASSIGN_OR_RETURN(init[i], ta->BufferTensor(interp));
    }
  }
  auto unwrap = [&](std::vector<Value> values) -> StatusOr<std::vector<Value>> {
    for (size_t i = 0; i < values.size(); ++i) {
      if (array_dtype[i] == DType::kInvalid) continue;
      auto ta = values[i].object_as<TensorArrayObj>();
      if (ta == nullptr) return PyError("TypeError", "'" + names[i] + "' must stay a TensorArray in the loop");
      ASSIGN_OR_RETURN(values[i], ta->BufferTensor(interp));
    }
    return values;
  };
  auto get_state = [&]() -> StatusOr<std::vector<Value>> {
    ASSIGN_OR_RETURN(std::vector<Value> values, get_state_in());
    return unwrap(std::move(values));
  };
  auto set_state = [&](const std::vector<Value>& values) -> Status {
    std::vector<Value> wrapped = values;
    for (size_t i = 0; i < wrapped.size(); ++i) {
      if (array_dtype[i] != DType::kInvalid) {
        wrapped[i] = Value::Obj(std::make_shared<TensorArrayObj>(array_dtype[i], values[i]));
      }
    }
    return set_state_in(wrapped);
  };
  std::vector<OutputRef> init_refs;
  std::vector<TensorType> types;
  for (size_t i = 0; i < names.size(); ++i) {
    if (IsUndefined(init[i])) {
      return PyError("ValueError", "'" + names[i] + "' must be defined before the loop.");
    }
    if (!TensorConvertible(init[i])) {
      return PyError("TypeError", "'" + names[i] + "' is a " + init[i].TypeName() +
                                      "; the variables of a loop over tensors must be tensors (or numbers)");
    }
    ASSIGN_OR_RETURN(OutputRef r, tracer.ToTensor(init[i]));
    init_refs.push_back(r);
    types.push_back(r.node->output(r.index));
    if (array_dtype[i] != DType::kInvalid) types.back().shape = PartialShape::UnknownRank();
    if (i < invariants.size() && invariants[i]) {
      const PartialShape& before = init[i].is(K::kTensor) ? init[i].as_tensor()->shape : types.back().shape;
      if (!ShapeFits(*invariants[i], before)) {
        return PyError("ValueError", "'" + names[i] + "' has shape " + ShapeRepr(before) +
                                         " before the loop, which is not compatible with its shape invariant " +
                                         ShapeRepr(*invariants[i]));
      }
      types.back().shape = *invariants[i];
    }
  }
  ASSIGN_OR_RETURN(TracedBody cond, TraceBody(interp, tracer, "while_cond", types,
      [&](const std::vector<Value>& args) -> StatusOr<std::vector<Value>> {
        RETURN_IF_ERROR(set_state(args));
        ASSIGN_OR_RETURN(Value t, test());
        ASSIGN_OR_RETURN(OutputRef r, tracer.ToTensor(t, DType::kBool));
        if (r.node->output(r.index).dtype != DType::kBool) {
          return PyError("TypeError", "a while loop's condition must be bool, got " +
                                          std::string(DTypeName(r.node->output(r.index).dtype)));
        }
        return std::vector<Value>{tracer.Wrap(r)};
      }));
  std::vector<OutputRef> body_refs;
  ASSIGN_OR_RETURN(TracedBody loop, TraceBody(interp, tracer, "while_body", types,
      [&](const std::vector<Value>& args) -> StatusOr<std::vector<Value>> {
        RETURN_IF_ERROR(set_state(args));
        RETURN_IF_ERROR(body());
        ASSIGN_OR_RETURN(std::vector<Value> outs, get_state());
        for (size_t i = 0; i < names.size(); ++i) {
          if (IsUndefined(outs[i]) || !TensorConvertible(outs[i])) {
            return PyError("TypeError", "'" + names[i] + "' must stay a tensor in the loop, got " + outs[i].TypeName());
          }
          ASSIGN_OR_RETURN(OutputRef r, tracer.ToTensor(outs[i], types[i].dtype));
          const TensorType& after = r.node->output(r.index);
          PartialShape after_shape = outs[i].is(K::kTensor) ? outs[i].as_tensor()->shape : after.shape;
          if (after.dtype != types[i].dtype) {
            return PyError("TypeError", "'" + names[i] + "' has dtype " + std::string(DTypeName(types[i].dtype)) +
                                            " before the loop, but dtype " + std::string(DTypeName(after.dtype)) +
                                            " after one iteration");
          }
          if (!ShapeFits(types[i].shape, after_shape)) {
            return PyError("ValueError", "'" + names[i] + "' has shape " + ShapeRepr(types[i].shape) +
                                             " before the loop, but shape " + ShapeRepr(after_shape) +
                                             " after one iteration. Use x.set_shape(...) in the loop to keep "
                                             "its shape, or give it a shape invariant.");
          }
          body_refs.push_back(r);
        }
        return outs;
      }));
  auto captures = UnionOfCaptures({cond.scope.get(), loop.scope.get()});
  ASSIGN_OR_RETURN(auto cond_caps, CaptureArgs(*cond.scope, captures));
  ASSIGN_OR_RETURN(auto body_caps, CaptureArgs(*loop.scope, captures));
  std::vector<const Node*> cond_args = cond.scope->ArgsInOrder(), body_args = loop.scope->ArgsInOrder();
  cond_args.resize(names.size());
  body_args.resize(names.size());
  cond_args.insert(cond_args.end(), cond_caps.begin(), cond_caps.end());
  body_args.insert(body_args.end(), body_caps.begin(), body_caps.end());
  for (const Node* a : body_caps) body_refs.push_back({a, 0});  // captures pass through
  ASSIGN_OR_RETURN(FunctionRef cond_fn, cond.scope->Finish(cond_args, {cond.outputs[0].as_tensor()->ref}));
  ASSIGN_OR_RETURN(FunctionRef body_fn, loop.scope->Finish(body_args, body_refs));
  std::vector<OutputRef> inputs = init_refs;
  for (const auto& cap : captures) inputs.push_back(cap->ref);
  ASSIGN_OR_RETURN(Value out, tracer.Op("While", inputs, {{"cond", cond_fn}, {"body", body_fn}}, "while",
                                        /*stateful=*/true));
  std::vector<Value> outs = out.is(K::kTuple) ? out.as_tuple() : std::vector<Value>{out};
  outs.resize(names.size());
  RETURN_IF_ERROR(set_state(outs));
  for (size_t i = 0; i < outs.size(); ++i) {
    if (array_dtype[i] != DType::kInvalid) outs[i] = Value::Obj(std::make_shared<TensorArrayObj>(array_dtype[i], outs[i]));
  }
  return outs;
}

}  // namespace graphd::compiler::tracer
