// StageWhile (see staging.h): a While node over the leaves of the loop's state, with
// TensorFlow's handling of state that is not defined before the loop.
#include <algorithm>
#include <cstring>

#include "compiler/tracer/errors.h"
#include "compiler/tracer/nest.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/staging.h"
#include "compiler/tracer/tensor_array.h"
#include "compiler/tracer/tf_objects.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

bool IsNullish(const Value& v) { return v.is_none() || IsUndefined(v) || IsUndefinedReturn(v); }

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

// What the placeholder of one state symbol is: its value before the loop (zeros
// like the value one iteration gives) and a shape invariant per leaf.
struct Placeholder {
  Value value;
  std::vector<std::optional<PartialShape>> invariants;
};

// TensorFlow's _placeholder_value: zeros of the dtype and shape of `like` (unknown
// dimensions 0, then left free by an invariant), 0 of its Python type, the same for
// each leaf of a structure; `original` when `like` is itself undefined.
StatusOr<Placeholder> PlaceholderLike(Tracer& tracer, const std::string& name, const Value& like,
                                      const Value& original) {
  if (IsNullish(like)) return Placeholder{original, {std::nullopt}};
  std::vector<Value> leaves;
  RETURN_IF_ERROR(FlattenLeaves(like, leaves));
  Placeholder out;
  std::vector<Value> zeros;
  for (const Value& leaf : leaves) {
    std::optional<PartialShape> invariant;
    if (leaf.is(K::kBool)) {
      zeros.push_back(Value::Bool(false));
    } else if (leaf.is(K::kInt)) {
      zeros.push_back(Value::Int(0));
    } else if (leaf.is(K::kFloat)) {
      zeros.push_back(Value::Float(0));
    } else if (leaf.is(K::kTensor) && leaf.as_tensor()->dtype != DType::kString) {
      const TensorObj& t = *leaf.as_tensor();
      std::vector<int64_t> dims;
      if (t.shape.known_rank()) {
        for (int d = 0; d < t.shape.rank(); ++d) dims.push_back(t.shape.dim(d) == kUnknownDim ? 0 : t.shape.dim(d));
        if (!t.shape.fully_defined()) invariant = t.shape;
      } else {
        invariant = t.shape;
      }
      ASSIGN_OR_RETURN(Tensor value, Tensor::Allocate(t.dtype, Shape(dims)));
      if (value.bytes() > 0) std::memset(value.raw_data(), 0, value.bytes());
      ASSIGN_OR_RETURN(Value zero, tracer.Op("Const", {}, {{"value", value}}, "zeros"));
      zeros.push_back(zero);
    } else {
      return PyError("TypeError", "Found an unsupported type '" + leaf.TypeName() + "' while creating placeholder for " +
                                      name + ". Supported types include Tensor, int, float, bool, list, tuple or dict.");
    }
    out.invariants.push_back(invariant);
  }
  size_t pos = 0;
  out.value = PackLike(like, zeros, &pos);
  return out;
}

// Errors of TensorFlow's verify_loop_init_vars for the state before the loop.
Status VerifyInit(const std::vector<std::string>& names, const std::vector<Value>& init,
                  const std::vector<Value>* first_iteration, const std::string& failure) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (IsUndefinedReturn(init[i])) {
      if (first_iteration != nullptr && !IsNullish((*first_iteration)[i])) {
        return PyError("ValueError", "the return value from a TensorFlow loop may only be a Tensor, int, float, bool "
                                     "or a list, tuple or dict thereof; got " + (*first_iteration)[i].TypeName());
      }
      return PyError("NotImplementedError", "a return statement cannot be placed inside this TensorFlow loop; this "
                                            "may happen if a return statement depends on a static Python condition "
                                            "such as a hyperparameter");
    }
    if (init[i].is_none()) return PyError("ValueError", "'" + names[i] + "' is not allowed to be None before the loop");
    if (IsUndefined(init[i])) {
      return PyError("ValueError", "'" + names[i] + "' must be defined before the loop" +
                                       (failure.empty() ? "" : "\n" + failure));
    }
  }
  return absl::OkStatus();
}

