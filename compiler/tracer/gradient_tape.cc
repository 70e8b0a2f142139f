#include "compiler/tracer/gradient_tape.h"

#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/autodiff/gradients.h"
#include "compiler/tracer/eager_tape.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/nest.h"
#include "compiler/tracer/tf_args.h"
#include "compiler/tracer/variables.h"
#include "core/graph/node_attr.h"

namespace graphd::compiler::tracer {
namespace {

using K = Value::Kind;

// Gradient nodes go into the scope like traced ops ("gradient_tape/..." names).
class ScopeSink : public autodiff::NodeSink {
 public:
  ScopeSink(GraphScope& scope, std::string prefix, SourceRange range)
      : scope_(scope), prefix_(std::move(prefix)), range_(range) {}
  StatusOr<const Node*> Add(const std::string& op, const std::string& base, std::vector<OutputRef> inputs,
                            AttrMap attrs) override {
    return scope_.Add(op, prefix_ + base, std::move(inputs), std::move(attrs), /*stateful=*/false, range_);
  }

 private:
  GraphScope& scope_;
  std::string prefix_;
  SourceRange range_;
};

// What to differentiate: the targets and seeds as tensors of `scope`, and each
// source leaf as the refs it stands for (a variable: its recorded reads).
struct Differentiation {
  autodiff::GradientRequest request;
  std::vector<Value> source_leaves;
  std::vector<std::vector<int>> leaf_sources;  // per leaf: indices into request.sources
  std::vector<std::string> leaf_variable;      // per leaf: the variable's var_name, or ""
};

StatusOr<std::vector<OutputRef>> TensorLeaves(Interpreter& interp, Tracer& t, const Value& v, const std::string& what) {
  std::vector<Value> leaves;
  RETURN_IF_ERROR(FlattenLeaves(v, leaves));
  std::vector<OutputRef> refs;
  for (const Value& leaf : leaves) {
    if (leaf.is_none()) return PyError("ValueError", what + " must be tensors, got None");
    ASSIGN_OR_RETURN(OutputRef r, t.ToTensor(leaf));
    refs.push_back(r);
  }
  return refs;
}

// The targets' seeds (output_gradients, grad_ys): one per target.
Status AddSeeds(Differentiation& d, const std::vector<OutputRef>& seeds, const std::string& what) {
  if (seeds.size() != d.request.targets.size()) {
    return PyError("ValueError", absl::StrCat(what, " has ", seeds.size(), " tensors for ", d.request.targets.size(),
                                              " targets"));
  }
  for (const OutputRef& s : seeds) d.request.target_grads.push_back(s);
  return absl::OkStatus();
}

// Turns gradient node outputs into values (symbolic tensors, or eager ones computed).
using Materialize = std::function<StatusOr<std::vector<Value>>(const std::vector<OutputRef>&)>;

// Adds the gradient nodes to `scope` and packs the results like the sources (None
// where none).
StatusOr<Value> Finish(Interpreter& interp, Tracer& t, GraphScope& scope, Differentiation& d, const Value& sources,
                       bool unconnected_zero, const Materialize& materialize) {
  ScopeSink sink(scope, t.NameScopePrefix() + "gradient_tape/", interp.current_range());
  GraphScope* body_scope = &scope;
  autodiff::GradEnv env;
  env.raw_body = [body_scope](const FunctionRef& f) {
    FunctionRef raw = body_scope->RawBody(*f);
    return raw != nullptr ? raw : f;
  };
  env.finish_body = [body_scope](std::string name, std::unique_ptr<Graph> graph, std::vector<const Node*> args,
                                 std::vector<OutputRef> results) {
    return body_scope->FinishBody(std::move(name), std::move(graph), std::move(args), std::move(results));
  };
  for (const std::string& v : d.leaf_variable) {
    if (!v.empty()) env.variables.insert(v);
  }
  autodiff::GradBuilder b(sink, &env);
  auto grads = autodiff::AddGradients(b, scope.graph(), d.request);
  if (!grads.ok()) {
    // TensorFlow raises LookupError for an op without a gradient.
    const bool missing = absl::StrContains(grads.status().message(), "no gradient is defined");
    const bool unsupported = grads.status().code() == absl::StatusCode::kUnimplemented;
    return errors::WithPythonClass(grads.status(), missing       ? "LookupError"
                                                   : unsupported ? "NotImplementedError"
                                                                 : "ValueError");
  }
  std::vector<std::optional<OutputRef>> per_leaf;
  for (size_t leaf = 0; leaf < d.source_leaves.size(); ++leaf) {
    std::optional<OutputRef> sum;
    std::vector<std::optional<OutputRef>> parts;
    for (int i : d.leaf_sources[leaf]) parts.push_back((*grads)[i]);
    if (!d.leaf_variable[leaf].empty()) {
      // Reads inside If and While bodies.
      for (const OutputRef& g : env.variable_grads[d.leaf_variable[leaf]]) parts.push_back(g);
    }
    for (const std::optional<OutputRef>& g : parts) {
      if (!g.has_value()) continue;
      if (sum.has_value()) {
        ASSIGN_OR_RETURN(sum, b.Add(*sum, *g));
      } else {
        sum = g;
      }
    }
    if (!sum.has_value() && unconnected_zero && !d.leaf_sources[leaf].empty()) {
      ASSIGN_OR_RETURN(sum, b.ZerosLike(d.request.sources[d.leaf_sources[leaf][0]]));
    }
    per_leaf.push_back(sum);
  }
  std::vector<OutputRef> present;
  for (const auto& g : per_leaf) {
    if (g.has_value()) present.push_back(*g);
  }
  ASSIGN_OR_RETURN(std::vector<Value> values, materialize(present));
  std::vector<Value> results;
  size_t next = 0;
  for (size_t leaf = 0; leaf < per_leaf.size(); ++leaf) {
    if (per_leaf[leaf].has_value()) {
      results.push_back(values[next++]);
    } else if (unconnected_zero) {
      // A source the tape never saw: zeros of its own value.
      ASSIGN_OR_RETURN(OutputRef like, t.ToTensor(d.source_leaves[leaf]));
      ASSIGN_OR_RETURN(Value z, t.Op("ZerosLike", {like}));
      results.push_back(z);
    } else {
      results.push_back(Value::None());
    }
  }
  size_t pos = 0;
  return PackLike(sources, results, &pos);
}

// Traced code: the gradients are tensors of the scope.
Materialize Symbolic(Tracer& t) {
  return [&t](const std::vector<OutputRef>& refs) -> StatusOr<std::vector<Value>> {
    std::vector<Value> out;
    for (const OutputRef& r : refs) out.push_back(t.Wrap(r));
    return out;
  };
}

StatusOr<bool> UnconnectedZero(const Args& a) {
  Value u = a.GetOr("unconnected_gradients", Value::None());
  if (u.is_none()) return false;
  if (!u.is(K::kStr)) return PyError("TypeError", "unconnected_gradients must be 'none' or 'zero', got " + u.TypeName());
  std::string s = u.as_str();
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "zero") return true;
  if (s == "none") return false;
  return PyError("ValueError", "unconnected_gradients must be 'none' or 'zero', got '" + u.as_str() + "'");
}

class GradientTapeObj;

// tape.stop_recording(): the tape records nothing inside the block.
class StopRecordingObj : public Object {
 public:
  explicit StopRecordingObj(std::shared_ptr<GradientTapeObj> tape) : tape_(std::move(tape)) {}
  std::string TypeName() const override { return "stop_recording"; }
  StatusOr<Value> Enter(Interpreter& interp) override;
  Status Exit(Interpreter& interp, bool failed) override;

