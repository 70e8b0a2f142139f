// A client's session: its graph (extended incrementally, versioned), its variables,
// its callables, source modules and loaded graphs. What it compiles for a run
// signature (as TensorFlow's DirectSession caches executors by feeds/fetches/targets)
// lives in the server's function cache, keyed by the graph's content: sessions that
// built the same graph share the concrete functions.
//
// Thread safety: every method is safe from many threads. Runs on one session proceed
// concurrently; Extend excludes plan building but not plans already executing (the
// graph only grows, so their nodes stay valid).
#ifndef GRAPHD_SERVER_SESSION_H_
#define GRAPHD_SERVER_SESSION_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "compiler/import/function_library.h"
#include "core/cancellation.h"
#include "core/graph/graph.h"
#include "core/graph/node_def.h"
#include "core/variable_store.h"
#include "executor/device.h"
#include "executor/runtime/executor.h"
#include "executor/runtime/plan.h"
#include "server/compile_context.h"
#include "server/graph_functions.h"
#include "server/quick_run.h"
#include "core/fingerprint.h"
#include "server/source_modules.h"

namespace graphd::server {

struct RunSignature {
  std::vector<std::string> feeds;  // tensor names, in the order values are given
  std::vector<std::string> fetches;
  std::vector<std::string> targets;

  bool operator==(const RunSignature&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const RunSignature& s) {
    return H::combine(std::move(h), s.feeds, s.fetches, s.targets);
  }
};

struct RunTimings {
  int64_t compile_us = 0;  // pruning and plan building (0 on a cache hit)
  int64_t execute_us = 0;
};

struct RunResult {
  std::vector<Tensor> fetches;  // in signature order
  RunTimings timings;
  std::string stdout_text, stderr_text;  // printed by the run (tf.print)
};

class Session {
 public:
  using Clock = std::chrono::steady_clock;

  // What `compile` refers to must outlive the session.
  // `tenant`: who owns it ("" without tenants); only that tenant reaches it.
  Session(std::string handle, CompileContext compile, std::string tenant = "");

  const std::string& handle() const { return handle_; }
  const std::string& tenant() const { return tenant_; }
  // The device its functions are planned on (for a GPU session, the GPU device, which
  // places what it cannot run on the CPU).
  const executor::Device& device() const { return compile_.device; }
  // Nonzero when the session's concrete functions are its own (compile_context.h).
  uint64_t cache_owner() const { return compile_.owner; }

  // Adds `def` to the graph if `expected_version` is the current version (ABORTED
  // otherwise); all or nothing. Its library joins the session's functions, which
  // later extensions' nodes may name too. Returns the new version (unchanged for an
  // empty def).
  StatusOr<int64_t> Extend(const GraphDef& def, int64_t expected_version);
  int64_t graph_version() const;

  // Runs `sig` with `feeds` (one per sig.feeds). In a QuickScope (quick_run.h) only a
  // cached function that ran within the limit runs; otherwise NotQuick(), nothing done.
  // `trace` non-null: the run's steps are timed into it (RunOptions.trace).
  StatusOr<RunResult> Run(const RunSignature& sig, std::vector<Tensor> feeds,
                          const CancellationToken& token, executor::RunTrace* trace = nullptr);

  // Callables: a signature compiled once and named by a handle.
  StatusOr<int64_t> MakeCallable(RunSignature sig, const CancellationToken& token);
  StatusOr<RunResult> RunCallable(int64_t handle, std::vector<Tensor> feeds,
                                  const CancellationToken& token, executor::RunTrace* trace = nullptr);
  Status ReleaseCallable(int64_t handle);

  // The session's source modules (LoadModule / Call) and variables.
  SourceModules& source_modules() {
    Touch();
    return modules_;
  }
  // The session's loaded traced graphs (LoadGraph / CallGraph).
  GraphFunctions& graph_functions() {
    Touch();
    return graphs_;
  }
  VariableStore& variables() { return variables_; }

  // Marks the session used now (idle expiry counts from the last use).
  void Touch() { last_used_.store(Clock::now().time_since_epoch().count()); }
  // Set once the session is closed (CloseSession, expiry): calls still running in it
  // link their cancellation tokens to it (CancellationToken::CancelledWith) and stop.
  void MarkClosed() { closed_->store(true, std::memory_order_relaxed); }
  std::shared_ptr<const std::atomic<bool>> closed() const { return closed_; }
  Clock::time_point last_used() const {
    return Clock::time_point(Clock::duration(last_used_.load()));
  }

 private:
  using Compiled = compiler::CompiledFunction;
  // The concrete function for `sig`, compiling it on a miss (NotQuick instead in a
  // QuickScope). `compile_us` gets the time spent.
  StatusOr<std::shared_ptr<const Compiled>> GetPlan(const RunSignature& sig, int64_t* compile_us,
                                                    const CancellationToken& token);
  StatusOr<RunResult> Execute(const Compiled& compiled, std::vector<Tensor> feeds,
                              const CancellationToken& token, executor::RunTrace* trace);

  const std::string handle_;
  const CompileContext compile_;
  const std::string tenant_;
  VariableStore variables_;
  SourceModules modules_;
  GraphFunctions graphs_;
  std::atomic<Clock::rep> last_used_;
  const std::shared_ptr<std::atomic<bool>> closed_ = std::make_shared<std::atomic<bool>>(false);

  mutable absl::Mutex mu_;
  Graph graph_ ABSL_GUARDED_BY(mu_);
  compiler::FunctionLibrary functions_ ABSL_GUARDED_BY(mu_);
  size_t function_nodes_ ABSL_GUARDED_BY(mu_) = 0;  // counted against kMaxGraphNodes
  int64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  // The graph's content: every extension, in order (what run signatures are keyed on).
  Fingerprint graph_content_ ABSL_GUARDED_BY(mu_);
  Fingerprint run_content_ ABSL_GUARDED_BY(mu_);  // what run signatures' cache keys start from
  absl::flat_hash_map<int64_t, std::shared_ptr<const Compiled>> callables_ ABSL_GUARDED_BY(mu_);
  int64_t next_callable_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_SESSION_H_
