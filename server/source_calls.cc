// The call path of source functions: arguments to a signature, the signature to a
// cached concrete function (tracing and planning it on a miss), then its plan run.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/passes/prune.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/signature.h"
#include "compiler/tracer/tensor_value.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/tracer.h"
#include "core/graph/dot.h"
#include "executor/runtime/executor.h"
#include "server/source_modules.h"

namespace graphd::server {
namespace {

using compiler::tracer::OutputSlot;
using compiler::tracer::TensorObj;
using K = Value::Kind;

int64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

// Splits call arguments into the trace's view (tensors as TensorSpecs), the feeds,
// and the signature text that keys the cache.
struct Prepared {
  compiler::tracer::TraceArgs trace;
  std::vector<Tensor> feeds;
  std::string signature;
};

Value Prepare(const Value& v, Prepared& p, std::vector<std::string>& sig) {
  if (v.is(K::kTensor) && !v.as_tensor()->symbolic()) {
    const Tensor& t = *v.as_tensor()->value;
    p.feeds.push_back(t);
    sig.push_back(absl::StrCat(DTypeName(t.dtype()), t.shape().ToString()));
    return Value::Obj(std::make_shared<compiler::tracer::TensorSpecObj>(PartialShape(t.shape()), t.dtype(), ""));
  }
  sig.push_back(v.TypeName() + ":" + compiler::tracer::PyRepr(v));
  return v;
}

Value Fill(const Value& v, const std::vector<Tensor>& results) {
  if (auto slot = v.object_as<OutputSlot>()) {
    auto t = std::make_shared<TensorObj>();
    const Tensor& r = results[slot->index];
    t->dtype = r.dtype();
    t->shape = PartialShape(r.shape());
    t->value = r;
    return Value::Tensor(std::move(t));
  }
  if (v.is(K::kTuple) || v.is(K::kList)) {
    std::vector<Value> items;
    for (const Value& e : v.is(K::kTuple) ? v.as_tuple() : v.as_list()->items) items.push_back(Fill(e, results));
    return v.is(K::kTuple) ? Value::Tuple(std::move(items)) : Value::List(std::move(items));
  }
  if (v.is(K::kDict)) {
    Value out = Value::NewDict();
    for (const auto& [k, e] : v.as_dict()->items) out.as_dict()->items.emplace_back(k, Fill(e, results));
    return out;
  }
  return v;
}

// Checks call arguments against an input_signature (Python numbers become tensors of
// the spec's dtype); ValueError as TensorFlow words it when they do not fit.
StatusOr<std::vector<Value>> MatchSignature(const std::vector<Value>& specs, std::vector<Value> args,
                                            const std::vector<std::pair<std::string, Value>>& kwargs) {
  auto incompatible = [&]() {
    std::vector<std::string> in, want;
    for (const Value& a : args) in.push_back(compiler::tracer::PyRepr(a));
    for (const Value& s : specs) want.push_back(compiler::tracer::PyRepr(s));
    return compiler::tracer::PyError("ValueError", "Python inputs incompatible with input_signature:\n  inputs: (" +
                                                       absl::StrJoin(in, ", ") + ")\n  input_signature: (" +
                                                       absl::StrJoin(want, ", ") + ")");
  };
  if (!kwargs.empty() || args.size() != specs.size()) return incompatible();
  for (size_t i = 0; i < args.size(); ++i) {
    auto spec = specs[i].object_as<compiler::tracer::TensorSpecObj>();
    if (!args[i].is(K::kTensor)) {
      auto t = compiler::tracer::PythonToTensor(args[i], spec->dtype);
      if (!t.ok()) return incompatible();
      auto obj = std::make_shared<TensorObj>();
      obj->dtype = t->dtype();
      obj->shape = PartialShape(t->shape());
      obj->value = *t;
      args[i] = Value::Tensor(obj);
    }
    const TensorObj& t = *args[i].as_tensor();
    if (t.dtype != spec->dtype || !t.value || !spec->shape.IsCompatibleWith(t.value->shape())) return incompatible();
  }
  return args;
}

}  // namespace

StatusOr<CallResult> SourceModules::Invoke(Module& module, const Value& fn, std::vector<Value> args,
                                           std::vector<std::pair<std::string, Value>> kwargs, VariableStore& variables,
                                           const CancellationToken& token, const std::vector<Value>& concrete,
                                           bool trace_only, int64_t quick_us) {
  if (quick_us > 0 && trace_only) return NotQuick();
  const compiler::tracer::FunctionInfo info = compiler::tracer::ModuleRuntime::Info(fn);
  const std::string& function = info.name;
  Prepared p;
  std::vector<std::string> sig;
  // The signature every call must match, if any (no copy: a cache hit stays cheap).
  const bool is_concrete = !concrete.empty();
  const std::vector<Value>* pinned =
      is_concrete ? &concrete : (info.input_signature ? &*info.input_signature : nullptr);
  if (pinned) {
    // One trace for every call the signature accepts: input_signature (ValueError on
    // a mismatch) or a concrete function (InvalidArgument).
    for (auto& [k, v] : kwargs) {  // keywords by parameter position
      auto it = std::find(info.params.begin(), info.params.end(), k);
      size_t i = it - info.params.begin();
      if (it == info.params.end() || i < args.size()) {
        return errors::InvalidArgument("unexpected keyword argument '" + k + "' for " + function);
      }
      if (args.size() <= i) args.resize(i + 1);
      args[i] = v;
    }
    kwargs.clear();
    if (!trace_only) {
      auto matched = MatchSignature(*pinned, std::move(args), {});
      if (!matched.ok() && is_concrete) {
        return errors::InvalidArgument(absl::StrCat("the concrete function ", function, " cannot take these arguments: ",
                                                    matched.status().message()));
      }
      ASSIGN_OR_RETURN(args, std::move(matched));
      for (const Value& a : args) p.feeds.push_back(*a.as_tensor()->value);
    }
    for (const Value& spec : *pinned) {
      p.trace.args.push_back(spec);
      sig.push_back(compiler::tracer::PyRepr(spec));
    }
    sig.insert(sig.begin(), is_concrete ? "concrete" : "input_signature");
    args.clear();
  }
  for (const Value& a : args) p.trace.args.push_back(Prepare(a, p, sig));
  for (const auto& [k, v] : kwargs) {
    std::vector<std::string> one;
    p.trace.kwargs.emplace_back(k, Prepare(v, p, one));
    sig.push_back(k + "=" + one[0]);
  }
  p.signature = "(" + absl::StrJoin(sig, ", ") + ")";

  CallResult result;
  std::shared_ptr<const Compiled> compiled;
  const bool reduce = info.reduce_retracing && pinned == nullptr;
  FunctionState* state;
  {
    absl::MutexLock lock(&mu_);
    state = &module.functions[info.key];  // std::map: the address stays valid
    compiled = Lookup(*state, p.signature, p.trace, reduce);
    result.tracing_count = state->tracing_count;
  }
  if (compiled == nullptr) {
    if (quick_us > 0) return NotQuick();  // tracing is never quick
    // One trace at a time per module (it runs the module's Python code); the cache
    // lock is free meanwhile. A call that waited here finds the trace it waited for.
    absl::MutexLock trace_lock(module.trace_mu.get());
    compiler::tracer::TraceArgs trace_args = p.trace;
    std::string key = p.signature;
    bool first;
    {
      absl::MutexLock lock(&mu_);
      compiled = Lookup(*state, p.signature, p.trace, reduce);
      // reduce_retracing: a shape miss traces the signature generalised against the
      // last trace, so every later shape of that kind reuses it.
      if (compiled == nullptr && reduce && !state->traces.empty()) {
        if (auto general = compiler::tracer::GeneralizeSignature(state->traces.back(), p.trace)) {
          trace_args = std::move(*general);
          key = compiler::tracer::SignatureText(trace_args);
        }
      }
      first = state->tracing_count == 0;
      result.tracing_count = state->tracing_count;
    }
    if (compiled == nullptr) {
      auto start = std::chrono::steady_clock::now();
      int traces = 0;
      auto fresh = Compile(module, fn, first, trace_args, token, &result.stdout_text, &traces);
      absl::MutexLock lock(&mu_);
      state->tracing_count += traces;  // a trace that succeeded counts even if planning failed
      result.tracing_count = state->tracing_count;
      RETURN_IF_ERROR(fresh.status());
      state->by_signature.emplace(key, *fresh);
      if (reduce) {
        state->traces.push_back(trace_args);
        state->generalized.emplace_back(std::move(trace_args), *fresh);
        if (key != p.signature) state->generalized_hits.emplace(p.signature, *fresh);
      }
      compiled = *std::move(fresh);
      result.compile_us = MicrosSince(start);
    }
  }
  if (trace_only) {
    result.concrete = &compiled->function;
    result.graph_dot = FunctionToDot(*compiled->function.function, function);
    result.trace_signature = p.trace;
    return result;
  }
  // A plan that ran within the limit has also run its variable initialisers.
  if (quick_us > 0 && !compiled->cost.Within(quick_us)) return NotQuick();
  auto start = std::chrono::steady_clock::now();
  OutputSink printed;
  executor::RunContext ctx{.variables = &variables, .cancellation = &token, .output = &printed};
  if (compiled->init_plan != nullptr) {
    absl::MutexLock lock(&compiled->init_mu);
    if (!compiled->initialized) {
      RETURN_IF_ERROR(executor::Execute(*compiled->init_plan, p.feeds, ctx).status());
      compiled->initialized = true;
    }
  }
  auto outputs_or = executor::Execute(*compiled->plan, std::move(p.feeds), ctx);
  result.execute_us = MicrosSince(start);
  result.stdout_text += printed.TakeStdout();
  result.stderr_text = printed.TakeStderr();
  if (!outputs_or.ok()) return outputs_or.status();
  compiled->cost.Record(result.execute_us);
  std::vector<Tensor>& outputs = *outputs_or;
  result.output = Fill(compiled->function.output_template, outputs);
  return result;
}

std::shared_ptr<const SourceModules::Compiled> SourceModules::Lookup(FunctionState& state,
                                                                    const std::string& signature,
                                                                    const compiler::tracer::TraceArgs& call,
                                                                    bool reduce) {
  if (auto it = state.by_signature.find(signature); it != state.by_signature.end()) return it->second;
  if (auto it = state.generalized_hits.find(signature); it != state.generalized_hits.end()) return it->second;
  return reduce ? FindGeneralized(state, call, signature) : nullptr;
}

std::shared_ptr<const SourceModules::Compiled> SourceModules::FindGeneralized(
    FunctionState& state, const compiler::tracer::TraceArgs& call, const std::string& signature) {
  for (const auto& [args, compiled] : state.generalized) {
    if (compiler::tracer::SignatureAccepts(args, call)) {
      state.generalized_hits.emplace(signature, compiled);
      return compiled;
    }
  }
  return nullptr;
}

StatusOr<std::shared_ptr<SourceModules::Compiled>> SourceModules::Compile(
    Module& module, const Value& function, bool first, const compiler::tracer::TraceArgs& args,
    const CancellationToken& token, std::string* trace_stdout, int* traces) {
  ASSIGN_OR_RETURN(compiler::tracer::ConcreteFunction cf, module.runtime->Trace(function, args, &token, first));
  ++*traces;
  *trace_stdout += cf.trace_stdout;
  auto compiled = std::make_shared<Compiled>();
  // Variables created by this trace: their initialisers become the init plan.
  std::vector<std::string> inits;
  const Graph& graph = *cf.function->graph;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node* n = graph.node(id);
    auto once = n->attrs().find("only_if_uninitialized");
    if (n->op_name() == "AssignVariableOp" && once != n->attrs().end() && std::get<bool>(once->second)) {
      inits.push_back(n->name());
    }
  }
  if (!inits.empty()) {
    std::vector<std::string> feeds;
    for (const Node* arg : cf.function->args) feeds.push_back(arg->name() + ":0");
    ASSIGN_OR_RETURN(ExecutionSpec init_spec, compiler::Prune(graph, feeds, {}, inits));
    ASSIGN_OR_RETURN(compiled->init_plan, executor::Plan::Build(init_spec, device_));
    compiled->function = std::move(cf);  // keeps the first trace's graph alive
    ASSIGN_OR_RETURN(cf, module.runtime->Trace(function, args, &token, /*allow_variable_creation=*/false));
    *trace_stdout += cf.trace_stdout;
  }
  ASSIGN_OR_RETURN(compiled->plan, executor::Plan::Build(SpecForFunction(*cf.function), device_));
  compiled->first_trace = std::move(compiled->function);
  compiled->function = std::move(cf);
  return compiled;
}

}  // namespace graphd::server