 private:
  std::shared_ptr<GradientTapeObj> tape_;
};

class GradientTapeObj : public Object {
 public:
  GradientTapeObj(bool persistent, bool watch_accessed) : persistent_(persistent), watch_accessed_(watch_accessed) {}
  std::string TypeName() const override { return "GradientTape"; }
  std::string Repr() const override { return "<tensorflow.python.eager.backprop.GradientTape object>"; }

  StatusOr<Value> Enter(Interpreter& interp) override {
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(interp));
    if (recording()) return PyError("ValueError", "Tape is still recording, This can happen if you try to re-enter "
                                                  "an already-active tape.");
    if (scope_ != nullptr && scope_serial_ != t->scope().serial()) {
      return PyError("ValueError", "a GradientTape records in one function or staged block; this one was entered in "
                                   "another");
    }
    if (t->eager() && !t->in_staged_body()) {
      // Module-level code: the tape records into a graph of its own.
      if (eager_ == nullptr) eager_ = std::make_unique<EagerRecording>();
      tracer_ = t;
      scope_ = &eager_->scope();
      scope_serial_ = scope_->serial();
    } else {
      scope_ = &t->scope();
      scope_serial_ = scope_->serial();
    }
    Start();
    return Value::Obj(shared_from_this());
  }
  Status Exit(Interpreter&, bool) override {
    Stop();
    return absl::OkStatus();
  }

