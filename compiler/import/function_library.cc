#include "compiler/import/function_library.h"

#include <deque>

#include "absl/strings/str_join.h"
#include "compiler/import/node_import.h"

namespace graphd::compiler {
namespace {

Status FunctionError(absl::string_view function, absl::string_view message) {
  return errors::InvalidArgument(absl::StrCat("function '", function, "': ", message));
}

bool ShapesCompatible(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank()) return true;
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (a.dim(i) != kUnknownDim && b.dim(i) != kUnknownDim && a.dim(i) != b.dim(i)) return false;
  }
  return true;
}

// The library functions each definition names (indices into `defs`), checking that
// every other name is a function of `existing`.
StatusOr<std::vector<std::vector<int>>> References(
    const std::vector<FunctionDef>& defs, const absl::flat_hash_map<std::string, int>& index,
    const FunctionLibrary& existing) {
  std::vector<std::vector<int>> refs(defs.size());
  for (size_t f = 0; f < defs.size(); ++f) {
    for (const NodeDef& node : defs[f].nodes) {
      for (const auto& [key, value] : node.attrs) {
        const FuncName* func = std::get_if<FuncName>(&value);
        if (func == nullptr) continue;
        if (auto it = index.find(func->name); it != index.end()) {
          refs[f].push_back(it->second);
        } else if (!existing.contains(func->name)) {
          return errors::WithNode(
              FunctionError(defs[f].name, absl::StrCat("node '", node.name, "' attribute '", key,
                                                       "' names an unknown function '",
                                                       func->name, "'")),
              node.name);
        }
      }
    }
  }
  return refs;
}

// Definitions ordered so that each comes after the library functions it names.
StatusOr<std::vector<int>> DependencyOrder(const std::vector<FunctionDef>& defs,
                                           const std::vector<std::vector<int>>& refs) {
  int n = static_cast<int>(defs.size());
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int f = 0; f < n; ++f) {
    for (int callee : refs[f]) {
      ++pending[f];
      users[callee].push_back(f);
    }
  }
  std::deque<int> ready;
  for (int f = 0; f < n; ++f) {
    if (pending[f] == 0) ready.push_back(f);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    int f = ready.front();
    ready.pop_front();
    order.push_back(f);
    for (int user : users[f]) {
      if (--pending[user] == 0) ready.push_back(user);
    }
  }
  if (static_cast<int>(order.size()) != n) {
    std::vector<std::string> cycle;
    for (int f = 0; f < n && cycle.size() < 10; ++f) {
      if (pending[f] > 0) cycle.push_back(absl::StrCat("'", defs[f].name, "'"));
    }
    return errors::InvalidArgument(
        absl::StrCat("the function library has a cycle (recursion is not supported) through "
                     "functions ",
                     absl::StrJoin(cycle, ", ")));
  }
  return order;
}

StatusOr<std::vector<const Node*>> AddArgs(const FunctionDef& def, Graph& graph) {
  if (def.arg_names.size() != def.arg_types.size()) {
    return FunctionError(def.name, absl::StrCat(def.arg_names.size(), " argument names for ",
                                                def.arg_types.size(), " argument types"));
  }
  std::vector<const Node*> args;
  for (size_t i = 0; i < def.arg_names.size(); ++i) {
    const std::string& name = def.arg_names[i];
    if (!IsValidNodeName(name)) {
      return FunctionError(def.name, absl::StrCat("invalid argument name '", name, "'"));
    }
    if (graph.FindNode(name) != nullptr) {
      return FunctionError(def.name, absl::StrCat("duplicate argument name '", name, "'"));
    }
    const TensorType& type = def.arg_types[i];
    if (type.dtype == DType::kInvalid) {
      return FunctionError(def.name, absl::StrCat("argument '", name, "' has no dtype"));
    }
    auto arg = graph.AddNode({.name = name,
                              .op = "Arg",
                              .attrs = {{"index", static_cast<int64_t>(i)},
                                        {"dtype", type.dtype},
                                        {"shape", type.shape}}});
    if (!arg.ok()) return InFunction(arg.status(), def.name);
    args.push_back(*arg);
  }
  return args;
}

