// Gradients of the structured control flow ops (core/ops/control_flow_ops.cc).
//
// If: a new If on the same condition whose branches are the gradients of the
// original branches (each recomputes its branch, then differentiates it).
//
// While (as TensorFlow's while_v2, with the loop state as the checkpoint): a copy of
// the loop runs forward once more, counting iterations and writing the state each
// iteration starts from into a TensorArray buffer per varying loop variable; a
// second loop runs the count back down, reads the state of iteration i, recomputes
// the body from it and multiplies the loop variables' gradients by its Jacobian.
// Loop-invariant variables (captures) and variables read inside the body collect
// their gradients across iterations.
#include "absl/strings/str_cat.h"
#include "compiler/autodiff/grad_util.h"

namespace graphd::compiler::autodiff {
namespace {

using Dy = const std::vector<OutputRef>&;

bool IsVariableRead(const Node& n) { return n.op_name() == "ReadVariableOp"; }

// The first node of `fn` or a body inside it whose rerun would be visible:
// assignments, prints, stateful random ops. Reads, asserts and control flow are not.
const Node* FirstSideEffect(const Function& fn) {
  for (int id = 0; id < fn.graph->num_nodes(); ++id) {
    const Node& n = *fn.graph->node(id);
    for (const auto& [name, value] : n.attrs()) {
      if (const FunctionRef* body = std::get_if<FunctionRef>(&value); body && *body) {
        if (const Node* inner = FirstSideEffect(**body)) return inner;
      }
    }
    const std::string& op = n.op_name();
    if (n.op().stateful && !IsVariableRead(n) && op != "If" && op != "While" && op != "Assert") return &n;
  }
  return nullptr;
}

// The variable reads of `fn` and its bodies, by var_name (one read each).
void CollectReads(const Function& fn, std::map<std::string, const Node*>& reads) {
  for (int id = 0; id < fn.graph->num_nodes(); ++id) {
    const Node& n = *fn.graph->node(id);
    if (IsVariableRead(n)) reads.emplace(AttrOr<std::string>(n, "var_name", ""), &n);
    for (const auto& [name, value] : n.attrs()) {
      if (const FunctionRef* body = std::get_if<FunctionRef>(&value); body && *body) CollectReads(**body, reads);
    }
  }
}

Status CheckPure(const Node& n, const Function& fn) {
  if (const Node* effect = FirstSideEffect(fn)) {
    return errors::Unimplemented(absl::StrCat(
        "the gradient of ", n.op_name(), " (node '", n.name(), "') recomputes its body, which must be free of side "
        "effects, but it has ", effect->op_name(), " (node '", effect->name(), "'); move it out of the ",
        n.op_name() == "If" ? "branch" : "loop", " or out of the tape"));
  }
  return absl::OkStatus();
}

// The node's two bodies (attributes `a`, `b`) as traced, checked free of side effects.
StatusOr<std::pair<FunctionRef, FunctionRef>> PureBodies(const GradEnv* env, const Node& n, const char* a,
                                                         const char* b) {
  FunctionRef first = AttrOr<FunctionRef>(n, a, nullptr), second = AttrOr<FunctionRef>(n, b, nullptr);
  if (first == nullptr || second == nullptr) return errors::Internal(absl::StrCat(n.name(), " lacks its bodies"));
  if (env != nullptr) {
    first = env->Raw(first);
    second = env->Raw(second);
  }
  RETURN_IF_ERROR(CheckPure(n, *first));
  RETURN_IF_ERROR(CheckPure(n, *second));
  return std::make_pair(first, second);
}

// The source variables (of env) read in `bodies`, with one read of each for its type.
std::map<std::string, const Node*> SourceVariables(const GradEnv* env, const std::vector<FunctionRef>& bodies) {
  std::map<std::string, const Node*> all, out;
  if (env == nullptr) return out;
  for (const FunctionRef& body : bodies) CollectReads(*body, all);
  for (const auto& [name, read] : all) {
    if (env->variables.contains(name)) out.emplace(name, read);
  }
  return out;
}

// Adds the nodes of `fn` through `b` with its arguments replaced by `args`; returns
// its results, and the copies of its variable reads (var_name -> outputs). Control
// edges are dropped: the body has no side effects to order.
StatusOr<std::vector<OutputRef>> InlineBody(GradBuilder& b, NodeSink& sink, const Function& fn,
                                            const std::vector<OutputRef>& args,
                                            std::map<std::string, std::vector<OutputRef>>* reads) {
  absl::flat_hash_map<const Node*, OutputRef> arg_of;
  for (int i = 0; i < fn.num_args(); ++i) arg_of[fn.args[i]] = args[i];
  absl::flat_hash_map<const Node*, const Node*> copy;
  for (int id = 0; id < fn.graph->num_nodes(); ++id) {
    const Node& n = *fn.graph->node(id);
    if (arg_of.contains(&n)) continue;
    std::vector<OutputRef> inputs;
    for (const OutputRef& in : n.inputs()) {
      auto a = arg_of.find(in.node);
      inputs.push_back(a != arg_of.end() ? a->second : OutputRef{copy.at(in.node), in.index});
    }
    ASSIGN_OR_RETURN(const Node* c, sink.Add(n.op_name(), n.name(), std::move(inputs), n.attrs()));
    copy[&n] = c;
    if (IsVariableRead(n) && reads != nullptr) (*reads)[AttrOr<std::string>(n, "var_name", "")].push_back({c, 0});
  }
  std::vector<OutputRef> results;
  for (const OutputRef& r : fn.results) {
    auto a = arg_of.find(r.node);
    results.push_back(a != arg_of.end() ? a->second : OutputRef{copy.at(r.node), r.index});
  }
  return results;
}

// A body under construction: its own graph and builder.
struct NewBody {
  explicit NewBody(GradEnv* env) : graph(std::make_unique<Graph>()), sink(*graph, ""), child(env ? env->Child() : GradEnv{}),
                                   b(sink, &child) {}
  StatusOr<OutputRef> Arg(DType dtype, const PartialShape& shape) {
    const int index = static_cast<int>(args.size());
    ASSIGN_OR_RETURN(const Node* a, graph->AddNode({.name = absl::StrCat("arg_", index), .op = "Arg",
                                                    .attrs = {{"index", int64_t{index}}, {"dtype", dtype}, {"shape", shape}}}));
    args.push_back(a);
    return OutputRef{a, 0};
  }
  StatusOr<FunctionRef> Finish(GradEnv* env, std::string name, std::vector<OutputRef> results) {
    if (env != nullptr && env->finish_body) return env->finish_body(std::move(name), std::move(graph), args, std::move(results));
    return MakeFunction(std::move(name), std::move(graph), args, std::move(results));
  }
  std::unique_ptr<Graph> graph;
  GraphSink sink;
  GradEnv child;
  GradBuilder b;
  std::vector<const Node*> args;
};

// Zeros shaped like variable `read` (a ReadVariableOp of some body), in `body`.
StatusOr<OutputRef> VariableZeros(NewBody& body, const Node& read) {
  ASSIGN_OR_RETURN(OutputRef r, body.b.Op("ReadVariableOp", {}, read.attrs()));
  return body.b.ZerosLike(r);
}

// Sum of `parts`, or nullopt.
StatusOr<std::optional<OutputRef>> SumParts(GradBuilder& b, const std::vector<OutputRef>& parts) {
  if (parts.empty()) return std::optional<OutputRef>();
  OutputRef sum = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    ASSIGN_OR_RETURN(sum, b.Add(sum, parts[i]));
  }
  return std::optional<OutputRef>(sum);
}

// Differentiates the copy of a body inside `body`: d(results . seeds)/d(sources), and
// the gradient of each source variable (reads inside, and nested bodies' deposits).
struct BodyGrads {
  std::vector<std::optional<OutputRef>> sources;
  std::vector<std::optional<OutputRef>> variables;  // in the order of `vars`
};
StatusOr<BodyGrads> DifferentiateBody(NewBody& body, const std::vector<OutputRef>& results,
                                      const std::vector<OutputRef>& seeds, const std::vector<OutputRef>& sources,
                                      const std::map<std::string, std::vector<OutputRef>>& reads,
                                      const std::map<std::string, const Node*>& vars) {
  GradientRequest request;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!IsFloating(TypeOf(results[i]).dtype)) continue;
    request.targets.push_back(results[i]);
    request.target_grads.push_back(seeds[i]);
  }
  request.sources = sources;
  std::vector<std::pair<size_t, size_t>> var_range;  // per var: [first, last) in request.sources
  for (const auto& [name, read] : vars) {
    const size_t first = request.sources.size();
    auto it = reads.find(name);
    if (it != reads.end()) request.sources.insert(request.sources.end(), it->second.begin(), it->second.end());
    var_range.emplace_back(first, request.sources.size());
  }
  ASSIGN_OR_RETURN(std::vector<std::optional<OutputRef>> grads, AddGradients(body.b, *body.graph, request));
  BodyGrads out;
  out.sources.assign(grads.begin(), grads.begin() + static_cast<long>(sources.size()));
  size_t k = 0;
  for (const auto& [name, read] : vars) {
    std::vector<OutputRef> parts;
    for (size_t i = var_range[k].first; i < var_range[k].second; ++i) {
      if (grads[i].has_value()) parts.push_back(*grads[i]);
    }
    auto nested = body.child.variable_grads.find(name);
    if (nested != body.child.variable_grads.end()) parts.insert(parts.end(), nested->second.begin(), nested->second.end());
    ASSIGN_OR_RETURN(std::optional<OutputRef> sum, SumParts(body.b, parts));
    out.variables.push_back(sum);
    ++k;
  }
  return out;
}

