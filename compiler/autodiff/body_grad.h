// What the If and While gradients share (internal to compiler/autodiff): bodies taken
// as traced and checked free of side effects, bodies inlined into a graph being built,
// new bodies built from scratch, and a body's copy differentiated.
#ifndef GRAPHD_COMPILER_AUTODIFF_BODY_GRAD_H_
#define GRAPHD_COMPILER_AUTODIFF_BODY_GRAD_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/autodiff/grad_util.h"

namespace graphd::compiler::autodiff {

bool IsVariableRead(const Node& n);

// The node's two bodies (attributes `a`, `b`) as traced, checked free of side effects
// (assignments, prints, stateful random ops: Unimplemented naming the node).
StatusOr<std::pair<FunctionRef, FunctionRef>> PureBodies(const GradEnv* env, const Node& n, const char* a,
                                                         const char* b);

// The source variables (of env) read in `bodies`, with one read of each for its type.
std::map<std::string, const Node*> SourceVariables(const GradEnv* env, const std::vector<FunctionRef>& bodies);

// Adds the nodes of `fn` through `b` with its arguments replaced by `args`; returns
// its results, and the copies of its variable reads (var_name -> outputs). Control
// edges are dropped: the body has no side effects to order.
StatusOr<std::vector<OutputRef>> InlineBody(GradBuilder& b, NodeSink& sink, const Function& fn,
                                            const std::vector<OutputRef>& args,
                                            std::map<std::string, std::vector<OutputRef>>* reads);

// A body under construction: its own graph and builder.
struct NewBody {
  explicit NewBody(GradEnv* env) : graph(std::make_unique<Graph>()), sink(*graph, ""), child(env ? env->Child() : GradEnv{}),
                                   b(sink, &child) {}
  StatusOr<OutputRef> Arg(DType dtype, const PartialShape& shape) {
    const int index = static_cast<int>(args.size());
    ASSIGN_OR_RETURN(const Node* a, graph->AddNode({.name = absl::StrCat("arg_", index), .op = "Arg",
                                                    .attrs = {{"index", int64_t{index}}, {"dtype", dtype}, {"shape", shape}}}));
    args.push_back(a);
    return OutputRef{a, 0};
  }
  StatusOr<FunctionRef> Finish(GradEnv* env, std::string name, std::vector<OutputRef> results) {
    if (env != nullptr && env->finish_body) return env->finish_body(std::move(name), std::move(graph), args, std::move(results));
    return MakeFunction(std::move(name), std::move(graph), args, std::move(results));
  }
  std::unique_ptr<Graph> graph;
  GraphSink sink;
  GradEnv child;
  GradBuilder b;
  std::vector<const Node*> args;
};

// Zeros shaped like variable `read` (a ReadVariableOp of some body), in `body`.
StatusOr<OutputRef> VariableZeros(NewBody& body, const Node& read);

// Differentiates the copy of a body inside `body`: d(results . seeds)/d(sources), and
// the gradient of each source variable (reads inside, and nested bodies' deposits).
struct BodyGrads {
  std::vector<std::optional<OutputRef>> sources;
  std::vector<std::optional<OutputRef>> variables;  // in the order of `vars`
};
StatusOr<BodyGrads> DifferentiateBody(NewBody& body, const std::vector<OutputRef>& results,
                                      const std::vector<OutputRef>& seeds, const std::vector<OutputRef>& sources,
                                      const std::map<std::string, std::vector<OutputRef>>& reads,
                                      const std::map<std::string, const Node*>& vars);

// While's gradient (while_grad.cc).
StatusOr<GradOut> WhileGrad(GradBuilder& b, const Node& n, const std::vector<OutputRef>& dy);

}  // namespace graphd::compiler::autodiff

#endif  // GRAPHD_COMPILER_AUTODIFF_BODY_GRAD_H_
