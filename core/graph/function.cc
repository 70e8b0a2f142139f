#include "core/graph/function.h"

namespace graphd {

StatusOr<FunctionRef> MakeFunction(std::string name, std::unique_ptr<Graph> graph,
                                   std::vector<OutputRef> results) {
  auto fn = std::make_shared<Function>();
  fn->name = std::move(name);
  std::vector<const Node*> args;
  for (int id = 0; id < graph->num_nodes(); ++id) {
    const Node* node = graph->node(id);
    if (node->op_name() != "Arg") continue;
    int64_t index = std::get<int64_t>(node->attrs().find("index")->second);
    if (index >= static_cast<int64_t>(args.size())) args.resize(index + 1, nullptr);
    if (args[index] != nullptr) {
      return errors::InvalidArgument(
          absl::StrCat("function '", fn->name, "' has two arguments with index ", index));
    }
    args[index] = node;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == nullptr) {
      return errors::InvalidArgument(
          absl::StrCat("function '", fn->name, "' has no argument with index ", i));
    }
  }
  for (const OutputRef& r : results) {
    if (r.node == nullptr || graph->FindNode(r.node->name()) != r.node ||
        r.index >= r.node->num_outputs()) {
      return errors::InvalidArgument(
          absl::StrCat("function '", fn->name, "' returns a tensor that is not in its body"));
    }
  }
  fn->args = std::move(args);
  fn->results = std::move(results);
  fn->graph = std::move(graph);
  return FunctionRef(std::move(fn));
}

ExecutionSpec SpecForFunction(const Function& function) {
  ExecutionSpec spec;
  for (int id = 0; id < function.graph->num_nodes(); ++id) {
    spec.nodes.push_back(function.graph->node(id));
  }
  for (const Node* arg : function.args) spec.feeds.push_back({arg, 0});
  spec.fetches = function.results;
  return spec;
}

PartialShape MostSpecificCommonShape(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank() || a.rank() != b.rank()) {
    return PartialShape::UnknownRank();
  }
  std::vector<int64_t> dims(a.rank());
  for (int i = 0; i < a.rank(); ++i) dims[i] = a.dim(i) == b.dim(i) ? a.dim(i) : kUnknownDim;
  return PartialShape(std::move(dims));
}

}  // namespace graphd
