#include "core/graph/graph.h"

namespace graphd {
namespace {
Status NodeError(absl::StatusCode code, absl::string_view node, absl::string_view message) {
  return errors::WithNode(errors::Make(code, message), node);
}
}  // namespace

StatusOr<const Node*> Graph::AddNode(NodeSpec spec) {
  if (spec.name.empty()) {
    return errors::InvalidArgument(absl::StrCat("a node of op '", spec.op, "' has no name"));
  }
  if (by_name_.contains(spec.name)) {
    return NodeError(absl::StatusCode::kInvalidArgument, spec.name,
                     absl::StrCat("duplicate node name '", spec.name, "'"));
  }
  const OpDef* op = ops_.Find(spec.op);
  if (op == nullptr) {
    return NodeError(absl::StatusCode::kUnimplemented, spec.name,
                     absl::StrCat("node '", spec.name, "': op '", spec.op,
                                  "' is not supported by this server"));
  }
  const int num_inputs = static_cast<int>(spec.inputs.size());
  if (op->num_inputs == OpDef::kVariadic ? num_inputs < op->min_inputs
                                         : num_inputs != op->num_inputs) {
    return NodeError(absl::StatusCode::kInvalidArgument, spec.name,
                     absl::StrCat("node '", spec.name, "' (", op->name, ") takes ",
                                  op->num_inputs == OpDef::kVariadic
                                      ? absl::StrCat("at least ", op->min_inputs)
                                      : absl::StrCat(op->num_inputs),
                                  " data inputs, got ", num_inputs));
  }
  std::vector<TensorType> input_types;
  std::vector<const Tensor*> input_values;  // Const producers' values, for inference
  input_types.reserve(spec.inputs.size());
  input_values.reserve(spec.inputs.size());
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    const OutputRef& in = spec.inputs[i];
    if (in.index < 0 || in.index >= in.node->num_outputs()) {
      return NodeError(absl::StatusCode::kInvalidArgument, spec.name,
                       absl::StrCat("node '", spec.name, "' input ", i, " refers to output ",
                                    in.index, " of '", in.node->name(), "', which has ",
                                    in.node->num_outputs(), " outputs"));
    }
    if (op->IsRefInput(static_cast<int>(i)) && in.node->op_name() != "VariableV2") {
      return NodeError(absl::StatusCode::kInvalidArgument, spec.name,
                       absl::StrCat("node '", spec.name, "' (", op->name, ") input ", i,
                                    " must be a variable, got '", in.node->name(), "' (",
                                    in.node->op_name(), ")"));
    }
    input_types.push_back(in.node->output(in.index));
    const Tensor* value = nullptr;
    if (in.node->op_name() == "Const") {
      auto it = in.node->attrs().find("value");
      if (it != in.node->attrs().end()) value = std::get_if<Tensor>(&it->second);
    }
    input_values.push_back(value);
  }
  InferenceContext ctx(spec.name, *op, input_types, spec.attrs, input_values);
  if (op->infer) {
    Status s = op->infer(ctx);
    if (!s.ok()) return errors::WithLocation(errors::WithNode(std::move(s), spec.name), spec.range);
  }
  for (const TensorType& out : ctx.outputs()) {
    // Inference may combine valid shapes into one too large to exist ([2^32] x [2^32]).
    if (out.shape.known_rank()) {
      auto checked = PartialShape::Make(out.shape.dims());
      if (!checked.ok()) {
        return NodeError(absl::StatusCode::kInvalidArgument, spec.name,
                         absl::StrCat("node '", spec.name, "' (", op->name, "): output ",
                                      checked.status().message()));
      }
    }
  }

  auto node = std::make_unique<Node>();
  node->id_ = static_cast<int>(nodes_.size());
  node->name_ = std::move(spec.name);
  node->op_ = op;
  node->inputs_ = std::move(spec.inputs);
  node->control_inputs_ = std::move(spec.control_inputs);
  node->attrs_ = std::move(spec.attrs);
  node->device_ = std::move(spec.device);
  node->range_ = std::move(spec.range);
  node->outputs_ = std::move(ctx.outputs());
  Node* raw = node.get();
  by_name_.emplace(raw->name_, raw);
  nodes_.push_back(std::move(node));
  return raw;
}

const Node* Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

void Graph::Truncate(int num_nodes) {
  while (static_cast<int>(nodes_.size()) > num_nodes) {
    by_name_.erase(nodes_.back()->name_);
    nodes_.pop_back();
  }
}

}  // namespace graphd
