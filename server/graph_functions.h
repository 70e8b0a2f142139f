// A session's loaded traced graphs (ONNX models and GraphDefs), called by name: the
// names, each graph's reduce_retracing choice and the concrete functions this session
// used. What a graph is and how it builds is compiler::GraphProgram's (shared by every
// session loading the same bytes); its concrete functions live in the server's
// function cache, keyed by the program's content, the name and the compile target.
//
// Thread safety: every method is safe from many threads. The session's lock is held
// only to look up and to record; builds run without it (concurrent first calls of one
// signature build once: the cache is single-flight).
#ifndef GRAPHD_SERVER_GRAPH_FUNCTIONS_H_
#define GRAPHD_SERVER_GRAPH_FUNCTIONS_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "compiler/cache/graph_program.h"
#include "core/cancellation.h"
#include "core/variable_store.h"
#include "executor/device.h"
#include "executor/runtime/executor.h"
#include "executor/runtime/plan.h"
#include "compiler/cache/signature_key.h"
#include "server/compile_context.h"
#include "server/constant_evaluator.h"
#include "server/used_signatures.h"
#include "server/quick_run.h"

namespace graphd::server {

struct LoadedGraph {
  std::string name;
  std::vector<compiler::onnx_import::ValueInfo> inputs;
  std::vector<compiler::onnx_import::ValueInfo> outputs;
  int64_t opset = 0;
};

struct GraphCallResult {
  std::vector<GraphValue> outputs;  // in graph-output order
  int64_t compile_us = 0;       // 0 on a cache hit
  bool first_use = false;       // the session's first call of this concrete function
  int64_t execute_us = 0;
};

class GraphFunctions {
 public:
  // What `compile` refers to must outlive this.
  explicit GraphFunctions(CompileContext compile) : compile_(compile), evaluator_(compile.device) {}

  // Parses and validates `model_bytes` and registers it as `name` ("" = the graph's
  // name, or "onnx_model"), replacing a graph of that name. On error nothing changes.
  // ResourceExhausted past 256 graphs in the session.
  // With `reduce_retracing`, a call whose shapes no build serves builds one for the
  // shapes generalised against the last build (dims that differ become unknown), and
  // later calls of any shape that fits reuse it (as tf.function(reduce_retracing=True)).
  // Sessions loading the same bytes share one parsed model (compiler::GraphProgram::
  // LoadOnnx, which says what `model` may carry besides the bytes); `token` (may be
  // null) bounds a wait for another session's parse.
  StatusOr<LoadedGraph> LoadOnnx(const std::string& name, const compiler::OnnxBytes& model,
                                 bool reduce_retracing = false, const CancellationToken* token = nullptr);

  // Registers GraphDef `def` as function `name` ("" = "graph"): Placeholders `inputs`
  // (empty: all, in node order) are its arguments, tensors `outputs` its results (see
  // compiler::MakeGraphDefFunction). On error nothing changes.
  StatusOr<LoadedGraph> LoadGraphDef(const std::string& name, const GraphDef& def,
                                     const std::vector<std::string>& inputs,
                                     const std::vector<std::string>& outputs, bool reduce_retracing = false);

  // Runs graph `name` with `inputs` (one per graph input, in order: tensors, sequences
  // or optionals as the model declares). InvalidArgument naming the input for a
  // wrong count, kind, dtype or shape; NotFound for an unknown name. In a QuickScope
  // (quick_run.h) it runs only a cached build that ran within the limit, and otherwise
  // returns NotQuick() without building or running anything. `trace` non-null: the
  // run's steps are timed into it (RunOptions.trace).
  StatusOr<GraphCallResult> Call(const std::string& name, std::vector<GraphValue> inputs, VariableStore& variables,
                                 const CancellationToken& token, executor::RunTrace* trace = nullptr);

  // The concrete functions built for graph `name` so far ("(x: float32[2,3])" per
  // signature) and, with `with_graphs`, the functions. A graph not called yet shows
  // the function built for its declared input shapes (not cached). NotFound for an
  // unknown name.
  struct Description {
    std::vector<std::string> signatures;
    std::vector<FunctionRef> functions;
    // Per signature: where its plan runs each node (empty for a build not planned).
    std::vector<executor::PlacementSummary> placements;
  };
  StatusOr<Description> Describe(const std::string& name, bool with_graphs);
  bool Contains(const std::string& name);

 private:
  using Compiled = compiler::CompiledFunction;
  struct Entry {
    std::shared_ptr<const compiler::GraphProgram> program;
    Fingerprint content;  // the program's, the name and the target
    bool reduce_retracing = false;
    UsedSignatures used;  // guarded by mu_
  };
  // The concrete function for `inputs` (checked): cached, or built (NotQuick in a
  // QuickScope instead of building). `result` gets the build time and first use;
  // `program` the graph it was built from.
  StatusOr<std::shared_ptr<const Compiled>> Lookup(const std::string& name, const std::vector<GraphValue>& inputs,
                                                   const CancellationToken& token, GraphCallResult& result,
                                                   std::shared_ptr<const compiler::GraphProgram>* program);
  // Registers `program` as `name`, replacing a graph of that name.
  StatusOr<LoadedGraph> Register(const std::string& name, std::shared_ptr<const compiler::GraphProgram> program,
                                 bool reduce_retracing);

  const CompileContext compile_;
  // Folds ONNX nodes whose inputs are all constants while importing.
  const ExecutorConstantEvaluator evaluator_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> graphs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphd::server

#endif  // GRAPHD_SERVER_GRAPH_FUNCTIONS_H_
