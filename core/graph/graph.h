// The graph IR: nodes with typed outputs, data edges (producer node, output index)
// and control edges. Nodes are added one at a time with their inputs already in the
// graph, and each addition runs the op's inference function, so a Graph is always
// well-typed and acyclic.
//
// Passes (compiler/passes/) also rewrite a finished graph with two operations:
// ReplaceAllUses rewires consumers, and Compact deletes nodes and restores the
// topological order. Between a ReplaceAllUses and the next Compact, insertion order
// may not be topological (a consumer may read a node added after it).
//
// Ownership: the Graph owns its nodes; Node pointers stay valid until the node is
// removed by Truncate or Compact (a node that Compact keeps keeps its address).
// Thread safety: concurrent const access is safe; AddNode, Truncate, ReplaceAllUses
// and Compact need exclusive access.
#ifndef GRAPHD_CORE_GRAPH_GRAPH_H_
#define GRAPHD_CORE_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/graph/op_def.h"
#include "core/graph/op_registry.h"

namespace graphd {

class Node;

// One output of a node.
struct OutputRef {
  const Node* node = nullptr;
  int index = 0;
  bool operator==(const OutputRef&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const OutputRef& r) {
    return H::combine(std::move(h), r.node, r.index);
  }
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return name_; }
  const OpDef& op() const { return *op_; }
  const std::string& op_name() const { return op_->name; }
  bool Is(OpId id) const { return op_->id == id; }
  const std::vector<OutputRef>& inputs() const { return inputs_; }
  const std::vector<const Node*>& control_inputs() const { return control_inputs_; }
  const AttrMap& attrs() const { return attrs_; }
  const std::string& device() const { return device_; }
  const SourceRange& range() const { return range_; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const TensorType& output(int i) const { return outputs_[i]; }

 private:
  friend class Graph;
  int id_ = 0;
  std::string name_;
  const OpDef* op_ = nullptr;
  std::vector<OutputRef> inputs_;
  std::vector<const Node*> control_inputs_;
  AttrMap attrs_;
  std::string device_;
  SourceRange range_;
  std::vector<TensorType> outputs_;
};

// Everything needed to add a node, its inputs already resolved to graph nodes.
struct NodeSpec {
  std::string name;
  std::string op;
  std::vector<OutputRef> inputs;
  std::vector<const Node*> control_inputs;
  AttrMap attrs;
  std::string device;
  // Where in the user's source the node comes from (traced code); may be empty.
  SourceRange range;
};

class Graph {
 public:
  explicit Graph(const OpRegistry& ops = OpRegistry::Global()) : ops_(ops) {}
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Validates and adds a node: unique name, known op (Unimplemented otherwise), input
  // count, ref inputs fed by a VariableV2, then inference. Errors name the node.
  StatusOr<const Node*> AddNode(NodeSpec spec);

  // nullptr when absent.
  const Node* FindNode(absl::string_view name) const;
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  // Nodes in insertion order, which is a topological order (but see ReplaceAllUses).
  // Always node(id)->id() == id.
  const Node* node(int id) const { return nodes_[id].get(); }

  // Removes every node with id >= `num_nodes` (rolls back a failed extension).
  void Truncate(int num_nodes);

  // Makes every data input that reads `from` read `to` instead and returns how many
  // inputs changed. Control inputs are not touched. Both must be outputs of nodes of
  // this graph with the same dtype and shape (InvalidArgument otherwise, nothing
  // changed), so no consumer's inferred type changes. May leave insertion order
  // non-topological (when `to` was added after a consumer): call Compact after.
  StatusOr<int> ReplaceAllUses(OutputRef from, OutputRef to);

  // Deletes the nodes with `remove[id]` true (`remove` has num_nodes() entries) and
  // re-sorts the others topologically and stably: whenever several nodes have all
  // their inputs placed, the one with the lowest (rank, id) comes next, so a node
  // moves only behind inputs it reads that rank after it. `rank` (num_nodes()
  // entries) defaults to the id; a node added to replace another can take that
  // node's id as its rank to take its place. Ids are renumbered to the new
  // positions; kept nodes keep their addresses. FailedPrecondition, with the graph
  // unchanged, when a kept node reads (data or control) a removed one, or the edges
  // form a cycle.
  Status Compact(const std::vector<bool>& remove, const std::vector<int>* rank = nullptr);

  const OpRegistry& ops() const { return ops_; }

 private:
  // Who reads each node's outputs: (consumer, input slot), built by the first
  // ReplaceAllUses and kept up to date by AddNode and ReplaceAllUses (Truncate and
  // Compact drop it), so a pass replacing every node stays linear instead of scanning
  // the whole graph per replacement.
  void BuildUses();
  const OpRegistry& ops_;
  std::vector<std::unique_ptr<Node>> nodes_;
  absl::flat_hash_map<std::string, Node*> by_name_;
  absl::flat_hash_map<const Node*, std::vector<std::pair<Node*, int>>> uses_;
  bool uses_built_ = false;
};

}  // namespace graphd

#endif  // GRAPHD_CORE_GRAPH_GRAPH_H_