  bool recording() const { return open_ >= 0; }
  void Start() {
    open_ = scope_->graph().num_nodes();
    if (eager_ != nullptr) tracer_->AddEagerTape(eager_.get());
  }
  void Stop() {
    if (open_ >= 0) intervals_.emplace_back(open_, scope_->graph().num_nodes());
    open_ = -1;
    if (eager_ != nullptr) tracer_->RemoveEagerTape(eager_.get());
  }
  bool Recorded(const Node& n) const {
    if (eager_ != nullptr) return true;  // the eager graph holds only what the tape recorded
    if (open_ >= 0 && n.id() >= open_) return true;
    for (const auto& [lo, hi] : intervals_) {
      if (n.id() >= lo && n.id() < hi) return true;
    }
    return false;
  }

  StatusOr<Value> GetAttr(Interpreter& interp, const std::string& name) override {
    auto self = std::static_pointer_cast<GradientTapeObj>(shared_from_this());
    auto method = [&](StatusOr<Value> (GradientTapeObj::*fn)(Interpreter&, CallArgs&)) {
      return Value::Obj(std::make_shared<BuiltinObj>(
          name, [self, fn](Interpreter& in, CallArgs& call) { return ((*self).*fn)(in, call); }));
    };
    if (name == "gradient") return method(&GradientTapeObj::Gradient);
    if (name == "watch") return method(&GradientTapeObj::Watch);
    if (name == "watched_variables") return method(&GradientTapeObj::WatchedVariables);
    if (name == "stop_recording") {
      return Value::Obj(std::make_shared<BuiltinObj>(name, [self](Interpreter&, CallArgs&) -> StatusOr<Value> {
        if (!self->recording()) return PyError("ValueError", "Tape must be recording.");
        return Value::Obj(std::make_shared<StopRecordingObj>(self));
      }));
    }
    if (name == "reset") {
      return Value::Obj(std::make_shared<BuiltinObj>(name, [self](Interpreter&, CallArgs&) -> StatusOr<Value> {
        const bool was = self->recording();
        self->intervals_.clear();
        self->watched_.clear();
        self->watched_vars_.clear();
        self->used_ = false;
        self->open_ = -1;
        if (was) self->Start();
        return Value::None();
      }));
    }
    return Object::GetAttr(interp, name);
  }

