// A session's loaded source modules and their functions: each (function, input
// signature) is traced once into a concrete function and planned once, in the
// server's function cache (the tf.function cache); later calls with the same
// signature only run the plan. A call's signature is a structured key built without
// allocating (compiler/cache/signature_key.h), so a cache hit builds no strings.
// Thread-safe. Tracing runs the module's Python code, so a module traces one function
// at a time (its trace lock); the session's lock is held only to look up and to
// record, never while tracing, so cache hits, runs and other modules' traces go on
// while a function traces, and calls that miss on the signature being traced wait
// for that trace instead of tracing it again.
#ifndef GRAPHD_SERVER_SOURCE_MODULES_H_
#define GRAPHD_SERVER_SOURCE_MODULES_H_

#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "compiler/passes/pipeline.h"
#include "compiler/tracer/module.h"
#include "core/variable_store.h"
#include "executor/runtime/executor.h"
#include "executor/runtime/plan.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/cache/signature_key.h"
#include "server/compile_context.h"
#include "server/quick_run.h"
#include "server/used_signatures.h"

namespace graphd::server {

using compiler::tracer::Value;

struct CallResult {
  Value output;             // the function's result, tensors as eager values
  std::string stdout_text;  // trace-time prints (when this call traced), then the run's
  std::string stderr_text;  // the run's tf.print output
  int64_t tracing_count = 0;
  int64_t compile_us = 0;
  int64_t execute_us = 0;
  // trace_only calls: the concrete function, the arguments it was traced for, and
  // its graph as Graphviz DOT.
  const compiler::tracer::ConcreteFunction* concrete = nullptr;  // lives as long as `compiled`
  std::shared_ptr<const compiler::CompiledFunction> compiled;
  compiler::tracer::TraceArgs trace_signature;
  std::string graph_dot;
};

class SourceModules {
 public:
  // What `compile` refers to must outlive this. Its target's passes run on every
  // traced body.
  explicit SourceModules(CompileContext compile) : compile_(compile) {}

  struct Loaded {
    int64_t module_id;
    std::vector<std::string> functions;
    std::string stdout_text;
    std::string stderr_text;  // tf.print at module level
  };
  // Runs the module's top-level code (eagerly, against `variables`).
  StatusOr<Loaded> Load(const std::string& source, const std::string& filename, VariableStore& variables,
                        const CancellationToken& token);

  // Arguments: Python values; tensors as eager tensor values.
  // `concrete`: a concrete function's signature (TensorSpecObj values), or empty.
  // `trace_only`: trace when needed but do not run.
  // In a QuickScope (quick_run.h): run only a cached concrete function that ran within
  // the limit; otherwise return NotQuick() without tracing or running anything.
  // `run_trace` non-null: the run's steps are timed into it (RunOptions.trace).
  StatusOr<CallResult> Call(int64_t module_id, const std::string& function, std::vector<Value> args,
                            std::vector<std::pair<std::string, Value>> kwargs, VariableStore& variables,
                            const CancellationToken& token, const std::vector<Value>& concrete = {},
                            bool trace_only = false, executor::RunTrace* run_trace = nullptr);
  StatusOr<std::string> ToCode(int64_t module_id, const std::string& function);
  // What a caller needs to call `function` of module `module_id` without tracing it:
  // its input_signature (TensorSpecObj values; none without one) and its positional
  // parameter names. NotFound for an unknown module or function.
  struct Signature {
    std::optional<std::vector<Value>> input_signature;
    std::vector<std::string> params;
  };
  StatusOr<Signature> SignatureOf(int64_t module_id, const std::string& function);
  struct Description {
    int64_t tracing_count = 0;
    std::vector<std::string> signatures;
    std::vector<FunctionRef> functions;  // with `with_graphs`: one per signature
    // Per signature: where its plan runs each node.
    std::vector<executor::PlacementSummary> placements;
  };
  // NotFound when no module (module_id 0: the latest) defines `function`.
  StatusOr<Description> Describe(int64_t module_id, const std::string& function, bool with_graphs = false);

 private:
  using Compiled = compiler::CompiledFunction;
  struct FunctionState {
    // Traces this session made or took from the cache, as a tf.function counts them.
    int64_t tracing_count = 0;
    UsedSignatures traces;  // by signature key
    // Concrete functions whose variable initialisers ran in this session.
    absl::flat_hash_set<uint64_t> initialized;
  };
  // A trace another session ran that this module took from the cache instead of
  // running it: run again (results dropped) before this module's next own trace, so
  // that its Python state is what that trace left.
  struct Replay {
    Value fn;
    compiler::tracer::TraceArgs args;
    bool first;   // allowed to create variables
    bool twice;   // it did (a second trace, where creating them is an error, followed)
  };
  struct Module {
    std::unique_ptr<compiler::tracer::ModuleRuntime> runtime;
    // The functions the module defined when it was loaded, by name (looked up without
    // touching `runtime`, which a trace may be changing).
    std::map<std::string, Value> by_name;
    // Held while the module's Python code runs for a trace (and for ToCode).
    std::unique_ptr<absl::Mutex> trace_mu = std::make_unique<absl::Mutex>();
    // What the module's Python state follows from (guarded by mu_): its source and
    // load, then every trace it ran or took, in order. A trace's cache key starts from
    // the history it ran at, so sessions share a trace only when their modules were in
    // the same state.
    Fingerprint history;
    std::vector<Replay> pending;  // guarded by mu_
    // True while Load runs its top-level code (only Load's thread uses it then).
    bool loading = false;
    // By function identity (FunctionInfo::serial, never reused in the module): every
    // name bound to a function, and calls from the module's own top-level code, share
    // one record.
    std::map<int64_t, FunctionState> functions;
  };
  // Calls function value `fn` of `module` (see Call): the signature, the cache, the run.
  StatusOr<CallResult> Invoke(Module& module, const Value& fn, std::vector<Value> args,
                              std::vector<std::pair<std::string, Value>> kwargs, VariableStore& variables,
                              const CancellationToken& token, const std::vector<Value>& concrete = {},
                              bool trace_only = false, executor::RunTrace* run_trace = nullptr);
  // Runs the module's pending replays. Called with its trace lock.
  Status CatchUp(Module& module, const CancellationToken& token);
  // The miss path of Invoke: under the module's trace lock, the trace for `key`
  // (`trace_key` when reduce_retracing generalised it) from the cache or traced now.
  StatusOr<std::shared_ptr<const Compiled>> TraceOrTake(Module& module, const Value& fn, FunctionState& state,
                                                        const compiler::SignatureKey& key,
                                                        compiler::SignatureKey trace_key, bool reduce,
                                                        const compiler::tracer::TraceArgs& trace_args,
                                                        std::string readable, const CancellationToken& token,
                                                        CallResult& result);
  StatusOr<Module*> Find(int64_t module_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `module`'s function `name`: from the names bound at load, else (a name bound by
  // later tracing) from the runtime under the trace lock.
  // `name`'s function; for a method or a callable object (ModuleRuntime::ResolveCallable)
  // `*self` (when not null) is set to the instance it is bound to.
  StatusOr<Value> FunctionNamed(Module& module, const std::string& name, std::optional<Value>* self = nullptr);

  const CompileContext compile_;
  absl::Mutex mu_;
  std::map<int64_t, Module> modules_ ABSL_GUARDED_BY(mu_);
  // Loads of each (filename, source) so far: the n-th load of the same code is the
  // same in every session (its variables' names, its traces).
  absl::flat_hash_map<Fingerprint, int64_t> loads_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SOURCE_MODULES_H_
