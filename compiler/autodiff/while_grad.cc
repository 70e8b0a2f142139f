// The gradient of While (as TensorFlow's while_v2, with the loop state as the
// checkpoint): a copy of the loop runs forward once more, counting iterations and
// writing the state each iteration starts from into a TensorArray buffer per varying
// loop variable; a second loop runs the count back down, reads the state of iteration
// i, recomputes the body from it and multiplies the loop variables' gradients by its
// Jacobian. Loop-invariant variables (captures) and variables read inside the body
// collect their gradients across iterations.
#include "compiler/autodiff/body_grad.h"

namespace graphd::compiler::autodiff {
namespace {

using Dy = const std::vector<OutputRef>&;

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

}  // namespace

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

}  // namespace graphd::compiler::autodiff
