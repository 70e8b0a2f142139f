#include "compiler/passes/elementwise_fusion.h"

#include <algorithm>
#include <optional>

#include "compiler/passes/node_rewrite.h"
#include "compiler/passes/pass_util.h"
#include "core/ops/elementwise_program.h"

namespace graphd::compiler::passes {
namespace {

using ops::EwOp;
using ops::EwOperand;

bool IsScalar(const TensorType& t) { return t.shape.known_rank() && t.shape.rank() == 0; }

// Which nodes may be part of a fused group, and their ops. `same_shape[id]` names a
// value with the shape of node id's output at run time: its non-scalar input's for a
// fusable unary or non-broadcasting binary node (so that x * sigmoid(x) with x of shape
// [?, 4] is known not to broadcast), the node's own output otherwise.
class Candidates {
 public:
  Candidates(const Graph& g, const std::vector<bool>& control_outputs, bool channel_operands)
      : op_(g.num_nodes()), fusable_(g.num_nodes(), false), channel_input_(g.num_nodes(), -1),
        channel_operands_(channel_operands) {
    for (int id = 0; id < g.num_nodes(); ++id) {
      const Node& node = *g.node(id);
      same_shape_.push_back({&node, 0});
      fusable_[id] = Check(node, control_outputs);
    }
  }
  bool fusable(int id) const { return fusable_[id]; }
  EwOp op(int id) const { return op_[id]; }
  // The input (0 or 1) node `id` takes by a channel broadcast, or -1.
  int channel_input(int id) const { return channel_input_[id]; }

 private:
  OutputRef SameShape(OutputRef ref) const { return ref.index == 0 ? same_shape_[ref.node->id()] : ref; }

  bool Check(const Node& node, const std::vector<bool>& control_outputs) {
    EwOp& op = op_[node.id()];
    if (!ops::EwOpFromName(node.op_name(), &op) || IsPinned(node, control_outputs)) return false;
    if (static_cast<int>(node.inputs().size()) != ops::EwOpArity(op) || node.num_outputs() != 1) return false;
    const TensorType& out = node.output(0);
    if (out.dtype != DType::kFloat32) return false;
    bool all_const = true;  // then constant folding's business
    for (const OutputRef& in : node.inputs()) {
      if (in.node->output(in.index).dtype != DType::kFloat32) return false;
      all_const &= in.node->Is(OpId::kConst);
    }
    if (all_const) return false;
    const OutputRef a = node.inputs()[0];
    if (ops::EwOpArity(op) == 1) {
      same_shape_[node.id()] = SameShape(a);
      return true;
    }
    const OutputRef b = node.inputs()[1];
    const TensorType& ta = a.node->output(a.index);
    const TensorType& tb = b.node->output(b.index);
    if (IsScalar(ta) || IsScalar(tb)) {
      if (!(IsScalar(ta) || ta.shape == out.shape) || !(IsScalar(tb) || tb.shape == out.shape)) return false;
      if (!IsScalar(ta) || !IsScalar(tb)) same_shape_[node.id()] = SameShape(IsScalar(ta) ? b : a);
      return true;
    }
    if (ta.shape == out.shape && tb.shape == out.shape) {
      if (!out.shape.fully_defined() && !(SameShape(a) == SameShape(b))) return false;
      same_shape_[node.id()] = SameShape(a);
      return true;
    }
    // One operand of the output's known shape, the other reaching it per channel.
    if (!channel_operands_ || !out.shape.fully_defined() || !ta.shape.fully_defined() || !tb.shape.fully_defined()) {
      return false;
    }
    const int full = ta.shape == out.shape ? 0 : tb.shape == out.shape ? 1 : -1;
    if (full < 0) return false;
    const TensorType& other = full == 0 ? tb : ta;
    if (!ops::ChannelBroadcastOf(other.shape.dims(), out.shape.dims()).has_value()) return false;
    channel_input_[node.id()] = 1 - full;
    same_shape_[node.id()] = SameShape(node.inputs()[full]);
    return true;
  }

