#include "server/graph_functions.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "executor/runtime/executor.h"

namespace graphd::server {
namespace {

using compiler::GraphProgram;

// Bound on the graphs one session may hold.
constexpr size_t kMaxGraphs = 256;

int64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

StatusOr<LoadedGraph> GraphFunctions::LoadOnnx(const std::string& name, const compiler::OnnxBytes& model,
                                               bool reduce_retracing, const CancellationToken* token) {
  ASSIGN_OR_RETURN(auto program, GraphProgram::LoadOnnx(compile_.cache, model, &evaluator_, token, compile_.owner));
  const std::string& graph_name = program->graph_name();
  return Register(!name.empty() ? name : !graph_name.empty() ? graph_name : "onnx_model", std::move(program),
                  reduce_retracing);
}

StatusOr<LoadedGraph> GraphFunctions::LoadGraphDef(const std::string& name, const GraphDef& def,
                                                   const std::vector<std::string>& inputs,
                                                   const std::vector<std::string>& outputs, bool reduce_retracing) {
  const std::string graph_name = name.empty() ? "graph" : name;
  ASSIGN_OR_RETURN(auto program, GraphProgram::FromGraphDef(def, graph_name, inputs, outputs));
  return Register(graph_name, std::move(program), reduce_retracing);
}

StatusOr<LoadedGraph> GraphFunctions::Register(const std::string& name, std::shared_ptr<const GraphProgram> program,
                                               bool reduce_retracing) {
  LoadedGraph loaded{name, program->inputs(), program->outputs(), program->opset()};
  auto entry = std::make_shared<Entry>();
  entry->content = compile_.Content(Fingerprinter(program->content()).Add(name));
  entry->reduce_retracing = reduce_retracing;
  entry->program = std::move(program);
  absl::MutexLock lock(&mu_);
  if (graphs_.size() >= kMaxGraphs && !graphs_.contains(name)) {
    return errors::ResourceExhausted(absl::StrCat("a session holds at most ", kMaxGraphs,
                                                  " graphs; load under an existing name to replace one"));
  }
  graphs_[name] = std::move(entry);
  return loaded;
}

StatusOr<std::shared_ptr<const GraphFunctions::Compiled>> GraphFunctions::Lookup(
    const std::string& name, const std::vector<GraphValue>& inputs, const CancellationToken& token,
    GraphCallResult& result, std::shared_ptr<const GraphProgram>* program) {
  std::shared_ptr<Entry> entry;
  {
    absl::MutexLock lock(&mu_);
    auto it = graphs_.find(name);
    if (it == graphs_.end()) {
      return errors::NotFound(absl::StrCat("no graph named '", name, "' is loaded in this session"));
    }
    entry = it->second;  // immutable but for `used`, which needs the lock
  }
  *program = entry->program;
  compiler::SignatureKey key;
  std::vector<Tensor> values;
  RETURN_IF_ERROR(entry->program->CallKey(name, inputs, key, values));
  std::shared_ptr<const Compiled> compiled = compile_.cache.Lookup(entry->content, key.bytes());
  // reduce_retracing: a generalised build this session made that fits the call, and
  // otherwise a build generalised against the latest one.
  compiler::SignatureKey general;
  if (compiled == nullptr && entry->reduce_retracing) {
    absl::MutexLock lock(&mu_);
    compiled = entry->used.FindAccepting(key, compile_.cache, &general);
    if (compiled == nullptr) general = entry->used.Generalized(key);
  }
  const compiler::SignatureKey& build_key = general.empty() ? key : general;
  RETURN_IF_ERROR(CheckQuick(compiled.get()));
  if (compiled == nullptr) {
    bool built = false;
    ASSIGN_OR_RETURN(compiled, compile_.GetOrCompile(entry->content, build_key.bytes(), [&]() {
      return entry->program->Compile(name, build_key, values, &evaluator_, compile_.target);
    }, &built, token));
    if (built) result.compile_us = compiled->compile_us;
  }
  absl::MutexLock lock(&mu_);
  const UsedSignatures::Item* known = entry->used.Find(build_key.bytes());
  if (known == nullptr || known->function.lock() != compiled) {
    entry->used.Record(entry->content, build_key, compiled);
    result.first_use = true;
  }
  return compiled;
}

StatusOr<GraphCallResult> GraphFunctions::Call(const std::string& name, std::vector<GraphValue> inputs,
                                               VariableStore& variables, const CancellationToken& token,
                                               executor::RunTrace* trace) {
  GraphCallResult result;
  std::shared_ptr<const GraphProgram> program;  // the one `compiled` was built from
  ASSIGN_OR_RETURN(auto compiled, Lookup(name, inputs, token, result, &program));
  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::vector<Tensor> args, program->FlattenInputs(std::move(inputs)));
  executor::RunContext ctx{.variables = &variables, .cancellation = &token, .trace = trace};
  ASSIGN_OR_RETURN(std::vector<Tensor> results, executor::Execute(PlanOf(*compiled->plan), std::move(args), ctx));
  ASSIGN_OR_RETURN(result.outputs, program->UnflattenOutputs(std::move(results)));
  result.execute_us = MicrosSince(start);
  compiled->cost.Record(result.execute_us);
  return result;
}

bool GraphFunctions::Contains(const std::string& name) {
  absl::MutexLock lock(&mu_);
  return graphs_.contains(name);
}

StatusOr<GraphFunctions::Description> GraphFunctions::Describe(const std::string& name, bool with_graphs) {
  absl::MutexLock lock(&mu_);
  auto it = graphs_.find(name);
  if (it == graphs_.end()) {
    return errors::NotFound(absl::StrCat("no graph named '", name, "' is loaded in this session"));
  }
  const Entry& entry = *it->second;
  Description d;
  entry.used.ForEach([&](const UsedSignatures::Item& item) {
    auto compiled = item.function.lock();
    if (compiled == nullptr) return;  // evicted from the cache since
    d.signatures.push_back(compiled->signature);
    d.placements.push_back(PlanOf(*compiled->plan).Placement());
    if (with_graphs) d.functions.push_back(compiled->function);
  });
  if (d.signatures.empty() && with_graphs) {
    // Not callable at its declared shapes (unknown dims, shapes from values): nothing to show.
    auto declared = entry.program->Declared(name, &evaluator_, compile_.target.passes);
    if (declared.ok()) {
      d.signatures.push_back(entry.program->DeclaredSignature());
      d.placements.emplace_back();
      d.functions.push_back(*std::move(declared));
    }
  }
  return d;
}

}  // namespace graphd::server
