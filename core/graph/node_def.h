// A graph as clients describe it: nodes naming their inputs by string, before
// validation. The service layer translates graphd.v1.GraphDef into this; the
// compiler's GraphDef importer turns it into a Graph.
#ifndef GRAPHD_CORE_GRAPH_NODE_DEF_H_
#define GRAPHD_CORE_GRAPH_NODE_DEF_H_

#include <string>
#include <vector>

#include "core/attr_value.h"
#include "core/graph/op_def.h"

namespace graphd {

struct NodeDef {
  std::string name;
  std::string op;
  // "node", "node:index" or "^node" (control input, after all data inputs).
  std::vector<std::string> inputs;
  std::string device;
  AttrMap attrs;
};

// A function of a graph's library: a body of nodes reading its arguments by name.
// Control-flow nodes (If, While) name library functions in FuncName attributes.
struct FunctionDef {
  std::string name;
  // Argument i is read by body nodes as the node `arg_names[i]` (output 0).
  std::vector<std::string> arg_names;
  std::vector<TensorType> arg_types;
  // Body tensors returned, in order ("node" or "node:index").
  std::vector<std::string> results;
  // The declared result types: empty (undeclared) or one per result.
  std::vector<TensorType> result_types;
  std::vector<NodeDef> nodes;
};

struct GraphDef {
  std::vector<NodeDef> nodes;
  std::vector<FunctionDef> library;
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
