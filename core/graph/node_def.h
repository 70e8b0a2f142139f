// A graph as clients describe it: nodes naming their inputs by string, before
// validation. The service layer translates graphd.v1.GraphDef into this; the
// compiler's GraphDef importer turns it into a Graph.
#ifndef GRAPHD_CORE_GRAPH_NODE_DEF_H_
#define GRAPHD_CORE_GRAPH_NODE_DEF_H_

#include <string>
#include <vector>

#include "core/attr_value.h"

namespace graphd {

struct NodeDef {
  std::string name;
  std::string op;
  // "node", "node:index" or "^node" (control input, after all data inputs).
  std::vector<std::string> inputs;
  std::string device;
  AttrMap attrs;
};

struct GraphDef {
  std::vector<NodeDef> nodes;
};

// A parsed tensor name "node:index".
struct TensorName {
  std::string node;
  int index = 0;
  std::string ToString() const { return node + ":" + std::to_string(index); }
  bool operator==(const TensorName&) const = default;
};

// Parses "node" (index 0) or "node:index". InvalidArgument on malformed names.
StatusOr<TensorName> ParseTensorName(absl::string_view name);

}  // namespace graphd

#endif  // GRAPHD_CORE_GRAPH_NODE_DEF_H_
