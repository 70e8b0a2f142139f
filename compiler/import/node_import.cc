#include "compiler/import/node_import.h"

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "compiler/import/gradients_import.h"

namespace graphd::compiler {
namespace {

Status NodeError(absl::string_view node, absl::string_view message) {
  return errors::WithNode(errors::InvalidArgument(message), node);
}

// A NodeDef's inputs, parsed.
struct ParsedInputs {
  std::vector<TensorName> data;
  std::vector<std::string> control;
};

StatusOr<ParsedInputs> ParseInputs(const NodeDef& node) {
  ParsedInputs out;
  for (const std::string& input : node.inputs) {
    if (!input.empty() && input[0] == '^') {
      if (input.size() == 1) {
        return NodeError(node.name, absl::StrCat("node '", node.name, "' has an empty control input"));
      }
      out.control.push_back(input.substr(1));
      continue;
    }
    if (!out.control.empty()) {
      return NodeError(node.name, absl::StrCat("node '", node.name, "': data input '", input,
                                               "' comes after a control input"));
    }
    auto name = ParseTensorName(input);
    if (!name.ok()) {
      return NodeError(node.name, absl::StrCat("node '", node.name, "': ", name.status().message()));
    }
    out.data.push_back(*std::move(name));
  }
  return out;
}

// Orders the new nodes so that every node comes after the new nodes it reads.
StatusOr<std::vector<int>> TopologicalOrder(const std::vector<NodeDef>& nodes,
                                            const std::vector<ParsedInputs>& inputs,
                                            const absl::flat_hash_map<std::string, int>& index) {
  int n = static_cast<int>(nodes.size());
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    auto add_edge = [&](const std::string& producer) {
      auto it = index.find(producer);
      if (it == index.end()) return;
      ++pending[i];
      consumers[it->second].push_back(i);
    };
    for (const TensorName& t : inputs[i].data) add_edge(t.node);
    for (const std::string& c : inputs[i].control) add_edge(c);
  }
  std::deque<int> ready;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int c : consumers[i]) {
      if (--pending[c] == 0) ready.push_back(c);
    }
  }
  if (static_cast<int>(order.size()) != n) {
    std::vector<std::string> cycle;
    for (int i = 0; i < n && cycle.size() < 10; ++i) {
      if (pending[i] > 0) cycle.push_back(nodes[i].name);
    }
    return NodeError(cycle.front(), absl::StrCat("the graph has a cycle through nodes ",
                                                 absl::StrJoin(cycle, ", ")));
  }
  return order;
}

// `attrs` with every function name replaced by the function it names.
StatusOr<AttrMap> ResolveFunctions(const NodeDef& nd, const FunctionLookup& lookup) {
  AttrMap attrs = nd.attrs;
  for (auto& [key, value] : attrs) {
    const FuncName* func = std::get_if<FuncName>(&value);
    if (func == nullptr) continue;
    FunctionRef fn = lookup ? lookup(func->name) : nullptr;
    if (fn == nullptr) {
      return NodeError(nd.name, absl::StrCat("node '", nd.name, "' attribute '", key,
                                             "' names an unknown function '", func->name, "'"));
    }
    value = std::move(fn);
  }
  return attrs;
}

Status AddAll(const std::vector<NodeDef>& nodes, const std::vector<ParsedInputs>& inputs,
              const std::vector<int>& order, const FunctionLookup& lookup, Graph& graph) {
  for (int i : order) {
    const NodeDef& nd = nodes[i];
    ASSIGN_OR_RETURN(AttrMap attrs, ResolveFunctions(nd, lookup));
    NodeSpec spec{.name = nd.name, .op = nd.op, .attrs = std::move(attrs), .device = nd.device};
    for (const TensorName& t : inputs[i].data) {
      const Node* producer = graph.FindNode(t.node);
      if (producer == nullptr) {
        return NodeError(nd.name, absl::StrCat("node '", nd.name, "' input '", t.ToString(),
                                               "' refers to a missing node '", t.node, "'"));
      }
      spec.inputs.push_back({producer, t.index});
    }
    for (const std::string& c : inputs[i].control) {
      const Node* producer = graph.FindNode(c);
      if (producer == nullptr) {
        return NodeError(nd.name, absl::StrCat("node '", nd.name, "' control input '^", c,
                                               "' refers to a missing node '", c, "'"));
      }
      spec.control_inputs.push_back(producer);
    }
    if (nd.op == kGradientsOp) {
      RETURN_IF_ERROR(ImportGradients(nd.name, spec.inputs, spec.attrs, graph));
      continue;
    }
    auto added = graph.AddNode(std::move(spec));
    if (!added.ok()) return added.status();
  }
  return absl::OkStatus();
}

}  // namespace

bool IsValidNodeName(absl::string_view name) {
  auto alnum = [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); };
  if (name.empty() || !(alnum(name[0]) || name[0] == '.')) return false;
  for (char c : name.substr(1)) {
    if (!(alnum(c) || c == '_' || c == '.' || c == '/' || c == '-' || c == '>')) return false;
  }
  return true;
}

Status ImportNodes(const std::vector<NodeDef>& nodes, Graph& graph, const FunctionLookup& lookup) {
  absl::flat_hash_map<std::string, int> index;
  std::vector<ParsedInputs> inputs;
  inputs.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeDef& nd = nodes[i];
    if (nd.name.empty()) {
      return errors::InvalidArgument(absl::StrCat("node #", i, " (op '", nd.op, "') has no name"));
    }
    if (!IsValidNodeName(nd.name)) {
      return NodeError(nd.name, absl::StrCat("invalid node name '", nd.name,
                                             "': names match [A-Za-z0-9.][A-Za-z0-9_./>-]*"));
    }
    if (!index.emplace(nd.name, static_cast<int>(i)).second || graph.FindNode(nd.name)) {
      return NodeError(nd.name, absl::StrCat("duplicate node name '", nd.name, "'"));
    }
    ASSIGN_OR_RETURN(ParsedInputs parsed, ParseInputs(nd));
    inputs.push_back(std::move(parsed));
  }
  ASSIGN_OR_RETURN(std::vector<int> order, TopologicalOrder(nodes, inputs, index));
  int before = graph.num_nodes();
  Status status = AddAll(nodes, inputs, order, lookup, graph);
  if (!status.ok()) graph.Truncate(before);
  return status;
}

Status InFunction(const Status& status, absl::string_view name) {
  if (status.ok()) return status;
  Status out(status.code(), absl::StrCat("function '", name, "': ", status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) {
    out.SetPayload(url, payload);
  });
  return out;
}

}  // namespace graphd::compiler