// ---- If ----

StatusOr<FunctionRef> BranchGrad(GradEnv* env, const Node& n, const Function& branch, Dy dy,
                                 const std::map<std::string, const Node*>& vars) {
  NewBody body(env);
  std::vector<OutputRef> args, seeds;
  for (size_t i = 1; i < n.inputs().size(); ++i) {
    ASSIGN_OR_RETURN(OutputRef a, body.Arg(TypeOf(n.inputs()[i]).dtype, branch.arg_type(static_cast<int>(i) - 1).shape));
    args.push_back(a);
  }
  for (const OutputRef& d : dy) {
    ASSIGN_OR_RETURN(OutputRef a, body.Arg(TypeOf(d).dtype, TypeOf(d).shape));
    seeds.push_back(a);
  }
  std::map<std::string, std::vector<OutputRef>> reads;
  ASSIGN_OR_RETURN(std::vector<OutputRef> results, InlineBody(body.b, body.sink, branch, args, &reads));
  ASSIGN_OR_RETURN(BodyGrads grads, DifferentiateBody(body, results, seeds, args, reads, vars));
  std::vector<OutputRef> outs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (grads.sources[i].has_value()) {
      outs.push_back(*grads.sources[i]);
    } else {
      ASSIGN_OR_RETURN(OutputRef z, body.b.ZerosLike(args[i]));
      outs.push_back(z);
    }
  }
  size_t k = 0;
  for (const auto& [name, read] : vars) {
    if (grads.variables[k].has_value()) {
      outs.push_back(*grads.variables[k]);
    } else {
      ASSIGN_OR_RETURN(OutputRef z, VariableZeros(body, *read));
      outs.push_back(z);
    }
    ++k;
  }
  return body.Finish(env, branch.name + "_grad", std::move(outs));
}

