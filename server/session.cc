#include "server/session.h"

#include "compiler/cache/signature_key.h"
#include "compiler/import/graphdef_fingerprint.h"
#include "compiler/import/graphdef_import.h"
#include "compiler/passes/prune.h"
#include "core/output_sink.h"
#include "executor/runtime/executor.h"

namespace graphd::server {
namespace {

// Bounds on what one client can make a session hold.
constexpr int kMaxGraphNodes = 1 << 20;
constexpr size_t kMaxCallables = 4096;

int64_t MicrosSince(Session::Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Session::Clock::now() - start)
      .count();
}

}  // namespace

Session::Session(std::string handle, CompileContext compile, std::string tenant)
    : handle_(std::move(handle)), compile_(compile), tenant_(std::move(tenant)), modules_(compile), graphs_(compile) {
  run_content_ = compile_.Content(Fingerprinter(graph_content_).Add("tf1-run"));
  Touch();
}

int64_t Session::graph_version() const {
  absl::MutexLock lock(&mu_);
  return version_;
}

StatusOr<int64_t> Session::Extend(const GraphDef& def, int64_t expected_version) {
  absl::MutexLock lock(&mu_);
  if (expected_version != version_) {
    return errors::Aborted(absl::StrCat("the session's graph is at version ", version_,
                                        " but the request expected version ", expected_version,
                                        " (another client extended it?)"));
  }
  if (def.nodes.empty() && def.library.empty()) return version_;
  size_t added = def.nodes.size();
  for (const FunctionDef& f : def.library) added += f.nodes.size() + f.arg_names.size();
  if (graph_.num_nodes() + function_nodes_ + added > static_cast<size_t>(kMaxGraphNodes)) {
    return errors::ResourceExhausted(absl::StrCat(
        "a session's graph (with its functions) holds at most ", kMaxGraphNodes,
        " nodes; this one has ", graph_.num_nodes() + function_nodes_, " and the request adds ",
        added));
  }
  RETURN_IF_ERROR(compiler::ImportGraphDef(def, graph_, &functions_));
  function_nodes_ += added - def.nodes.size();
  Fingerprinter content(graph_content_);
  compiler::AddGraphDef(content, def);
  graph_content_ = content.Finish();
  run_content_ = compile_.Content(Fingerprinter(graph_content_).Add("tf1-run"));
  return ++version_;
}

StatusOr<std::shared_ptr<const Session::Compiled>> Session::GetPlan(const RunSignature& sig,
                                                                    int64_t* compile_us,
                                                                    const CancellationToken& token) {
  // Readers: runs compile concurrently; Extend waits for them.
  absl::ReaderMutexLock lock(&mu_);
  thread_local compiler::SignatureKey key;  // reused: no allocation once grown
  key.Clear();
  for (const auto* names : {&sig.feeds, &sig.fetches, &sig.targets}) {
    key.OpenContainer(compiler::SignatureKey::kList, static_cast<uint32_t>(names->size()));
    for (const std::string& name : *names) key.AddStr(name);
  }
  const Fingerprint content = run_content_;
  *compile_us = 0;
  auto hit = compile_.cache.Lookup(content, key.bytes());
  RETURN_IF_ERROR(CheckQuick(hit.get()));
  if (hit != nullptr) return hit;
  bool compiled = false;
  ASSIGN_OR_RETURN(auto function, compile_.GetOrCompile(content, key.bytes(), [&]() -> StatusOr<std::shared_ptr<Compiled>> {
    mu_.AssertReaderHeld();  // the compile runs on this thread, under the lock above
    ASSIGN_OR_RETURN(ExecutionSpec spec, compiler::Prune(graph_, sig.feeds, sig.fetches, sig.targets));
    return compiler::CompileSpec(spec, "run", compile_.target);
  }, &compiled, token));
  if (compiled) *compile_us = function->compile_us;
  return function;
}

StatusOr<RunResult> Session::Execute(const Compiled& compiled, std::vector<Tensor> feeds,
                                     const CancellationToken& token, executor::RunTrace* trace) {
  auto start = Clock::now();
  OutputSink printed;
  executor::RunContext ctx{.variables = &variables_, .cancellation = &token, .output = &printed, .trace = trace};
  ASSIGN_OR_RETURN(std::vector<Tensor> fetched, executor::Execute(PlanOf(*compiled.plan), std::move(feeds), ctx));
  RunResult result{.fetches = std::move(fetched),
                   .stdout_text = printed.TakeStdout(),
                   .stderr_text = printed.TakeStderr()};
  result.timings.execute_us = MicrosSince(start);
  compiled.cost.Record(result.timings.execute_us);
  return result;
}

StatusOr<RunResult> Session::Run(const RunSignature& sig, std::vector<Tensor> feeds,
                                 const CancellationToken& token, executor::RunTrace* trace) {
  Touch();
  if (feeds.size() != sig.feeds.size()) {
    return errors::InvalidArgument(absl::StrCat(sig.feeds.size(), " feed names but ",
                                                feeds.size(), " feed values"));
  }
  int64_t compile_us = 0;
  ASSIGN_OR_RETURN(auto compiled, GetPlan(sig, &compile_us, token));
  ASSIGN_OR_RETURN(RunResult result, Execute(*compiled, std::move(feeds), token, trace));
  result.timings.compile_us = compile_us;
  Touch();  // a long run counts as use until it ends
  return result;
}

StatusOr<int64_t> Session::MakeCallable(RunSignature sig, const CancellationToken& token) {
  Touch();
  int64_t compile_us = 0;
  ASSIGN_OR_RETURN(auto compiled, GetPlan(sig, &compile_us, token));
  absl::MutexLock lock(&mu_);
  if (callables_.size() >= kMaxCallables) {
    return errors::ResourceExhausted(absl::StrCat("session ", handle_, " already holds ", kMaxCallables,
                                                  " callables; release some first"));
  }
  int64_t handle = next_callable_++;
  callables_.emplace(handle, std::move(compiled));
  return handle;
}

StatusOr<RunResult> Session::RunCallable(int64_t handle, std::vector<Tensor> feeds,
                                         const CancellationToken& token, executor::RunTrace* trace) {
  Touch();
  std::shared_ptr<const Compiled> compiled;
  {
    absl::MutexLock lock(&mu_);
    auto it = callables_.find(handle);
    if (it == callables_.end()) {
      return errors::InvalidArgument(
          absl::StrCat("callable ", handle, " does not exist in session ", handle_,
                       " (released, or never made)"));
    }
    compiled = it->second;
  }
  RETURN_IF_ERROR(CheckQuick(compiled.get()));
  auto result = Execute(*compiled, std::move(feeds), token, trace);
  Touch();
  return result;
}

Status Session::ReleaseCallable(int64_t handle) {
  Touch();
  absl::MutexLock lock(&mu_);
  if (callables_.erase(handle) == 0) {
    return errors::InvalidArgument(
        absl::StrCat("callable ", handle, " does not exist in session ", handle_));
  }
  return absl::OkStatus();
}

}  // namespace graphd::server