 private:
  StatusOr<GraphScope*> Scope(Tracer& t, const std::string& what) {
    if (scope_ == nullptr) return PyError("ValueError", what + " needs a tape that has been entered (with ...)");
    if (eager_ != nullptr) {
      if (t.in_staged_body() || !t.eager()) {
        return PyError("ValueError", what + " of a tape made in module-level code must be called there too");
      }
      return scope_;
    }
    if (t.scope().serial() != scope_serial_) {
      return PyError("ValueError", what + " must be called in the function or staged block (branch or loop body) "
                                          "where the tape recorded");
    }
    return scope_;
  }

  StatusOr<Value> Watch(Interpreter& interp, CallArgs& call) {
    Args a("watch", call, {"tensor"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(interp));
    ASSIGN_OR_RETURN(GraphScope * scope, Scope(*t, "watch()"));
    (void)scope;
    ASSIGN_OR_RETURN(Value v, a.Get("tensor"));
    std::vector<Value> leaves;
    RETURN_IF_ERROR(FlattenLeaves(v, leaves));
    for (const Value& leaf : leaves) {
      if (auto var = leaf.object_as<VariableObj>()) {
        if (!watched_vars_.contains(var->store_name())) {
          watched_vars_.insert(var->store_name());
          watched_var_objects_.push_back(leaf);
        }
        continue;
      }
      if (!leaf.is(K::kTensor)) {
        return PyError("ValueError", "Passed in object of type " + leaf.TypeName() + ", not tf.Tensor or tf.Variable");
      }
      if (eager_ != nullptr && !leaf.as_tensor()->symbolic()) {
        ASSIGN_OR_RETURN(OutputRef r, eager_->Watch(*leaf.as_tensor()));
        watched_.insert(r);
        continue;
      }
      ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(leaf));
      watched_.insert(r);
    }
    return Value::None();
  }

  StatusOr<Value> WatchedVariables(Interpreter&, CallArgs&) { return Value::Tuple(watched_var_objects_); }

  bool Watches(const VariableObj& v) const {
    return watched_vars_.contains(v.store_name()) || (watch_accessed_ && v.trainable());
  }