StatusOr<GradOut> IfGrad(GradBuilder& b, const Node& n, Dy dy) {
  GradEnv* env = b.env();
  ASSIGN_OR_RETURN(auto branches, PureBodies(env, n, "then_branch", "else_branch"));
  const auto& [then_fn, else_fn] = branches;
  const auto vars = SourceVariables(env, {then_fn, else_fn});
  ASSIGN_OR_RETURN(FunctionRef then_grad, BranchGrad(env, n, *then_fn, dy, vars));
  ASSIGN_OR_RETURN(FunctionRef else_grad, BranchGrad(env, n, *else_fn, dy, vars));
  std::vector<OutputRef> inputs = n.inputs();
  inputs.insert(inputs.end(), dy.begin(), dy.end());
  ASSIGN_OR_RETURN(const Node* g, b.NodeOf("If", inputs, {{"then_branch", then_grad}, {"else_branch", else_grad}}));
  GradOut out = {std::nullopt};
  const int nargs = static_cast<int>(n.inputs().size()) - 1;
  for (int i = 0; i < nargs; ++i) {
    out.push_back(IsFloating(TypeOf(n.inputs()[i + 1]).dtype) ? std::optional<OutputRef>(OutputRef{g, i}) : std::nullopt);
  }
  int k = nargs;
  for (const auto& [name, read] : vars) env->variable_grads[name].push_back({g, k++});
  return out;
}

