// Bookkeeping shared by the passes that replace groups of nodes with new ones (the
// fusions, BatchNorm folding): which nodes go, and where each added node sorts when
// Graph::Compact restores the topological order. An added node takes the place of a
// node it replaces, so the nodes the pass leaves alone keep their relative order.
// Not thread-safe; one per pass run, over one graph.
#ifndef GRAPHD_COMPILER_PASSES_NODE_REWRITE_H_
#define GRAPHD_COMPILER_PASSES_NODE_REWRITE_H_

#include <numeric>
#include <vector>

#include "core/graph/graph.h"

namespace graphd::compiler::passes {

class NodeRewrite {
 public:
  // Every node of `g` kept, in its own place.
  explicit NodeRewrite(const Graph& g) : remove_(g.num_nodes(), false), rank_(g.num_nodes()) {
    std::iota(rank_.begin(), rank_.end(), 0);
  }

  // Call once right after each Graph::AddNode, in order: the new node sorts at
  // `place`'s position.
  void Added(const Node& place) {
    remove_.push_back(false);
    rank_.push_back(place.id());
  }
  void Remove(const Node& node) { remove_[node.id()] = true; }
  bool removed(const Node& node) const { return remove_[node.id()]; }

  // Deletes the removed nodes and restores the order (Graph::Compact).
  Status Apply(Graph& g) { return g.Compact(remove_, &rank_); }

 private:
  std::vector<bool> remove_;  // by node id
  std::vector<int> rank_;     // by node id: the position it sorts at
};

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_NODE_REWRITE_H_
