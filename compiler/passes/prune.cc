#include "compiler/passes/prune.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "core/graph/node_def.h"

namespace graphd::compiler {
namespace {

StatusOr<OutputRef> Resolve(const Graph& graph, absl::string_view what, const std::string& name) {
  auto parsed = ParseTensorName(name);
  if (!parsed.ok()) {
    return errors::InvalidArgument(absl::StrCat(what, " '", name, "': ", parsed.status().message()));
  }
  const Node* node = graph.FindNode(parsed->node);
  if (node == nullptr) {
    return errors::InvalidArgument(absl::StrCat(what, " '", name, "' refers to a node '",
                                                parsed->node, "' that is not in the graph"));
  }
  if (parsed->index >= node->num_outputs()) {
    return errors::WithNode(
        errors::InvalidArgument(absl::StrCat(what, " '", name, "': node '", node->name(),
                                             "' (", node->op_name(), ") has ",
                                             node->num_outputs(), " outputs")),
        node->name());
  }
  return OutputRef{node, parsed->index};
}

Status UnfedPlaceholder(const Node& node) {
  return errors::WithNode(
      errors::InvalidArgument(absl::StrCat(
          "You must feed a value for placeholder tensor '", node.name(), "' with dtype ",
          DTypeName(node.output(0).dtype), " and shape ", node.output(0).shape.ToString())),
      node.name());
}

}  // namespace

StatusOr<ExecutionSpec> Prune(const Graph& graph, std::span<const std::string> feeds,
                              std::span<const std::string> fetches,
                              std::span<const std::string> targets, bool follow_control) {
  ExecutionSpec spec;
  absl::flat_hash_set<OutputRef> fed;
  for (const std::string& name : feeds) {
    ASSIGN_OR_RETURN(OutputRef ref, Resolve(graph, "feed", name));
    if (!fed.insert(ref).second) {
      return errors::InvalidArgument(absl::StrCat("tensor '", name, "' is fed more than once"));
    }
    spec.feeds.push_back(ref);
  }
  std::vector<const Node*> stack;
  for (const std::string& name : fetches) {
    ASSIGN_OR_RETURN(OutputRef ref, Resolve(graph, "fetch", name));
    spec.fetches.push_back(ref);
    if (!fed.contains(ref)) stack.push_back(ref.node);
  }
  for (const std::string& name : targets) {
    const Node* node = graph.FindNode(name);
    if (node == nullptr) {
      return errors::InvalidArgument(
          absl::StrCat("target '", name, "' is not a node in the graph"));
    }
    stack.push_back(node);
  }
  // Walk back from what is needed; fed tensors are not traversed.
  std::vector<bool> needed(graph.num_nodes(), false);
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    if (needed[node->id()]) continue;
    needed[node->id()] = true;
    for (int i = 0; i < static_cast<int>(node->inputs().size()); ++i) {
      const OutputRef& in = node->inputs()[i];
      if (node->op().IsRefInput(i) || fed.contains(in)) continue;
      stack.push_back(in.node);
    }
    if (!follow_control) continue;
    for (const Node* c : node->control_inputs()) stack.push_back(c);
  }
  // Graph ids are a topological order.
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (!needed[id]) continue;
    const Node* node = graph.node(id);
    if (node->Is(OpId::kPlaceholder) && !fed.contains(OutputRef{node, 0})) {
      return UnfedPlaceholder(*node);
    }
    spec.nodes.push_back(node);
  }
  return spec;
}

}  // namespace graphd::compiler