// ---- While ----

// Loop variable i is invariant when the body returns its argument unchanged.
std::vector<bool> Invariants(const Function& body) {
  std::vector<bool> out;
  for (int i = 0; i < body.num_args(); ++i) out.push_back(body.results[i] == OutputRef{body.args[i], 0});
  return out;
}

StatusOr<OutputRef> Int32(GradBuilder& b, int32_t v) { return b.Op("Const", {}, {{"value", Tensor::Scalar<int32_t>(v)}}); }

// Loop variables the body uses only as a TensorArray's buffer to write to (and for its
// size): their gradients need only their row count, so the recording keeps that, not
// the buffer, which grows each iteration (a state of changing shape cannot be kept in
// one buffer). The backward body recomputes from zeros of that many rows.
std::vector<bool> RowsOnly(const Function& body, const std::vector<bool>& invariant) {
  std::vector<bool> out(body.num_args(), false);
  for (int v = 0; v < body.num_args(); ++v) {
    if (invariant[v]) continue;
    bool written = false, other = false;
    for (int id = 0; id < body.graph->num_nodes() && !other; ++id) {
      const Node& n = *body.graph->node(id);
      for (size_t k = 0; k < n.inputs().size(); ++k) {
        if (n.inputs()[k].node != body.args[v]) continue;
        if (n.op_name() == "TensorArrayWrite" && k == 0) {
          written = true;
        } else if (n.op_name() != "Shape") {
          other = true;
        }
      }
    }
    for (const OutputRef& r : body.results) other = other || (r.node == body.args[v]);
    out[v] = written && !other;
  }
  return out;
}

// Row count (dimension 0) of `t`, an int32 scalar.
StatusOr<OutputRef> Rows(GradBuilder& b, OutputRef t) {
  ASSIGN_OR_RETURN(OutputRef shape, b.Op("Shape", {t}, {{"out_type", DType::kInt32}}));
  ASSIGN_OR_RETURN(OutputRef zero, Int32(b, 0));
  return b.Op("GatherV2", {shape, zero}, {{"axis", int64_t{0}}});
}

// The forward loop once more: loop variables, then the iteration count, then one
// buffer per varying variable with the state each iteration started from.
struct Recorded {
  const Node* loop;
  std::vector<int> buffer_of;  // per loop variable: its output index in `loop`, or -1 (invariant)
  int count;                   // output index of the iteration count
};