// TensorFlow's _try_handling_undefineds: traces one iteration in a throwaway body to
// learn what the undefined state symbols become, and starts them as zeros of that.
// Returns true (the loop must run at least once, checked at run time) when that
// worked; errors as verify_loop_init_vars otherwise. `init` and `extra` (invariants
// of the placeholders' leaves, per state symbol) are updated.
StatusOr<bool> HandleUndefineds(Interpreter& interp, Tracer& tracer, const std::vector<std::string>& names,
                                std::vector<Value>& init, std::vector<std::vector<std::optional<PartialShape>>>& extra,
                                const std::function<Status()>& body,
                                const std::function<StatusOr<std::vector<Value>>()>& get_state,
                                const std::function<Status(const std::vector<Value>&)>& set_state) {
  // The trial sees Python numbers before the loop as tensors, as the loop will.
  std::vector<TensorType> arg_types;
  std::vector<std::vector<Value>> leaves(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    if (IsNullish(init[i])) continue;
    RETURN_IF_ERROR(FlattenLeaves(init[i], leaves[i]));
    for (const Value& leaf : leaves[i]) {
      if (leaf.is_number() || leaf.is(K::kStr)) {
        ASSIGN_OR_RETURN(Tensor t, PythonToTensor(leaf, DType::kInvalid));
        arg_types.push_back({t.dtype(), PartialShape(t.shape())});
      }
    }
  }
  std::vector<Value> first;
  auto trial = TraceBody(interp, tracer, "tmp", arg_types, [&](const std::vector<Value>& args) -> StatusOr<std::vector<Value>> {
    std::vector<Value> state = init;
    size_t next_arg = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      if (IsNullish(init[i])) continue;
      std::vector<Value> cast = leaves[i];
      for (Value& leaf : cast) {
        if (leaf.is_number() || leaf.is(K::kStr)) leaf = args[next_arg++];
      }
      size_t pos = 0;
      state[i] = PackLike(init[i], cast, &pos);
    }
    RETURN_IF_ERROR(set_state(state));
    RETURN_IF_ERROR(body());
    ASSIGN_OR_RETURN(first, get_state());
    return std::vector<Value>{};
  });
  std::string failure;
  std::vector<Value> placeholders = init;
  Status status = trial.status();
  for (size_t i = 0; i < names.size() && status.ok(); ++i) {
    if (!IsNullish(init[i])) continue;
    auto p = PlaceholderLike(tracer, names[i], first[i], init[i]);
    if (!p.ok()) {
      status = p.status();
      break;
    }
    placeholders[i] = p->value;
    extra[i] = p->invariants;
  }
  RETURN_IF_ERROR(set_state(init));
  if (!status.ok()) {
    const bool expected = IsPyError(status, "UnboundLocalError") || IsPyError(status, "TypeError") ||
                          IsPyError(status, "ValueError") || IsPyError(status, "KeyError");
    if (!expected) return status;
    failure = "Note: AutoGraph tried to define it automatically, but ran into a " +
              errors::PythonClassOf(status).value_or("error") + ": " + std::string(status.message());
    RETURN_IF_ERROR(VerifyInit(names, init, nullptr, failure));
    return false;
  }
  RETURN_IF_ERROR(VerifyInit(names, placeholders, &first, failure));
  init = std::move(placeholders);
  return true;
}

// The message of the run-time check of a loop that defines state symbols.
std::string ZeroIterationsMessage(const std::vector<std::string>& names, const std::vector<Value>& init) {
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!IsNullish(init[i])) continue;
    if (!list.empty()) list += ", ";
    list += IsUndefinedReturn(init[i]) ? "the function return value" : names[i];
  }
  return "loop must iterate at least once to initialize " + list;
}

}  // namespace

