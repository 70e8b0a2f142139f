// One graph being traced: a function body, a branch or a loop body. Nodes get unique
// TensorFlow-style names ("add", "add_1"); tensors from an enclosing scope are brought
// in as captured arguments (recursively through the scopes in between), eager values
// as constants. Stateful nodes are chained by control edges in program order
// (automatic control dependencies).
#ifndef GRAPHD_COMPILER_TRACER_GRAPH_SCOPE_H_
#define GRAPHD_COMPILER_TRACER_GRAPH_SCOPE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "compiler/passes/pipeline.h"
#include "compiler/tracer/tensor_value.h"
#include "core/graph/function.h"

namespace graphd::compiler::tracer {

class GraphScope {
 public:
  // `parent` may be null (a function's outermost scope); it must outlive this scope.
  // A child scope inherits its parent's passes.
  GraphScope(GraphScope* parent, std::string name);

  // The most nodes one traced body may hold (a trace that unrolls a Python loop or
  // takes gradients in one cannot exhaust the server's memory); children inherit it.
  static constexpr int kMaxNodes = 1 << 21;
  void set_max_nodes(int n) { max_nodes_ = n; }

  // Passes run on the body in Finish (null: none). Must outlive the scope and the
  // scopes made inside it.
  void set_passes(const passes::Pipeline* passes) { passes_ = passes; }

  GraphScope* parent() const { return parent_; }
  // Unique per scope ever made in this process (scopes are freed once traced, and a
  // new one may reuse the address).
  uint64_t serial() const { return serial_; }
  const std::string& name() const { return name_; }
  Graph& graph() { return *graph_; }

  // Adds a node named after `base`. Stateful nodes get a control edge from the
  // previous stateful node of this scope.
  StatusOr<const Node*> Add(const std::string& op, const std::string& base, std::vector<OutputRef> inputs,
                            AttrMap attrs, bool stateful = false, SourceRange range = {});
  // A new Arg node (an argument of the body this scope becomes).
  StatusOr<const Node*> NewArg(const std::string& base, DType dtype, const PartialShape& shape);

  // The tensor as an output of this scope's graph. A symbolic tensor must belong to
  // this scope or one enclosing it: one made in a body traced earlier (a branch, a
  // loop body) is out of reach, a Python-level ValueError (TensorFlow's
  // InaccessibleTensorError).
  StatusOr<OutputRef> Bring(const TensorObj& t);

  // Outer tensors this scope captured, in capture order: (outer tensor, Arg here).
  struct Capture {
    std::shared_ptr<TensorObj> outer;  // a tensor of the parent scope (or eager)
    const Node* arg;
  };
  const std::vector<Capture>& captures() const { return captures_; }
  // Function arguments in order: NewArg ones first, then captures.
  std::vector<const Node*> ArgsInOrder() const;

  // The finished body as a Function (arguments: ArgsInOrder, or `args`), after the
  // passes ran on it: nodes of this scope's graph that they removed are gone, so
  // no OutputRef into the body may be used after Finish except through the Function.
  StatusOr<FunctionRef> Finish(std::vector<OutputRef> results);
  StatusOr<FunctionRef> Finish(std::vector<const Node*> args, std::vector<OutputRef> results);

  std::string UniqueName(const std::string& base);

  // The body `fn` as traced, before the passes ran on it (a body finished in this
  // scope or any scope of the same trace), or `fn` itself when unknown. Gradients
  // differentiate these: fusion makes ops that have none.
  FunctionRef RawBody(const Function& fn) const;
  // Eager tensors this scope (an eager GradientTape's) already holds as nodes: `lookup`
  // gives the node output standing for an eager tensor, or nullopt (it becomes a
  // Const). Scopes made inside this one inherit it and capture what it gives.
  using EagerLookup = std::function<std::optional<OutputRef>(const TensorObj&)>;
  void set_eager_lookup(EagerLookup lookup) {
    eager_lookup_ = std::make_shared<EagerLookup>(std::move(lookup));
    lookup_owner_ = this;
  }

  // A body built outside the tracer (a gradient body) through this scope's passes.
  StatusOr<FunctionRef> FinishBody(std::string name, std::unique_ptr<Graph> graph, std::vector<const Node*> args,
                                   std::vector<OutputRef> results) const;

 private:
  // The raw copies of the bodies a trace finished, keyed by the finished Function;
  // shared by every scope of one trace.
  using RawBodies = absl::flat_hash_map<const Function*, FunctionRef>;
  std::shared_ptr<RawBodies> raw_bodies_;
  std::shared_ptr<EagerLookup> eager_lookup_;
  int max_nodes_ = kMaxNodes;
  GraphScope* lookup_owner_ = nullptr;

  GraphScope* parent_;
  uint64_t serial_;
  std::string name_;
  std::unique_ptr<Graph> graph_;
  absl::flat_hash_map<std::string, int> name_counts_;
  const passes::Pipeline* passes_ = nullptr;
  const Node* last_stateful_ = nullptr;
  std::vector<const Node*> args_;
  std::vector<Capture> captures_;
  // Outer tensor identity (node or eager object) -> its Arg or Const here.
  absl::flat_hash_map<const void*, OutputRef> brought_;
};

}  // namespace graphd::compiler::tracer

#endif  // GRAPHD_COMPILER_TRACER_GRAPH_SCOPE_H_