  StatusOr<Value> Gradient(Interpreter& interp, CallArgs& call) {
    Args a("gradient", call, {"target", "sources", "output_gradients", "unconnected_gradients"});
    RETURN_IF_ERROR(a.Check());
    ASSIGN_OR_RETURN(Tracer * t, TracerOf(interp));
    ASSIGN_OR_RETURN(GraphScope * scope, Scope(*t, "gradient()"));
    if (used_ && !persistent_) {
      return PyError("RuntimeError", "A non-persistent GradientTape can only be used to compute one set of "
                                     "gradients (or jacobians)");
    }
    ASSIGN_OR_RETURN(Value target, a.Get("target"));
    ASSIGN_OR_RETURN(Value sources, a.Get("sources"));
    ASSIGN_OR_RETURN(bool zero, UnconnectedZero(a));
    Differentiation d;
    ASSIGN_OR_RETURN(d.request.targets, Targets(interp, *t, target, "gradient() targets"));
    if (a.Has("output_gradients")) {
      ASSIGN_OR_RETURN(std::vector<OutputRef> seeds,
                       Targets(interp, *t, a.GetOr("output_gradients", Value::None()), "output_gradients"));
      RETURN_IF_ERROR(AddSeeds(d, seeds, "output_gradients"));
    }
    RETURN_IF_ERROR(FlattenLeaves(sources, d.source_leaves));
    const Graph& graph = scope->graph();
    for (const Value& leaf : d.source_leaves) {
      std::vector<int> refs;
      std::string var_name;
      if (auto var = leaf.object_as<VariableObj>()) {
        if (Watches(*var)) var_name = var->store_name();
        for (const OutputRef& r : eager_ != nullptr && Watches(*var) ? eager_->Reads(var_name) : std::vector<OutputRef>{}) {
          refs.push_back(static_cast<int>(d.request.sources.size()));
          d.request.sources.push_back(r);
        }
        for (int id = 0; eager_ == nullptr && Watches(*var) && id < graph.num_nodes(); ++id) {
          const Node& n = *graph.node(id);
          if (Recorded(n) && n.op_name() == "ReadVariableOp" &&
              AttrOr<std::string>(n, "var_name", "") == var->store_name()) {
            refs.push_back(static_cast<int>(d.request.sources.size()));
            d.request.sources.push_back({&n, 0});
          }
        }
      } else if (leaf.is(K::kTensor)) {
        const TensorObj& to = *leaf.as_tensor();
        std::optional<OutputRef> held = eager_ != nullptr ? eager_->Lookup(to) : std::nullopt;
        if (held.has_value()) {
          refs.push_back(static_cast<int>(d.request.sources.size()));
          d.request.sources.push_back(*held);
        } else if (to.symbolic() && to.scope == scope && to.scope_serial == scope_serial_ &&
            (watched_.contains(to.ref) || Recorded(*to.ref.node))) {
          refs.push_back(static_cast<int>(d.request.sources.size()));
          d.request.sources.push_back(to.ref);
        }
      } else {
        return PyError("ValueError", "gradient() sources must be tensors or variables, got " + leaf.TypeName());
      }
      d.leaf_sources.push_back(std::move(refs));
      d.leaf_variable.push_back(var_name);
    }
    d.request.recorded = [this](const Node& n) { return Recorded(n); };
    used_ = true;
    if (eager_ == nullptr) return Finish(interp, *t, *scope, d, sources, zero, Symbolic(*t));
    // Module-level code: run what the gradients need, now.
    EagerRecording* rec = eager_.get();
    EagerRunner* runner = t->eager_runner();
    const bool was_recording = recording();
    if (was_recording) Stop();  // a tape does not record its own gradient computation
    // Other tapes recording now (outer ones: nested tapes) record it, so that their
    // gradients go through it (the second derivative of an inner tape's result).
    std::vector<EagerRecording*> outer;
    for (EagerTape* tape : t->eager_tapes()) outer.push_back(static_cast<EagerRecording*>(tape));
    auto out = Finish(interp, *t, *scope, d, sources, zero,
                      [rec, runner, &outer](const std::vector<OutputRef>& refs) -> StatusOr<std::vector<Value>> {
                        ASSIGN_OR_RETURN(std::vector<Tensor> values, rec->Evaluate(*runner, refs));
                        for (EagerRecording* o : outer) RETURN_IF_ERROR(o->RecordFrom(*rec, refs, values));
                        std::vector<Value> out;
                        for (Tensor& v : values) {
                          auto obj = std::make_shared<TensorObj>();
                          obj->dtype = v.dtype();
                          obj->shape = PartialShape(v.shape());
                          obj->value = std::move(v);
                          out.push_back(Value::Tensor(std::move(obj)));
                        }
                        return out;
                      });
    if (was_recording) Start();
    return out;
  }

  // Targets (or seeds) as nodes of the tape's graph; eager tensors the tape did not
  // record are dropped (their gradients are None, as TensorFlow's).
  StatusOr<std::vector<OutputRef>> Targets(Interpreter& interp, Tracer& t, const Value& v, const std::string& what) {
    if (eager_ == nullptr) return TensorLeaves(interp, t, v, what);
    std::vector<Value> leaves;
    RETURN_IF_ERROR(FlattenLeaves(v, leaves));
    std::vector<OutputRef> refs;
    for (const Value& leaf : leaves) {
      if (!leaf.is(K::kTensor)) return PyError("ValueError", what + " must be tensors, got " + leaf.TypeName());
      if (std::optional<OutputRef> r = eager_->Lookup(*leaf.as_tensor())) refs.push_back(*r);
    }
    return refs;
  }

  friend class StopRecordingObj;
  bool persistent_, watch_accessed_;
  std::unique_ptr<EagerRecording> eager_;  // module-level code only
  Tracer* tracer_ = nullptr;
  GraphScope* scope_ = nullptr;
  uint64_t scope_serial_ = 0;
  int open_ = -1;
  std::vector<std::pair<int, int>> intervals_;
  absl::flat_hash_set<OutputRef> watched_;
  std::set<std::string> watched_vars_;
  std::vector<Value> watched_var_objects_;
  bool used_ = false;
};

