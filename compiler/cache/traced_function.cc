#include "compiler/cache/traced_function.h"

#include <chrono>
#include <vector>

#include "compiler/passes/prune.h"

namespace graphd::compiler {
namespace {

// The variable initialisers `graph` holds (AssignVariableOp only_if_uninitialized).
std::vector<std::string> Initializers(const Graph& graph) {
  std::vector<std::string> inits;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node* n = graph.node(id);
    auto once = n->attrs().find("only_if_uninitialized");
    if (n->op_name() == "AssignVariableOp" && once != n->attrs().end() && std::get<bool>(once->second)) {
      inits.push_back(n->name());
    }
  }
  return inits;
}

}  // namespace

StatusOr<std::shared_ptr<CompiledFunction>> CompileTrace(tracer::ModuleRuntime& runtime,
                                                         const tracer::Value& function,
                                                         const tracer::TraceArgs& args, bool first,
                                                         const CancellationToken& token,
                                                         const CompileTarget& target, int* traces) {
  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(tracer::ConcreteFunction cf, runtime.Trace(function, args, &token, first));
  ++*traces;
  auto traced = std::make_shared<TracedFunction>();
  traced->trace_stdout = cf.trace_stdout;
  std::unique_ptr<const Executable> init_plan;
  if (std::vector<std::string> inits = Initializers(*cf.function->graph); !inits.empty()) {
    std::vector<std::string> feeds;
    for (const Node* arg : cf.function->args) feeds.push_back(arg->name() + ":0");
    // Data dependencies only: an initialiser made after an update in program order
    // (an optimizer's slot created after the first variable's step) must not run it.
    // The initialisers run in program order, so one may read another's variable.
    ASSIGN_OR_RETURN(ExecutionSpec init_spec, Prune(*cf.function->graph, feeds, {}, inits, /*follow_control=*/false));
    ASSIGN_OR_RETURN(init_plan, PlanOnly(init_spec, target));
    traced->first_trace = std::move(cf);  // owns the init plan's nodes
    ASSIGN_OR_RETURN(cf, runtime.Trace(function, args, &token, /*allow_variable_creation=*/false));
    traced->trace_stdout += cf.trace_stdout;
    traced->twice = true;
  }
  // The tracer ran the passes on each body as it finished it.
  ASSIGN_OR_RETURN(auto compiled, Compile(cf.function, "", target, /*optimized=*/true));
  compiled->init_plan = std::move(init_plan);
  compiled->init_function = traced->first_trace.function;
  if (compiled->init_function) compiled->bytes += ConstantBytes(*compiled->init_function);
  traced->function = std::move(cf);
  compiled->front_end = std::move(traced);
  compiled->compile_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
  return compiled;
}

}  // namespace graphd::compiler
