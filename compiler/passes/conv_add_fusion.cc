#include "compiler/passes/conv_add_fusion.h"


#include "compiler/passes/node_rewrite.h"
#include "compiler/passes/output_uses.h"
#include "compiler/passes/pass_util.h"

namespace graphd::compiler::passes {
namespace {

const TensorType& TypeOf(OutputRef ref) { return ref.node->output(ref.index); }

// Whether `ref` is a ConvND that `add` may absorb.
bool Fusable(OutputRef ref, const Node& add, const OutputUses& uses, const std::vector<bool>& control_outputs) {
  const Node& conv = *ref.node;
  const TensorType& y = conv.output(0);
  return conv.Is(OpId::kConvND) && ref.index == 0 && uses.count(conv) == 1 && y.dtype == DType::kFloat32 &&
         !conv.attrs().contains("activation") && !conv.attrs().contains("residual") &&
         !IsPinned(conv, control_outputs) && y.shape.known_rank() && y.shape.fully_defined() &&
         y.shape == add.output(0).shape;
}

}  // namespace

StatusOr<bool> ConvAddFusion::Run(FunctionBody& body) const {
  Graph& g = *body.graph;
  const int n = g.num_nodes();
  const std::vector<bool> control_outputs = ControlOutputs(g);
  const OutputUses uses(body);
  NodeRewrite rewrite(g);
  bool changed = false;
  for (int id = 0; id < n; ++id) {
    const Node& add = *g.node(id);
    if (!add.Is(OpId::kAdd) || add.inputs().size() != 2 || IsPinned(add, control_outputs)) continue;
    // The conv fused is the later operand when both qualify (the other is computed first).
    int which = -1;
    for (int i = 1; i >= 0 && which < 0; --i) {
      const OutputRef other = add.inputs()[1 - i];
      if (Fusable(add.inputs()[i], add, uses, control_outputs) && !rewrite.removed(*add.inputs()[i].node) &&
          TypeOf(other).shape == add.output(0).shape && TypeOf(other).dtype == DType::kFloat32) {
        which = i;
      }
    }
    if (which < 0) continue;
    if (add.inputs()[0] == add.inputs()[1]) continue;  // Add(conv, conv): conv has two uses anyway
    const Node& conv = *add.inputs()[which].node;
    AttrMap attrs = conv.attrs();
    attrs["residual"] = true;
    std::vector<OutputRef> inputs = conv.inputs();
    inputs.push_back(add.inputs()[1 - which]);
    ASSIGN_OR_RETURN(const Node* fused, g.AddNode({.name = FreshName(g, conv.name() + "_" + std::string(kName)),
                                                   .op = "ConvND", .inputs = std::move(inputs),
                                                   .attrs = std::move(attrs), .device = conv.device(),
                                                   .range = conv.range()}));
    RETURN_IF_ERROR(body.ReplaceAllUses({&add, 0}, {fused, 0}).status());
    rewrite.Added(add);
    rewrite.Remove(conv);
    rewrite.Remove(add);
    changed = true;
  }
  if (changed) RETURN_IF_ERROR(rewrite.Apply(g));
  return changed;
}

}  // namespace graphd::compiler::passes
