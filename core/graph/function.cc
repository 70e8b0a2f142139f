#include "core/graph/function.h"

#include "absl/container/flat_hash_set.h"

namespace graphd {

StatusOr<FunctionRef> MakeFunction(std::string name, std::unique_ptr<Graph> graph,
                                   std::vector<OutputRef> results) {
  auto fn = std::make_shared<Function>();
  fn->name = std::move(name);
  std::vector<const Node*> args;
  for (int id = 0; id < graph->num_nodes(); ++id) {
    const Node* node = graph->node(id);
    if (node->op_name() != "Arg") continue;
    auto attr = node->attrs().find("index");
    if (attr == node->attrs().end()) {
      return errors::InvalidArgument(absl::StrCat("function '", fn->name, "': argument '", node->name(),
                                                  "' has no index"));
    }
    int64_t index = std::get<int64_t>(attr->second);
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

StatusOr<FunctionRef> MakeFunction(std::string name, std::unique_ptr<Graph> graph,
                                   std::vector<const Node*> args, std::vector<OutputRef> results) {
  int arg_nodes = 0;
  for (int id = 0; id < graph->num_nodes(); ++id) arg_nodes += graph->node(id)->op_name() == "Arg";
  absl::flat_hash_set<const Node*> seen;
  for (const Node* a : args) {
    if (a == nullptr || a->op_name() != "Arg" || graph->FindNode(a->name()) != a || !seen.insert(a).second) {
      return errors::InvalidArgument(absl::StrCat("function '", name, "': bad argument list"));
    }
  }
  if (static_cast<int>(args.size()) != arg_nodes) {
    return errors::InvalidArgument(absl::StrCat("function '", name, "' has ", arg_nodes,
                                                " Arg nodes but ", args.size(), " arguments"));
  }
  for (const OutputRef& r : results) {
    if (r.node == nullptr || graph->FindNode(r.node->name()) != r.node || r.index >= r.node->num_outputs()) {
      return errors::InvalidArgument(absl::StrCat("function '", name, "' returns a tensor that is not in its body"));
    }
  }
  auto fn = std::make_shared<Function>();
  fn->name = std::move(name);
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