  std::vector<EwOp> op_;
  std::vector<bool> fusable_;
  std::vector<int> channel_input_;
  bool channel_operands_;
  std::vector<OutputRef> same_shape_;
};

// The value of a rank-0 float32 Const, if `ref` is one.
std::optional<float> RankZeroConst(OutputRef ref) {
  if (ref.node->output(ref.index).shape.known_rank() && ref.node->output(ref.index).shape.rank() == 0) {
    return ScalarConst(ref);
  }
  return std::nullopt;
}

}  // namespace

StatusOr<bool> ElementwiseFusion::Run(FunctionBody& body) const {
  Graph& g = *body.graph;
  const int n = g.num_nodes();
  const Candidates candidates(g, ControlOutputs(g), channel_operands_);
  // Users of each node (a node reading a value twice counts once); results pin.
  std::vector<std::vector<int>> users(n);
  std::vector<bool> returned(n, false);
  for (int id = 0; id < n; ++id) {
    for (const OutputRef& in : g.node(id)->inputs()) {
      std::vector<int>& u = users[in.node->id()];
      if (u.empty() || u.back() != id) u.push_back(id);
    }
  }
  for (const OutputRef& r : body.results) returned[r.node->id()] = true;

  // Groups, from the last node back: a fusable node joins the group of its users when
  // they all belong to one group, else it starts one (as its root).
  std::vector<int> group(n, -1);
  std::vector<std::vector<int>> members;  // per group, node ids (descending)
  for (int id = n - 1; id >= 0; --id) {
    if (!candidates.fusable(id)) continue;
    int joined = -1;
    if (!returned[id] && !users[id].empty()) {
      joined = group[users[id][0]];
      for (int u : users[id]) {
        // A value a user takes per channel stays outside its group: every value
        // inside a group has the group's shape.
        const int k = candidates.channel_input(u);
        if (group[u] != joined || (k >= 0 && g.node(u)->inputs()[k].node->id() == id)) joined = -1;
      }
      if (joined >= 0 && static_cast<int>(members[joined].size()) >= kMaxInstructions) joined = -1;
    }
    if (joined < 0) {
      joined = static_cast<int>(members.size());
      members.emplace_back();
    }
    group[id] = joined;
    members[joined].push_back(id);
  }

  NodeRewrite rewrite(g);
  bool changed = false;
  for (std::vector<int>& ids : members) {
    if (ids.size() < 2) continue;
    std::sort(ids.begin(), ids.end());  // topological: inputs before users
    const Node& root = *g.node(ids.back());
    std::vector<int> instr_of(n, -1);
    std::vector<OutputRef> inputs;
    ops::ElementwiseProgram program;
    for (int id : ids) {
      const Node& node = *g.node(id);
      ops::EwInstr instr{.op = candidates.op(id), .operands = {}};
      for (const OutputRef& in : node.inputs()) {
        EwOperand o;
        if (group[in.node->id()] == group[id] && instr_of[in.node->id()] >= 0) {
          o.kind = EwOperand::Kind::kTemp;
          o.index = instr_of[in.node->id()];
        } else if (std::optional<float> c = RankZeroConst(in); c.has_value()) {
          o.kind = EwOperand::Kind::kConst;
          o.value = *c;
        } else {
          auto it = std::find(inputs.begin(), inputs.end(), in);
          o.kind = EwOperand::Kind::kInput;
          o.index = static_cast<int>(it - inputs.begin());
          if (it == inputs.end()) inputs.push_back(in);
        }
        instr.operands.push_back(o);
      }
      instr_of[id] = static_cast<int>(program.instrs.size());
      program.instrs.push_back(std::move(instr));
    }
    ASSIGN_OR_RETURN(const Node* fused,
                     g.AddNode({.name = FreshName(g, root.name() + "_" + std::string(kName)),
                                .op = "FusedElementwise",
                                .inputs = std::move(inputs),
                                .attrs = {{"program", ops::FormatElementwiseProgram(program)}},
                                .device = root.device()}));
    RETURN_IF_ERROR(body.ReplaceAllUses({&root, 0}, {fused, 0}).status());
    rewrite.Added(root);
    for (int id : ids) rewrite.Remove(*g.node(id));
    changed = true;
  }
  if (changed) RETURN_IF_ERROR(rewrite.Apply(g));
  return changed;
}

}  // namespace graphd::compiler::passes
