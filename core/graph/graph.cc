#include "core/graph/graph.h"

#include <functional>
#include <queue>
#include <utility>

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
  if (uses_built_) {
    for (int i = 0; i < static_cast<int>(raw->inputs_.size()); ++i) uses_[raw->inputs_[i].node].push_back({raw, i});
  }
  nodes_.push_back(std::move(node));
  return raw;
}

const Node* Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

void Graph::Truncate(int num_nodes) {
  uses_.clear();
  uses_built_ = false;
  while (static_cast<int>(nodes_.size()) > num_nodes) {
    by_name_.erase(nodes_.back()->name_);
    nodes_.pop_back();
  }
}

StatusOr<int> Graph::ReplaceAllUses(OutputRef from, OutputRef to) {
  for (const OutputRef& r : {from, to}) {
    if (r.node == nullptr || FindNode(r.node->name()) != r.node || r.index < 0 ||
        r.index >= r.node->num_outputs()) {
      return errors::InvalidArgument("ReplaceAllUses: an output that is not in this graph");
    }
  }
  const TensorType& a = from.node->output(from.index);
  const TensorType& b = to.node->output(to.index);
  if (a.dtype != b.dtype || !(a.shape == b.shape)) {
    return errors::InvalidArgument(absl::StrCat(
        "ReplaceAllUses: '", from.node->name(), ":", from.index, "' is ", DTypeName(a.dtype),
        a.shape.ToString(), " but '", to.node->name(), ":", to.index, "' is ", DTypeName(b.dtype),
        b.shape.ToString()));
  }
  int changed = 0;
  if (from == to) return changed;
  if (!uses_built_) BuildUses();
  auto it = uses_.find(from.node);
  if (it == uses_.end()) return changed;
  std::vector<std::pair<Node*, int>> readers = std::move(it->second);  // `it` may go below
  std::vector<std::pair<Node*, int>> kept, moved;
  for (const auto& [consumer, slot] : readers) {
    OutputRef& in = consumer->inputs_[slot];
    if (in == from) {
      in = to;
      moved.push_back({consumer, slot});
      ++changed;
    } else {
      kept.push_back({consumer, slot});  // reads another output of from.node
    }
  }
  uses_[from.node] = std::move(kept);
  auto& to_readers = uses_[to.node];
  to_readers.insert(to_readers.end(), moved.begin(), moved.end());
  return changed;
}

void Graph::BuildUses() {
  uses_.clear();
  for (auto& node : nodes_) {
    for (int i = 0; i < static_cast<int>(node->inputs_.size()); ++i) uses_[node->inputs_[i].node].push_back({node.get(), i});
  }
  uses_built_ = true;
}

Status Graph::Compact(const std::vector<bool>& remove, const std::vector<int>* rank) {
  const int n = num_nodes();
  if (static_cast<int>(remove.size()) != n || (rank != nullptr && static_cast<int>(rank->size()) != n)) {
    return errors::InvalidArgument("Compact: the removal mask or ranks do not cover the graph");
  }
  // Edges producer -> consumer among kept nodes, and each kept node's in-degree.
  std::vector<std::vector<int>> consumers(n);
  std::vector<int> pending(n, 0);
  for (int id = 0; id < n; ++id) {
    if (remove[id]) continue;
    const Node& node = *nodes_[id];
    auto edge = [&](const Node* producer) -> Status {
      if (remove[producer->id()]) {
        return errors::FailedPrecondition(absl::StrCat("Compact: node '", node.name(), "' reads '",
                                                       producer->name(), "', which is being removed"));
      }
      consumers[producer->id()].push_back(id);
      ++pending[id];
      return absl::OkStatus();
    };
    for (const OutputRef& in : node.inputs_) RETURN_IF_ERROR(edge(in.node));
    for (const Node* c : node.control_inputs_) RETURN_IF_ERROR(edge(c));
  }
  // Kahn's algorithm taking the lowest (rank, old id) first: an already sorted graph
  // keeps its order.
  using Key = std::pair<int, int>;
  auto key = [&](int id) { return Key(rank != nullptr ? (*rank)[id] : id, id); };
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> ready;
  for (int id = 0; id < n; ++id) {
    if (!remove[id] && pending[id] == 0) ready.push(key(id));
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int id = ready.top().second;
    ready.pop();
    order.push_back(id);
    for (int c : consumers[id]) {
      if (--pending[c] == 0) ready.push(key(c));
    }
  }
  int kept = 0;
  for (int id = 0; id < n; ++id) kept += !remove[id];
  if (static_cast<int>(order.size()) != kept) {
    return errors::FailedPrecondition("Compact: the graph has a cycle");
  }
  std::vector<std::unique_ptr<Node>> sorted;
  sorted.reserve(order.size());
  for (int id : order) sorted.push_back(std::move(nodes_[id]));
  for (int id = 0; id < n; ++id) {
    if (remove[id]) by_name_.erase(nodes_[id]->name_);
  }
  nodes_ = std::move(sorted);
  uses_.clear();  // removed nodes may be in it; rebuilt on the next ReplaceAllUses
  uses_built_ = false;
  for (int id = 0; id < static_cast<int>(nodes_.size()); ++id) nodes_[id]->id_ = id;
  return absl::OkStatus();
}

}  // namespace graphd