StatusOr<Value> StopRecordingObj::Enter(Interpreter&) {
  tape_->Stop();
  return Value::None();
}

Status StopRecordingObj::Exit(Interpreter&, bool) {
  tape_->Start();
  return absl::OkStatus();
}

}  // namespace

StatusOr<Value> MakeGradientTape(Interpreter&, CallArgs& call) {
  Args a("GradientTape", call, {"persistent", "watch_accessed_variables"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(bool persistent, a.Flag("persistent", false));
  ASSIGN_OR_RETURN(bool watch, a.Flag("watch_accessed_variables", true));
  return Value::Obj(std::make_shared<GradientTapeObj>(persistent, watch));
}

StatusOr<Value> StopGradient(Interpreter& interp, CallArgs& call) {
  Args a("stop_gradient", call, {"input", "name"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(interp));
  ASSIGN_OR_RETURN(Value x, a.Get("input"));
  ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(x));
  return t->Op("StopGradient", {r}, {}, "StopGradient");
}

StatusOr<Value> Gradients(Interpreter& interp, CallArgs& call) {
  Args a("gradients", call, {"ys", "xs", "grad_ys", "name", "gate_gradients", "aggregation_method", "stop_gradients",
                             "unconnected_gradients"});
  RETURN_IF_ERROR(a.Check());
  ASSIGN_OR_RETURN(Tracer * t, TracerOf(interp));
  if (t->eager() && !t->in_staged_body()) {
    return PyError("RuntimeError", "tf.gradients is not supported when eager execution is enabled. Use "
                                   "tf.GradientTape instead.");
  }
  ASSIGN_OR_RETURN(Value ys, a.Get("ys"));
  ASSIGN_OR_RETURN(Value xs, a.Get("xs"));
  ASSIGN_OR_RETURN(bool zero, UnconnectedZero(a));
  Differentiation d;
  ASSIGN_OR_RETURN(d.request.targets, TensorLeaves(interp, *t, ys, "gradients() ys"));
  if (a.Has("grad_ys")) {
    ASSIGN_OR_RETURN(std::vector<OutputRef> seeds, TensorLeaves(interp, *t, a.GetOr("grad_ys", Value::None()), "grad_ys"));
    RETURN_IF_ERROR(AddSeeds(d, seeds, "grad_ys"));
  }
  RETURN_IF_ERROR(FlattenLeaves(xs, d.source_leaves));
  const Graph& graph = t->scope().graph();
  for (const Value& leaf : d.source_leaves) {
    std::vector<int> refs;
    std::string var_name;
    if (auto var = leaf.object_as<VariableObj>()) {
      var_name = var->store_name();
      for (int id = 0; id < graph.num_nodes(); ++id) {
        const Node& n = *graph.node(id);
        if (n.op_name() == "ReadVariableOp" && AttrOr<std::string>(n, "var_name", "") == var->store_name()) {
          refs.push_back(static_cast<int>(d.request.sources.size()));
          d.request.sources.push_back({&n, 0});
        }
      }
    } else {
      ASSIGN_OR_RETURN(OutputRef r, t->ToTensor(leaf));
      refs.push_back(static_cast<int>(d.request.sources.size()));
      d.request.sources.push_back(r);
    }
    d.leaf_sources.push_back(std::move(refs));
    d.leaf_variable.push_back(var_name);
  }
  // tf.gradients returns a list even for one source.
  Value list_like = xs.is(K::kList) || xs.is(K::kTuple) ? xs : Value::List({xs});
  return Finish(interp, *t, t->scope(), d, list_like, zero, Symbolic(*t));
}

}  // namespace graphd::compiler::tracer