StatusOr<Recorded> RecordingLoop(GradBuilder& b, GradEnv* env, const Node& n, const Function& cond,
                                 const Function& body, const std::vector<bool>& invariant,
                                 const std::vector<bool>& rows_only) {
  const int nv = body.num_args();
  Recorded rec;
  std::vector<TensorType> types;
  for (int i = 0; i < nv; ++i) types.push_back({TypeOf(n.inputs()[i]).dtype, body.arg_type(i).shape});
  // What is kept of variable i each iteration: the variable, or its row count.
  auto kept_type = [&](int i) {
    return rows_only[i] ? TensorType{DType::kInt32, PartialShape(std::vector<int64_t>{})} : types[i];
  };
  // A buffer is [iterations, state...] when the state's shape is known (starting as
  // [0, state...]); otherwise of unknown shape, starting as TensorArray's empty [0].
  auto buffer_shape = [&](int i) {
    std::vector<int64_t> dims = {kUnknownDim};
    const PartialShape s = kept_type(i).shape;
    if (!s.known_rank() || !s.fully_defined()) return PartialShape::UnknownRank();
    dims.insert(dims.end(), s.dims().begin(), s.dims().end());
    return PartialShape(dims);
  };
  // cond(vars, count, buffers) = cond(vars)
  NewBody c(env);
  std::vector<OutputRef> c_vars;
  for (int i = 0; i < nv; ++i) {
    ASSIGN_OR_RETURN(OutputRef a, c.Arg(types[i].dtype, types[i].shape));
    c_vars.push_back(a);
  }
  RETURN_IF_ERROR(c.Arg(DType::kInt32, PartialShape(std::vector<int64_t>{})).status());
  for (int i = 0; i < nv; ++i) {
    if (!invariant[i]) RETURN_IF_ERROR(c.Arg(kept_type(i).dtype, buffer_shape(i)).status());
  }
  ASSIGN_OR_RETURN(std::vector<OutputRef> c_out, InlineBody(c.b, c.sink, cond, c_vars, nullptr));
  ASSIGN_OR_RETURN(FunctionRef cond_fn, c.Finish(env, cond.name + "_record", c_out));
  // body(vars, count, buffers) = (body(vars), count + 1, buffers with vars written at count)
  NewBody w(env);
  std::vector<OutputRef> w_vars, w_bufs;
  for (int i = 0; i < nv; ++i) {
    ASSIGN_OR_RETURN(OutputRef a, w.Arg(types[i].dtype, types[i].shape));
    w_vars.push_back(a);
  }
  ASSIGN_OR_RETURN(OutputRef count, w.Arg(DType::kInt32, PartialShape(std::vector<int64_t>{})));
  for (int i = 0; i < nv; ++i) {
    if (invariant[i]) continue;
    ASSIGN_OR_RETURN(OutputRef a, w.Arg(kept_type(i).dtype, buffer_shape(i)));
    w_bufs.push_back(a);
  }
  ASSIGN_OR_RETURN(std::vector<OutputRef> w_out, InlineBody(w.b, w.sink, body, w_vars, nullptr));
  ASSIGN_OR_RETURN(OutputRef one, Int32(w.b, 1));
  ASSIGN_OR_RETURN(OutputRef next, w.b.Add(count, one));
  w_out.push_back(next);
  int k = 0;
  for (int i = 0; i < nv; ++i) {
    if (invariant[i]) continue;
    OutputRef kept = w_vars[i];
    if (rows_only[i]) {
      ASSIGN_OR_RETURN(kept, Rows(w.b, w_vars[i]));
    }
    ASSIGN_OR_RETURN(OutputRef written, w.b.Op("TensorArrayWrite", {w_bufs[k++], count, kept}));
    w_out.push_back(written);
  }
  ASSIGN_OR_RETURN(FunctionRef body_fn, w.Finish(env, body.name + "_record", w_out));
  // Inputs: the loop's own, a zero count, empty buffers.
  std::vector<OutputRef> inputs = n.inputs();
  ASSIGN_OR_RETURN(OutputRef zero, Int32(b, 0));
  inputs.push_back(zero);
  rec.count = nv;
  int out = nv + 1;
  for (int i = 0; i < nv; ++i) {
    if (invariant[i]) {
      rec.buffer_of.push_back(-1);
      continue;
    }
    const PartialShape bs = buffer_shape(i);
    std::vector<int64_t> empty_dims = bs.known_rank() ? bs.dims() : std::vector<int64_t>{kUnknownDim};
    empty_dims[0] = 0;
    ASSIGN_OR_RETURN(Tensor empty, Tensor::Allocate(kept_type(i).dtype, Shape(empty_dims)));
    ASSIGN_OR_RETURN(OutputRef e, b.Op("Const", {}, {{"value", empty}}));
    inputs.push_back(e);
    rec.buffer_of.push_back(out++);
  }
  ASSIGN_OR_RETURN(rec.loop, b.NodeOf("While", inputs, {{"cond", cond_fn}, {"body", body_fn}}));
  return rec;
}