StatusOr<std::vector<Value>> StageWhile(Interpreter& interp, Tracer& tracer, const std::vector<std::string>& names,
                                        const std::vector<Value>& init_in, const std::function<StatusOr<Value>()>& test,
                                        const std::function<Status()>& body,
                                        const std::function<StatusOr<std::vector<Value>>()>& get_state_in,
                                        const std::function<Status(const std::vector<Value>&)>& set_state_in,
                                        const std::vector<std::optional<PartialShape>>& invariants) {
  std::vector<Value> init = init_in;
  std::vector<std::vector<std::optional<PartialShape>>> extra(names.size());
  bool require_one_iteration = false;
  if (std::any_of(init.begin(), init.end(), IsNullish)) {
    ASSIGN_OR_RETURN(require_one_iteration,
                     HandleUndefineds(interp, tracer, names, init, extra, body, get_state_in, set_state_in));
  }
  // The loop variables are the leaves of the state; `owner` maps each to its symbol.
  std::vector<Value> leaves;
  std::vector<size_t> owner;
  std::vector<std::optional<PartialShape>> leaf_invariants;
  size_t given = 0;  // position in `invariants` (one per leaf of init_in)
  for (size_t i = 0; i < names.size(); ++i) {
    size_t before = leaves.size();
    RETURN_IF_ERROR(FlattenLeaves(init[i], leaves));
    owner.resize(leaves.size(), i);
    if (IsNullish(init_in[i])) {
      ++given;
      leaf_invariants.insert(leaf_invariants.end(), extra[i].begin(), extra[i].end());
      leaf_invariants.resize(leaves.size());
      continue;
    }
    for (size_t k = before; k < leaves.size(); ++k, ++given) {
      leaf_invariants.push_back(given < invariants.size() ? invariants[given] : std::nullopt);
    }
  }
  const size_t n_user = leaves.size();
  std::vector<std::string> leaf_names;
  for (size_t k = 0; k < n_user; ++k) leaf_names.push_back(names[owner[k]]);
  if (require_one_iteration) {
    leaves.push_back(Value::Bool(false));
    leaf_names.push_back("<first iteration>");
    leaf_invariants.push_back(std::nullopt);
  }
  // TensorArrays are carried as their buffers (any shape: they grow) and rewrapped.
  std::vector<DType> array_dtype(leaves.size(), DType::kInvalid);
  for (size_t k = 0; k < leaves.size(); ++k) {
    Value& leaf = leaves[k];
    if (leaf.is(K::kList) && leaf.as_list()->element_dtype != 0) {
      // A Python list appended to in a staged loop: a TensorArray of its element type.
      auto ta = std::make_shared<TensorArrayObj>(static_cast<DType>(leaf.as_list()->element_dtype), Value::None());
      for (const Value& item : leaf.as_list()->items) {
        ASSIGN_OR_RETURN(Value append, ta->GetAttr(interp, "append"));
        ASSIGN_OR_RETURN(Value grown, interp.Call(append, CallArgs{.args = {item}}));
        ta = grown.object_as<TensorArrayObj>();
      }
      leaf = Value::Obj(ta);
    }
    if (auto ta = leaf.object_as<TensorArrayObj>()) {
      array_dtype[k] = ta->dtype();
      ASSIGN_OR_RETURN(leaf, ta->BufferTensor(interp));
    } else if (IsTensorLikeObject(leaf)) {  // variables enter the loop as their values
      ASSIGN_OR_RETURN(OutputRef r, tracer.ToTensor(leaf));
      leaf = tracer.Wrap(r);
    }
  }
  // State values from loop-variable values (TensorArrays rewrapped), and back.
  auto pack = [&](const std::vector<Value>& values) {
    std::vector<Value> state;
    size_t pos = 0;
    std::vector<Value> wrapped = values;
    for (size_t k = 0; k < wrapped.size(); ++k) {
      if (array_dtype[k] != DType::kInvalid) {
        wrapped[k] = Value::Obj(std::make_shared<TensorArrayObj>(array_dtype[k], values[k]));
      }
    }
    for (size_t i = 0; i < names.size(); ++i) state.push_back(PackLike(init[i], wrapped, &pos));
    return state;
  };
  std::vector<OutputRef> init_refs;
  std::vector<TensorType> types;
  for (size_t k = 0; k < leaves.size(); ++k) {
    const Value& leaf = leaves[k];
    if (!LeafConvertible(leaf)) {
      return PyError("TypeError", "'" + leaf_names[k] + "' is a " + leaf.TypeName() +
                                      "; the variables of a loop over tensors must be tensors (or numbers)");
    }
    ASSIGN_OR_RETURN(OutputRef r, tracer.ToTensor(leaf));
    init_refs.push_back(r);
    types.push_back(r.node->output(r.index));
    if (array_dtype[k] != DType::kInvalid) types.back().shape = PartialShape::UnknownRank();
    if (leaf_invariants[k]) {
      const PartialShape& before = leaf.is(K::kTensor) ? leaf.as_tensor()->shape : types.back().shape;
      if (!ShapeFits(*leaf_invariants[k], before)) {
        return PyError("ValueError", "'" + leaf_names[k] + "' has shape " + ShapeRepr(before) +
                                         " before the loop, which does not conform with the shape invariant " +
                                         ShapeRepr(*leaf_invariants[k]));
      }
      types.back().shape = *leaf_invariants[k];
    }
  }
  auto set_user_state = [&](const std::vector<Value>& args) {
    return set_state_in(pack(std::vector<Value>(args.begin(), args.begin() + static_cast<long>(n_user))));
  };
  ASSIGN_OR_RETURN(TracedBody cond, TraceBody(interp, tracer, "while_cond", types,
      [&](const std::vector<Value>& args) -> StatusOr<std::vector<Value>> {
        RETURN_IF_ERROR(set_user_state(args));
        ASSIGN_OR_RETURN(Value t, test());
        ASSIGN_OR_RETURN(OutputRef r, tracer.ToTensor(t, DType::kBool));
        const TensorType& type = r.node->output(r.index);
        if (type.dtype != DType::kBool || (type.shape.known_rank() && type.shape.rank() != 0)) {
          return PyError("ValueError", "condition of while loop expected to be `tf.bool` scalar, got a " +
                                           std::string(DTypeName(type.dtype)) + " tensor of shape " +
                                           ShapeRepr(type.shape) + "; to use as boolean Tensor, use `tf.cast`");
        }
        return std::vector<Value>{tracer.Wrap(r)};
      }));
  std::vector<OutputRef> body_refs;
  ASSIGN_OR_RETURN(TracedBody loop, TraceBody(interp, tracer, "while_body", types,
      [&](const std::vector<Value>& args) -> StatusOr<std::vector<Value>> {
        RETURN_IF_ERROR(set_user_state(args));
        RETURN_IF_ERROR(body());
        ASSIGN_OR_RETURN(std::vector<Value> state, get_state_in());
        std::vector<Value> outs;
        for (size_t i = 0; i < names.size(); ++i) {
          if (auto why = StructureMismatch(init[i], state[i])) {
            return PyError("TypeError", "'" + names[i] + "' does not have the same nested structure after one "
                                        "iteration.\n\n" + *why);
          }
          RETURN_IF_ERROR(FlattenLeaves(state[i], outs));
        }
        if (require_one_iteration) outs.push_back(Value::Bool(true));
        for (size_t k = 0; k < outs.size(); ++k) {
          if (array_dtype[k] != DType::kInvalid) {
            auto ta = outs[k].object_as<TensorArrayObj>();
            if (ta == nullptr) return PyError("TypeError", "'" + leaf_names[k] + "' must stay a TensorArray in the loop");
            ASSIGN_OR_RETURN(outs[k], ta->BufferTensor(interp));
          }
          if (outs[k].is_none()) return PyError("ValueError", "'" + leaf_names[k] + "' is None at the end of the iteration.");
          if (IsUndefined(outs[k]) || !(LeafConvertible(outs[k]) || IsTensorLikeObject(outs[k]))) {
            return PyError("TypeError", "'" + leaf_names[k] + "' must stay a tensor in the loop, got " +
                                            outs[k].TypeName());
          }
          ASSIGN_OR_RETURN(OutputRef r, tracer.ToTensor(outs[k], types[k].dtype));
          const TensorType& after = r.node->output(r.index);
          PartialShape after_shape = outs[k].is(K::kTensor) ? outs[k].as_tensor()->shape : after.shape;
          if (after.dtype != types[k].dtype) {
            return PyError("TypeError", "'" + leaf_names[k] + "' has dtype " + std::string(DTypeName(types[k].dtype)) +
                                            " before the loop, but dtype " + std::string(DTypeName(after.dtype)) +
                                            " after one iteration");
          }
          if (!ShapeFits(types[k].shape, after_shape)) {
            return PyError("ValueError", "'" + leaf_names[k] + "' has shape " + ShapeRepr(types[k].shape) +
                                             " before the loop, but shape " + ShapeRepr(after_shape) +
                                             " after one iteration. Use tf.autograph.experimental.set_loop_options "
                                             "to set shape invariants.");
          }
          body_refs.push_back(r);
        }
        return outs;
      }));
  auto captures = UnionOfCaptures({cond.scope.get(), loop.scope.get()});
  ASSIGN_OR_RETURN(auto cond_caps, CaptureArgs(*cond.scope, captures));
  ASSIGN_OR_RETURN(auto body_caps, CaptureArgs(*loop.scope, captures));
  std::vector<const Node*> cond_args = cond.scope->ArgsInOrder(), body_args = loop.scope->ArgsInOrder();
  cond_args.resize(leaves.size());
  body_args.resize(leaves.size());
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
  outs.resize(leaves.size());
  if (require_one_iteration) {
    ASSIGN_OR_RETURN(OutputRef ran, tracer.ToTensor(outs.back(), DType::kBool));
    RETURN_IF_ERROR(tracer.Op("Assert", {ran}, {{"message", ZeroIterationsMessage(names, init_in)}}, "Assert",
                              /*stateful=*/true).status());
    outs.pop_back();
  }
  std::vector<Value> state = pack(outs);
  RETURN_IF_ERROR(set_state_in(state));
  return state;
}

}  // namespace graphd::compiler::tracer
