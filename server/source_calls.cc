// The call path of source functions: arguments to a signature, the signature to a
// cached concrete function (tracing and planning it on a miss), then its plan run.
#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/cache/traced_function.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/repr.h"
#include "compiler/tracer/signature.h"
#include "compiler/tracer/tensor_value.h"
#include "compiler/tracer/tf_objects.h"
#include "compiler/tracer/tracer.h"
#include "core/graph/dot.h"
#include "executor/runtime/executor.h"
#include "compiler/cache/call_signature.h"
#include "server/source_modules.h"

namespace graphd::server {
namespace {

using compiler::tracer::OutputSlot;
using compiler::tracer::TensorObj;
using K = Value::Kind;

int64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

// The trace's view of an argument: a top-level eager tensor becomes a TensorSpec (and
// a feed), anything else is itself.
Value TraceArg(const Value& v, std::vector<Tensor>& feeds) {
  if (v.is(K::kTensor) && !v.as_tensor()->symbolic()) {
    const Tensor& t = *v.as_tensor()->value;
    feeds.push_back(t);
    return Value::Obj(std::make_shared<compiler::tracer::TensorSpecObj>(PartialShape(t.shape()), t.dtype(), ""));
  }
  return v;
}

// The feeds of a call: its top-level eager tensors, in order.
void AddFeed(const Value& v, std::vector<Tensor>& feeds) {
  if (v.is(K::kTensor) && !v.as_tensor()->symbolic()) feeds.push_back(*v.as_tensor()->value);
}

// `args` with the tensor specs' shapes replaced by `shapes`, in order (a generalised
// signature).
void Reshape(compiler::tracer::TraceArgs& args, const std::vector<PartialShape>& shapes) {
  size_t next = 0;
  auto reshape = [&](Value& v) {
    auto spec = v.object_as<compiler::tracer::TensorSpecObj>();
    if (spec == nullptr || next >= shapes.size()) return;
    v = Value::Obj(std::make_shared<compiler::tracer::TensorSpecObj>(shapes[next++], spec->dtype, spec->name));
  };
  for (Value& v : args.args) reshape(v);
  for (auto& [k, v] : args.kwargs) reshape(v);
}

// Traces a module took from the cache and has not replayed yet, at most.
constexpr size_t kMaxPendingReplays = 64;

// A history no other module has (after a trace or replay that failed partway).
Fingerprint Diverged(const Fingerprint& history) {
  static std::atomic<int64_t> count{0};
  return Fingerprinter(history).Add("diverged").AddInt(count.fetch_add(1)).Finish();
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
                                           bool trace_only, executor::RunTrace* run_trace) {
  if (trace_only) RETURN_IF_ERROR(CheckQuick(nullptr));  // tracing is never quick
  const compiler::tracer::FunctionInfo info = compiler::tracer::ModuleRuntime::Info(fn);
  std::vector<Tensor> feeds;
  // The key is built into this thread's reused buffer: no allocation once it has grown.
  thread_local compiler::SignatureKey key;
  key.Clear();
  // The signature every call must match, if any (no copy: a cache hit stays cheap).
  const bool is_concrete = !concrete.empty();
  const std::vector<Value>* pinned = is_concrete ? &concrete : info.input_signature;
  // A method's instance: not in its input_signature, but part of the key (the object
  // is part of the signature) and the trace's first argument.
  std::vector<Value> instance;
  if (pinned && !is_concrete && info.method && !args.empty() && args.size() + kwargs.size() == pinned->size() + 1 &&
      args[0].object_as<compiler::tracer::InstanceObj>() != nullptr) {
    instance.push_back(args[0]);
    args.erase(args.begin());
  }
  if (pinned) {
    // One trace for every call the signature accepts: input_signature (ValueError on
    // a mismatch) or a concrete function (InvalidArgument).
    if (!kwargs.empty()) {
      std::vector<std::string> params = compiler::tracer::ModuleRuntime::ParamNames(fn);
      if (!instance.empty() && !params.empty()) params.erase(params.begin());  // self
      for (auto& [k, v] : kwargs) {  // keywords by parameter position
        auto it = std::find(params.begin(), params.end(), k);
        size_t i = it - params.begin();
        if (it == params.end() || i < args.size()) {
          return errors::InvalidArgument(absl::StrCat("unexpected keyword argument '", k, "' for ", info.name));
        }
        if (args.size() <= i) args.resize(i + 1);
        args[i] = v;
      }
      kwargs.clear();
    }
    if (!trace_only) {
      auto matched = MatchSignature(*pinned, std::move(args), {});
      if (!matched.ok() && is_concrete) {
        return errors::InvalidArgument(absl::StrCat("the concrete function ", info.name,
                                                    " cannot take these arguments: ", matched.status().message()));
      }
      ASSIGN_OR_RETURN(args, std::move(matched));
      for (const Value& a : args) feeds.push_back(*a.as_tensor()->value);
    }
    if (!instance.empty()) RETURN_IF_ERROR(compiler::AddCallArgs(instance, {}, key));
    compiler::AddPinnedSignature(is_concrete ? "concrete" : "input_signature", *pinned, key);
    args.clear();
  } else {
    RETURN_IF_ERROR(compiler::AddCallArgs(args, kwargs, key));
    for (const Value& a : args) AddFeed(a, feeds);
    for (const auto& [k, v] : kwargs) AddFeed(v, feeds);
  }
  CallResult result;
  const bool reduce = info.reduce_retracing && pinned == nullptr;
  std::shared_ptr<const Compiled> compiled;
  FunctionState* state;
  compiler::SignatureKey trace_key;  // reduce_retracing: what a miss traces
  {
    absl::MutexLock lock(&mu_);
    state = &module.functions[info.serial];  // std::map: the address stays valid
    result.tracing_count = state->tracing_count;
    if (const UsedSignatures::Item* traced = state->traces.Find(key.bytes())) {
      compiled = compile_.cache.Lookup(traced->content, key.bytes());
      if (compiled == nullptr) compiled = traced->pinned;  // evicted from the cache: still this session's
    }
    if (compiled == nullptr && reduce) {
      compiled = state->traces.FindAccepting(key, compile_.cache, &trace_key);
      if (compiled == nullptr) trace_key = state->traces.Generalized(key);
    }
  }
  RETURN_IF_ERROR(CheckQuick(compiled.get()));
  if (compiled == nullptr) {
    compiler::tracer::TraceArgs trace_args;
    if (pinned) {
      trace_args.args = instance;
      trace_args.args.insert(trace_args.args.end(), pinned->begin(), pinned->end());
    } else {
      std::vector<Tensor> unused;
      for (const Value& a : args) trace_args.args.push_back(TraceArg(a, unused));
      for (const auto& [k, v] : kwargs) trace_args.kwargs.emplace_back(k, TraceArg(v, unused));
      if (!trace_key.empty() && trace_key.bytes() != key.bytes()) Reshape(trace_args, trace_key.TensorShapes());
    }
    if (trace_key.empty()) trace_key = key;
    // How DescribeFunction shows the signature.
    std::string readable = compiler::tracer::SignatureText(trace_args);
    if (pinned) {
      std::vector<std::string> parts = {is_concrete ? "concrete" : "input_signature"};
      for (const Value& spec : *pinned) parts.push_back(compiler::tracer::PyRepr(spec));
      readable = "(" + absl::StrJoin(parts, ", ") + ")";
    }
    ASSIGN_OR_RETURN(compiled, TraceOrTake(module, fn, *state, key, std::move(trace_key), reduce, trace_args,
                                           std::move(readable), token, result));
  }
  const compiler::TracedFunction& source = compiler::TracedOf(*compiled);
  if (trace_only) {
    result.concrete = &source.function;
    result.compiled = compiled;
    result.graph_dot = FunctionToDot(*compiled->function, info.name);
    for (const Value& a : args) result.trace_signature.args.push_back(TraceArg(a, feeds));
    for (const auto& [k, v] : kwargs) result.trace_signature.kwargs.emplace_back(k, TraceArg(v, feeds));
    if (pinned) result.trace_signature.args = *pinned;
    return result;
  }
  auto start = std::chrono::steady_clock::now();
  OutputSink printed;
  executor::RunContext ctx{.variables = &variables, .cancellation = &token, .output = &printed};
  if (compiled->init_plan != nullptr) {
    bool initialized;
    {
      absl::MutexLock lock(&mu_);
      initialized = state->initialized.contains(compiled->id);
    }
    if (!initialized) {  // idempotent: its assignments only fill uninitialised variables
      // Another session's run may have made the function quick; this session's first
      // run also initialises its variables, which is never quick.
      RETURN_IF_ERROR(CheckQuick(nullptr));
      RETURN_IF_ERROR(executor::Execute(PlanOf(*compiled->init_plan), feeds, ctx).status());
      absl::MutexLock lock(&mu_);
      state->initialized.insert(compiled->id);
    }
  }
  ctx.trace = run_trace;
  auto outputs_or = executor::Execute(PlanOf(*compiled->plan), std::move(feeds), ctx);
  result.execute_us = MicrosSince(start);
  result.stdout_text += printed.TakeStdout();
  result.stderr_text = printed.TakeStderr();
  if (!outputs_or.ok()) return outputs_or.status();
  compiled->cost.Record(result.execute_us);
  std::vector<Tensor>& outputs = *outputs_or;
  result.output = Fill(source.function.output_template, outputs);
  return result;
}

Status SourceModules::CatchUp(Module& module, const CancellationToken& token) {
  std::vector<Replay> pending;
  {
    absl::MutexLock lock(&mu_);
    pending.swap(module.pending);
  }
  for (const Replay& r : pending) {
    Status s = module.runtime->Trace(r.fn, r.args, &token, r.first).status();
    if (s.ok() && r.twice) s = module.runtime->Trace(r.fn, r.args, &token, false).status();
    if (!s.ok()) {
      // The module's state is now what no other session's is: share nothing more.
      absl::MutexLock lock(&mu_);
      module.history = Diverged(module.history);
      return s;
    }
  }
  return absl::OkStatus();
}

StatusOr<std::shared_ptr<const SourceModules::Compiled>> SourceModules::TraceOrTake(
    Module& module, const Value& fn, FunctionState& state, const compiler::SignatureKey& key,
    compiler::SignatureKey trace_key, bool reduce, const compiler::tracer::TraceArgs& trace_args,
    std::string readable, const CancellationToken& token, CallResult& result) {
  const compiler::tracer::FunctionInfo info = compiler::tracer::ModuleRuntime::Info(fn);
  // One trace at a time per module (it runs the module's Python code); the session
  // lock is free meanwhile. The key's content is the module's history now, which only
  // traces (holding this lock) and, while the module loads, its own eager ops change.
  absl::MutexLock trace_lock(module.trace_mu.get());
  Fingerprint content;
  bool first;
  {
    absl::MutexLock lock(&mu_);
    // A call that waited here may find the trace it waited for.
    if (const UsedSignatures::Item* traced = state.traces.Find(key.bytes())) {
      if (auto hit = compile_.cache.Lookup(traced->content, key.bytes())) return hit;
      if (traced->pinned != nullptr) return traced->pinned;
    }
    if (reduce) {
      compiler::SignatureKey general;
      if (auto hit = state.traces.FindAccepting(key, compile_.cache, &general)) return hit;
    }
    content = Fingerprinter(module.history).AddInt(info.serial).Finish();
    first = state.tracing_count == 0;
  }
  bool traced = false;
  int traces = 0;
  auto made = compile_.GetOrCompile(content, trace_key.bytes(), [&]() -> StatusOr<std::shared_ptr<Compiled>> {
    // This module's backlog failing is its own affair: another session waiting for
    // this key traces it itself.
    if (Status caught_up = CatchUp(module, token); !caught_up.ok()) return compiler::CallerSpecific(caught_up);
    ASSIGN_OR_RETURN(auto compiled,
                     compiler::CompileTrace(*module.runtime, fn, trace_args, first, token, compile_.target, &traces));
    compiled->signature = std::move(readable);
    return compiled;
  }, &traced, token);
  absl::ReleasableMutexLock lock(&mu_);
  if (traced) {
    // This module's Python state moved on. A failed trace (cancelled, out of time, an
    // exception) may have changed it partway: its state is its own from then on.
    module.history = made.ok() ? Fingerprinter(content).Add(trace_key.bytes()).Finish() : Diverged(content);
    state.tracing_count += traces;  // a trace that succeeded counts even if planning failed
  }
  result.tracing_count = state.tracing_count;
  RETURN_IF_ERROR(made.status());
  std::shared_ptr<const Compiled> compiled = *std::move(made);
  const compiler::TracedFunction& source = compiler::TracedOf(*compiled);
  if (!traced) {
    // Another session's trace, at the same history: this session sees it as its own
    // (the count, what print() wrote), and its module replays it before tracing next.
    module.history = Fingerprinter(content).Add(trace_key.bytes()).Finish();
    state.tracing_count += 1;
    result.tracing_count = state.tracing_count;
    module.pending.push_back(Replay{fn, trace_args, first, source.twice});
  }
  // A source function's traces stay this session's while it lives (tf.function never
  // forgets one): pinned, so the cache's eviction cannot make it trace again.
  state.traces.Record(content, trace_key, compiled, /*pin=*/true);
  result.compile_us = traced ? compiled->compile_us : 0;
  result.stdout_text = source.trace_stdout;
  // While the module's top-level code runs, what follows the call must see the state
  // the trace left; and the backlog stays short.
  const bool catch_up = !traced && (module.loading || module.pending.size() >= kMaxPendingReplays);
  lock.Release();
  if (catch_up) RETURN_IF_ERROR(CatchUp(module, token));
  return compiled;
}

}  // namespace graphd::server