StatusOr<GradOut> WhileGrad(GradBuilder& b, const Node& n, Dy dy) {
  GradEnv* env = b.env();
  ASSIGN_OR_RETURN(auto bodies, PureBodies(env, n, "cond", "body"));
  const auto& [cond, body] = bodies;
  const int nv = body->num_args();
  const std::vector<bool> invariant = Invariants(*body);
  const auto vars = SourceVariables(env, {body});
  const std::vector<bool> rows_only = RowsOnly(*body, invariant);
  ASSIGN_OR_RETURN(Recorded rec, RecordingLoop(b, env, n, *cond, *body, invariant, rows_only));

  // The backward loop's variables: [i, g (per float varying var), ginv (per float
  // invariant), gvar (per source variable), buffers, invariant values].
  std::vector<int> varying, inv_float, inv_all;
  for (int v = 0; v < nv; ++v) {
    const bool fl = IsFloating(TypeOf(n.inputs()[v]).dtype);
    if (!invariant[v] && fl) varying.push_back(v);
    if (invariant[v]) {
      inv_all.push_back(v);
      if (fl) inv_float.push_back(v);
    }
  }
  std::vector<int> buffered;
  for (int v = 0; v < nv; ++v) {
    if (!invariant[v]) buffered.push_back(v);
  }
  const PartialShape scalar(std::vector<int64_t>{});

  // cond: i > 0
  NewBody c(env);
  std::vector<TensorType> loop_types;
  auto add_type = [&](DType d, const PartialShape& s) { loop_types.push_back({d, s}); };
  add_type(DType::kInt32, scalar);
  for (int v : varying) add_type(TypeOf(n.inputs()[v]).dtype, body->arg_type(v).shape);
  for (int v : inv_float) add_type(TypeOf(n.inputs()[v]).dtype, body->arg_type(v).shape);
  for (const auto& [name, read] : vars) add_type(read->output(0).dtype, read->output(0).shape);
  for (int v : buffered) add_type(TypeOf(OutputRef{rec.loop, rec.buffer_of[v]}).dtype, TypeOf(OutputRef{rec.loop, rec.buffer_of[v]}).shape);
  for (int v : inv_all) add_type(TypeOf(n.inputs()[v]).dtype, body->arg_type(v).shape);
  std::vector<OutputRef> c_args;
  for (const TensorType& t : loop_types) {
    ASSIGN_OR_RETURN(OutputRef a, c.Arg(t.dtype, t.shape));
    c_args.push_back(a);
  }
  ASSIGN_OR_RETURN(OutputRef zero_c, Int32(c.b, 0));
  ASSIGN_OR_RETURN(OutputRef more, c.b.Op("Greater", {c_args[0], zero_c}));
  ASSIGN_OR_RETURN(FunctionRef cond_fn, c.Finish(env, body->name + "_grad_cond", {more}));

  // body: i -= 1; the state of iteration i; its gradient.
  NewBody w(env);
  std::vector<OutputRef> a;
  for (const TensorType& t : loop_types) {
    ASSIGN_OR_RETURN(OutputRef arg, w.Arg(t.dtype, t.shape));
    a.push_back(arg);
  }
  size_t pos = 0;
  const OutputRef i_arg = a[pos++];
  std::vector<OutputRef> g_arg(a.begin() + pos, a.begin() + pos + varying.size());
  pos += varying.size();
  std::vector<OutputRef> ginv_arg(a.begin() + pos, a.begin() + pos + inv_float.size());
  pos += inv_float.size();
  std::vector<OutputRef> gvar_arg(a.begin() + pos, a.begin() + pos + vars.size());
  pos += vars.size();
  std::vector<OutputRef> buf_arg(a.begin() + pos, a.begin() + pos + buffered.size());
  pos += buffered.size();
  std::vector<OutputRef> inv_arg(a.begin() + pos, a.end());
  ASSIGN_OR_RETURN(OutputRef one, Int32(w.b, 1));
  ASSIGN_OR_RETURN(OutputRef i_next, w.b.Sub(i_arg, one));
  std::vector<OutputRef> state(nv);
  for (size_t k = 0; k < buffered.size(); ++k) {
    const int v = buffered[k];
    ASSIGN_OR_RETURN(OutputRef row, w.b.Op("GatherV2", {buf_arg[k], i_next}, {{"axis", int64_t{0}}}));
    if (rows_only[v]) {  // zeros of the buffer's row count: what its writes' gradients need
      ASSIGN_OR_RETURN(OutputRef dims, w.b.Reshape(row, PartialShape(std::vector<int64_t>{1})));
      ASSIGN_OR_RETURN(OutputRef zero, w.b.Scalar(TypeOf(n.inputs()[v]).dtype, 0.0));
      ASSIGN_OR_RETURN(state[v], w.b.Op("DynamicFill", {dims, zero}));
      continue;
    }
    const PartialShape& s = body->arg_type(v).shape;
    if (s.known_rank() && s.fully_defined()) {
      ASSIGN_OR_RETURN(row, w.b.Reshape(row, s));
    }
    state[v] = row;
  }
  for (size_t k = 0; k < inv_all.size(); ++k) state[inv_all[k]] = inv_arg[k];
  std::map<std::string, std::vector<OutputRef>> reads;
  ASSIGN_OR_RETURN(std::vector<OutputRef> results, InlineBody(w.b, w.sink, *body, state, &reads));
  // Seeds: the varying float variables' gradients (others get zeros).
  std::vector<OutputRef> seeds(nv);
  std::vector<OutputRef> targets;
  std::vector<OutputRef> target_seeds;
  for (size_t k = 0; k < varying.size(); ++k) {
    targets.push_back(results[varying[k]]);
    target_seeds.push_back(g_arg[k]);
  }
  std::vector<OutputRef> sources;
  for (int v : varying) sources.push_back(state[v]);
  for (int v : inv_float) sources.push_back(state[v]);
  ASSIGN_OR_RETURN(BodyGrads grads, DifferentiateBody(w, targets, target_seeds, sources, reads, vars));
  std::vector<OutputRef> outs = {i_next};
  for (size_t k = 0; k < varying.size(); ++k) {
    if (grads.sources[k].has_value()) {
      outs.push_back(*grads.sources[k]);
    } else {
      ASSIGN_OR_RETURN(OutputRef z, w.b.ZerosLike(g_arg[k]));
      outs.push_back(z);
    }
  }
  for (size_t k = 0; k < inv_float.size(); ++k) {
    const auto& g = grads.sources[varying.size() + k];
    if (g.has_value()) {
      ASSIGN_OR_RETURN(OutputRef sum, w.b.Add(ginv_arg[k], *g));
      outs.push_back(sum);
    } else {
      outs.push_back(ginv_arg[k]);
    }
  }
  for (size_t k = 0; k < vars.size(); ++k) {
    if (grads.variables[k].has_value()) {
      ASSIGN_OR_RETURN(OutputRef sum, w.b.Add(gvar_arg[k], *grads.variables[k]));
      outs.push_back(sum);
    } else {
      outs.push_back(gvar_arg[k]);
    }
  }
  outs.insert(outs.end(), buf_arg.begin(), buf_arg.end());
  outs.insert(outs.end(), inv_arg.begin(), inv_arg.end());
  ASSIGN_OR_RETURN(FunctionRef body_fn, w.Finish(env, body->name + "_grad", outs));

  // Initial values: the count, dy of the varying variables, zeros, buffers, invariants.
  std::vector<OutputRef> inputs = {OutputRef{rec.loop, rec.count}};
  for (int v : varying) inputs.push_back(dy[v]);
  for (int v : inv_float) {
    ASSIGN_OR_RETURN(OutputRef z, b.ZerosLike(n.inputs()[v]));
    inputs.push_back(z);
  }
  for (const auto& [name, read] : vars) {
    ASSIGN_OR_RETURN(OutputRef r, b.Op("ReadVariableOp", {}, read->attrs()));
    ASSIGN_OR_RETURN(OutputRef z, b.ZerosLike(r));
    inputs.push_back(z);
  }
  for (int v : buffered) inputs.push_back({rec.loop, rec.buffer_of[v]});
  for (int v : inv_all) inputs.push_back(n.inputs()[v]);
  ASSIGN_OR_RETURN(const Node* back, b.NodeOf("While", inputs, {{"cond", cond_fn}, {"body", body_fn}}));

  GradOut out(nv);
  int o = 1;
  for (int v : varying) out[v] = OutputRef{back, o++};
  for (int v : inv_float) {
    // The invariant's own output passes dy straight through; the loop adds the rest.
    ASSIGN_OR_RETURN(OutputRef sum, b.Add(dy[v], OutputRef{back, o++}));
    out[v] = sum;
  }
  for (const auto& [name, read] : vars) env->variable_grads[name].push_back({back, o++});
  return out;
}

}  // namespace

void RegisterControlFlowGrads(GradRegistry& r) {
  r.Register("If", IfGrad);
  r.Register("While", WhileGrad);
}

}  // namespace graphd::compiler::autodiff
