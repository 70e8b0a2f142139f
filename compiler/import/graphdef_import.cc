#include "compiler/import/graphdef_import.h"

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"

namespace graphd::compiler {
namespace {

Status NodeError(absl::string_view node, absl::string_view message) {
  return errors::WithNode(errors::InvalidArgument(message), node);
}

// TensorFlow's rule for node names; it keeps "node:index" and "^node" unambiguous.
bool IsValidNodeName(absl::string_view name) {
  auto alnum = [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); };
  if (name.empty() || !(alnum(name[0]) || name[0] == '.')) return false;
  for (char c : name.substr(1)) {
    if (!(alnum(c) || c == '_' || c == '.' || c == '/' || c == '-' || c == '>')) return false;
  }
  return true;
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
StatusOr<std::vector<int>> TopologicalOrder(const GraphDef& def,
                                            const std::vector<ParsedInputs>& inputs,
                                            const absl::flat_hash_map<std::string, int>& index) {
  int n = static_cast<int>(def.nodes.size());
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
      if (pending[i] > 0) cycle.push_back(def.nodes[i].name);
    }
    return NodeError(cycle.front(), absl::StrCat("the graph has a cycle through nodes ",
                                                 absl::StrJoin(cycle, ", ")));
  }
  return order;
}

Status AddAll(const GraphDef& def, const std::vector<ParsedInputs>& inputs,
              const std::vector<int>& order, Graph& graph) {
  for (int i : order) {
    const NodeDef& nd = def.nodes[i];
    NodeSpec spec{.name = nd.name, .op = nd.op, .attrs = nd.attrs, .device = nd.device};
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
    auto added = graph.AddNode(std::move(spec));
    if (!added.ok()) return added.status();
  }
  return absl::OkStatus();
}

}  // namespace

Status ImportGraphDef(const GraphDef& def, Graph& graph) {
  absl::flat_hash_map<std::string, int> index;
  std::vector<ParsedInputs> inputs;
  inputs.reserve(def.nodes.size());
  for (size_t i = 0; i < def.nodes.size(); ++i) {
    const NodeDef& nd = def.nodes[i];
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
  ASSIGN_OR_RETURN(std::vector<int> order, TopologicalOrder(def, inputs, index));
  int before = graph.num_nodes();
  Status status = AddAll(def, inputs, order, graph);
  if (!status.ok()) graph.Truncate(before);
  return status;
}

}  // namespace graphd::compiler
