// Symbolic reverse-mode differentiation on graphd's IR.
//
// Every differentiable op has one gradient function (GradFn), registered by family
// in compiler/autodiff/*_grad.cc (the op families of core/ops/). Given the node and
// the gradient of each of its outputs, a GradFn adds the nodes computing the
// gradient of each input, or nullopt for inputs that take none (indices, shapes,
// integer operands). Ops with no gradient at all (comparisons, Shape, ArgMax, random
// generators) are registered as non-differentiable: gradients stop there, as
// TensorFlow's None. An op in neither list is an error naming it, never a silent
// zero.
//
// AddGradients builds the gradient graph into the same graph, so the compile
// pipeline's passes (constant folding, CSE, DCE, fusion) run over forward and
// backward nodes together.
#ifndef GRAPHD_COMPILER_AUTODIFF_GRADIENTS_H_
#define GRAPHD_COMPILER_AUTODIFF_GRADIENTS_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/autodiff/grad_builder.h"
#include "core/graph/function.h"

namespace graphd::compiler::autodiff {

using GradOut = std::vector<std::optional<OutputRef>>;
// `dy` has one gradient per output of `node` (zeros where none flows); the result one
// entry per data input.
using GradFn = std::function<StatusOr<GradOut>(GradBuilder& b, const Node& node, const std::vector<OutputRef>& dy)>;

class GradRegistry {
 public:
  // Every family's gradients.
  static const GradRegistry& Global();

  // A second registration of a name is a programming error (aborts).
  void Register(const std::string& op, GradFn fn);
  // Gradients stop at `op`: every input gets none.
  void RegisterNonDifferentiable(const std::string& op);

  // nullptr when the op has no entry; `*non_differentiable` tells the two kinds apart.
  const GradFn* Find(absl::string_view op, bool* non_differentiable) const;
  std::vector<std::string> OpNames() const;

 private:
  std::map<std::string, std::optional<GradFn>, std::less<>> fns_;
};

// Family registrations (one per *_grad.cc).
void RegisterMathGrads(GradRegistry& r);
void RegisterNnGrads(GradRegistry& r);
void RegisterArrayGrads(GradRegistry& r);
void RegisterControlFlowGrads(GradRegistry& r);
void RegisterConvGrads(GradRegistry& r);

// What the gradients of If and While need from the caller. Their bodies are
// differentiated by recomputing them (a branch once more; a loop forward once more,
// keeping each iteration's state, then backward), so they must be free of side
// effects (assignments, prints, stateful random ops): an error says so otherwise.
struct GradEnv {
  // The body as traced, before the compile passes (fusion makes ops that have no
  // gradient); null: bodies are used as they are.
  std::function<FunctionRef(const FunctionRef&)> raw_body;
  // Makes a gradient body into a Function (the caller's passes); null: MakeFunction.
  std::function<StatusOr<FunctionRef>(std::string name, std::unique_ptr<Graph> graph, std::vector<const Node*> args,
                                      std::vector<OutputRef> results)>
      finish_body;
  // Variables (var_name) whose reads inside bodies are sources.
  std::set<std::string> variables;
  // Out: for each such variable, the gradients its reads inside bodies received.
  std::map<std::string, std::vector<OutputRef>> variable_grads;

  FunctionRef Raw(const FunctionRef& fn) const { return raw_body ? raw_body(fn) : fn; }
  // A copy for a nested body: the same hooks and variables, no gradients yet.
  GradEnv Child() const { return GradEnv{raw_body, finish_body, variables, {}}; }
};

struct GradientRequest {
  std::vector<OutputRef> targets;
  // One per target, or empty: ones of the target's shape (TensorFlow's default).
  std::vector<std::optional<OutputRef>> target_grads;
  std::vector<OutputRef> sources;
  // Whether gradients flow through `node` (a tape records only some nodes); null:
  // every node.
  std::function<bool(const Node&)> recorded;
};

// d(sum of targets)/d(source) for each source, added to the graph `builder` writes:
// nullopt where no recorded path of floating-point tensors connects them (TensorFlow's
// None), including integer sources and targets. A source reached through a node whose
// op has no gradient function is an error naming the op and the node.
StatusOr<std::vector<std::optional<OutputRef>>> AddGradients(GradBuilder& builder, const Graph& graph,
                                                             const GradientRequest& request);

}  // namespace graphd::compiler::autodiff

#endif  // GRAPHD_COMPILER_AUTODIFF_GRADIENTS_H_
