// What a gradient function builds with: a thin layer over the graph being
// differentiated that adds nodes (through a NodeSink, so the tracer's naming and
// scoping rules apply) and offers the helpers most gradients need (constants of a
// dtype, reducing a broadcast gradient back to an operand's shape).
//
// Gradients are built on static shapes: graphd's shape-taking ops (Reshape, Slice,
// Pad, ...) take shapes as attributes, so a helper that needs a dimension the trace
// did not know returns Unimplemented naming it instead of guessing.
#ifndef GRAPHD_COMPILER_AUTODIFF_GRAD_BUILDER_H_
#define GRAPHD_COMPILER_AUTODIFF_GRAD_BUILDER_H_

#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace graphd::compiler::autodiff {

// Adds a node to the graph being differentiated; `base` is a name to make unique.
class NodeSink {
 public:
  virtual ~NodeSink() = default;
  virtual StatusOr<const Node*> Add(const std::string& op, const std::string& base, std::vector<OutputRef> inputs,
                                    AttrMap attrs) = 0;
};

// A NodeSink over a plain Graph: names are `prefix` + base + a counter.
class GraphSink : public NodeSink {
 public:
  GraphSink(Graph& graph, std::string prefix) : graph_(graph), prefix_(std::move(prefix)) {}
  StatusOr<const Node*> Add(const std::string& op, const std::string& base, std::vector<OutputRef> inputs,
                            AttrMap attrs) override;

 private:
  Graph& graph_;
  std::string prefix_;
  int count_ = 0;
};

struct GradEnv;

class GradBuilder {
 public:
  // `env` (may be null) serves the gradients of If and While; it must outlive the builder.
  explicit GradBuilder(NodeSink& sink, GradEnv* env = nullptr) : sink_(sink), env_(env) {}
  GradEnv* env() const { return env_; }

  // Output 0 of a new node.
  StatusOr<OutputRef> Op(const std::string& op, std::vector<OutputRef> inputs, AttrMap attrs = {});
  StatusOr<const Node*> NodeOf(const std::string& op, std::vector<OutputRef> inputs, AttrMap attrs = {});

  // A scalar constant of `dtype` (a floating dtype).
  StatusOr<OutputRef> Scalar(DType dtype, double value);
  StatusOr<OutputRef> Add(OutputRef a, OutputRef b) { return Op("Add", {a, b}); }
  StatusOr<OutputRef> Sub(OutputRef a, OutputRef b) { return Op("Sub", {a, b}); }
  StatusOr<OutputRef> Mul(OutputRef a, OutputRef b) { return Op("Mul", {a, b}); }
  StatusOr<OutputRef> Div(OutputRef a, OutputRef b) { return Op("Div", {a, b}); }
  StatusOr<OutputRef> Neg(OutputRef a) { return Op("Neg", {a}); }
  // a * value (a scalar constant of a's dtype).
  StatusOr<OutputRef> Scale(OutputRef a, double value);
  StatusOr<OutputRef> ZerosLike(OutputRef a) { return Op("ZerosLike", {a}); }
  StatusOr<OutputRef> Cast(OutputRef a, DType to);

  // The sum of `g` over the dimensions numpy broadcasting added or stretched to
  // reach g's shape from `shape`, reshaped to `shape`: the gradient of an operand of
  // that shape. g itself when the shapes already agree.
  StatusOr<OutputRef> SumToShape(OutputRef g, const PartialShape& shape);
  // The same for an operand: when its shape leaves the summed dimensions open (an
  // unknown dimension may be 1 or not), SumToShapeOf decides at run time.
  StatusOr<OutputRef> SumToOperand(OutputRef g, OutputRef operand);
  // Reshape to `shape` (at most one unknown dimension).
  StatusOr<OutputRef> Reshape(OutputRef g, const PartialShape& shape);
  // Sum over `axes` (keep_dims as given).
  StatusOr<OutputRef> Sum(OutputRef g, IntList axes, bool keep_dims);

 private:
  NodeSink& sink_;
  GradEnv* env_;
};

inline const TensorType& TypeOf(OutputRef r) { return r.node->output(r.index); }

// Unimplemented "gradient of <op> (node 'n') needs a known shape: <what>".
Status NeedsStaticShape(const Node& node, absl::string_view what);

}  // namespace graphd::compiler::autodiff

#endif  // GRAPHD_COMPILER_AUTODIFF_GRAD_BUILDER_H_
