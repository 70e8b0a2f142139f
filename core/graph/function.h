// A function body: a Graph whose inputs are "Arg" nodes and whose results are chosen
// outputs. Control-flow nodes (If, While) hold their branches and loop bodies as
// Functions in attributes, so the IR is structured: a body is compiled and run as a
// unit. Immutable once made; shared by every node, plan and session that uses it.
#ifndef GRAPHD_CORE_GRAPH_FUNCTION_H_
#define GRAPHD_CORE_GRAPH_FUNCTION_H_

#include <memory>
#include <string>
#include <vector>

#include "core/graph/execution_spec.h"
#include "core/graph/graph.h"

namespace graphd {

struct Function {
  std::string name;
  std::unique_ptr<const Graph> graph;
  std::vector<const Node*> args;     // the "Arg" nodes, by argument index
  std::vector<OutputRef> results;

  int num_args() const { return static_cast<int>(args.size()); }
  int num_results() const { return static_cast<int>(results.size()); }
  const TensorType& arg_type(int i) const { return args[i]->output(0); }
  const TensorType& result_type(int i) const { return results[i].node->output(results[i].index); }
};

// Makes a Function from a finished body graph: the Arg nodes of `graph` become the
// arguments (their `index` attributes must be 0..n-1, each once), `results` its results.
StatusOr<FunctionRef> MakeFunction(std::string name, std::unique_ptr<Graph> graph,
                                   std::vector<OutputRef> results);
// The same with the arguments given in order (every Arg node of `graph`, each once;
// their `index` attributes, if any, are ignored).
StatusOr<FunctionRef> MakeFunction(std::string name, std::unique_ptr<Graph> graph,
                                   std::vector<const Node*> args, std::vector<OutputRef> results);

// What running a body means: every node of the body (its side effects are part of it),
// the arguments fed, the results fetched.
ExecutionSpec SpecForFunction(const Function& function);

// The most specific shape that both `a` and `b` are instances of (dims that differ
// become unknown; ranks that differ give unknown rank).
PartialShape MostSpecificCommonShape(const PartialShape& a, const PartialShape& b);

}  // namespace graphd

#endif  // GRAPHD_CORE_GRAPH_FUNCTION_H_