StatusOr<std::vector<OutputRef>> FindResults(const FunctionDef& def, const Graph& graph) {
  if (!def.result_types.empty() && def.result_types.size() != def.results.size()) {
    return FunctionError(def.name, absl::StrCat(def.results.size(), " results but ",
                                                def.result_types.size(), " result types"));
  }
  std::vector<OutputRef> results;
  for (size_t i = 0; i < def.results.size(); ++i) {
    auto name = ParseTensorName(def.results[i]);
    if (!name.ok()) return InFunction(name.status(), def.name);
    const Node* node = graph.FindNode(name->node);
    if (node == nullptr || name->index >= node->num_outputs()) {
      return FunctionError(def.name, absl::StrCat("result ", i, " '", def.results[i],
                                                  "' is not a tensor of the body"));
    }
    const TensorType& got = node->output(name->index);
    if (!def.result_types.empty()) {
      const TensorType& want = def.result_types[i];
      if (want.dtype != got.dtype || !ShapesCompatible(want.shape, got.shape)) {
        return FunctionError(
            def.name, absl::StrCat("result ", i, " '", def.results[i], "' is ", DTypeName(got.dtype),
                                   " ", got.shape.ToString(), " but is declared ",
                                   DTypeName(want.dtype), " ", want.shape.ToString()));
      }
    }
    results.push_back({node, name->index});
  }
  return results;
}

StatusOr<FunctionRef> BuildFunction(const FunctionDef& def, const FunctionLookup& lookup) {
  for (const NodeDef& node : def.nodes) {
    if (node.op == "Placeholder" || node.op == "Arg") {
      return errors::WithNode(
          FunctionError(def.name, absl::StrCat("node '", node.name, "' is a ", node.op,
                                               ": function bodies read their arguments by name")),
          node.name);
    }
  }
  auto graph = std::make_unique<Graph>();
  ASSIGN_OR_RETURN(std::vector<const Node*> args, AddArgs(def, *graph));
  RETURN_IF_ERROR(InFunction(ImportNodes(def.nodes, *graph, lookup), def.name));
  ASSIGN_OR_RETURN(std::vector<OutputRef> results, FindResults(def, *graph));
  auto fn = MakeFunction(def.name, std::move(graph), std::move(args), std::move(results));
  if (!fn.ok()) return InFunction(fn.status(), def.name);
  return fn;
}

}  // namespace

FunctionRef FunctionLibrary::Find(absl::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

Status FunctionLibrary::Add(FunctionRef fn) {
  std::string name = fn->name;
  if (!functions_.emplace(name, std::move(fn)).second) {
    return errors::InvalidArgument(absl::StrCat("duplicate function name '", name, "'"));
  }
  return absl::OkStatus();
}

Status FunctionLibrary::Merge(const FunctionLibrary& other) {
  for (const auto& [name, fn] : other.functions_) {
    if (functions_.contains(name)) {
      return errors::InvalidArgument(absl::StrCat("duplicate function name '", name, "'"));
    }
  }
  for (const auto& [name, fn] : other.functions_) functions_.emplace(name, fn);
  return absl::OkStatus();
}

StatusOr<FunctionLibrary> ImportFunctionLibrary(const std::vector<FunctionDef>& defs,
                                                const FunctionLibrary& existing) {
  absl::flat_hash_map<std::string, int> index;
  for (size_t f = 0; f < defs.size(); ++f) {
    const std::string& name = defs[f].name;
    if (name.empty()) return errors::InvalidArgument(absl::StrCat("function #", f, " has no name"));
    if (!IsValidNodeName(name)) {
      return errors::InvalidArgument(absl::StrCat(
          "invalid function name '", name, "': names match [A-Za-z0-9.][A-Za-z0-9_./>-]*"));
    }
    if (!index.emplace(name, static_cast<int>(f)).second || existing.contains(name)) {
      return errors::InvalidArgument(absl::StrCat("duplicate function name '", name, "'"));
    }
  }
  ASSIGN_OR_RETURN(auto refs, References(defs, index, existing));
  ASSIGN_OR_RETURN(std::vector<int> order, DependencyOrder(defs, refs));
  FunctionLibrary imported;
  FunctionLookup lookup = [&](absl::string_view name) -> FunctionRef {
    FunctionRef fn = imported.Find(name);
    return fn != nullptr ? fn : existing.Find(name);
  };
  for (int f : order) {
    ASSIGN_OR_RETURN(FunctionRef fn, BuildFunction(defs[f], lookup));
    RETURN_IF_ERROR(imported.Add(std::move(fn)));
  }
  return imported;
}

}  // namespace graphd::compiler
