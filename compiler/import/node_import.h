// Adding NodeDefs to a Graph, shared by the GraphDef importer for the top-level graph
// and for function bodies of its library.
#ifndef GRAPHD_COMPILER_IMPORT_NODE_IMPORT_H_
#define GRAPHD_COMPILER_IMPORT_NODE_IMPORT_H_

#include <functional>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/node_def.h"

namespace graphd::compiler {

// The function named `name`, or nullptr when there is none.
using FunctionLookup = std::function<FunctionRef(absl::string_view name)>;

// TensorFlow's rule for node names ([A-Za-z0-9.][A-Za-z0-9_./>-]*); it keeps
// "node:index" and "^node" unambiguous. Function names follow it too.
bool IsValidNodeName(absl::string_view name);

// Adds every node of `nodes` to `graph`. Inputs may name nodes of `nodes` (in any
// order) or nodes already in `graph`. Checks: valid and unique names (also against
// `graph`), known ops (Unimplemented), inputs naming existing nodes and outputs,
// control inputs after data inputs, no cycles, function attributes (FuncName) naming
// functions `lookup` knows (they are replaced by the FunctionRef), and each op's type
// inference. On any error `graph` is left exactly as it was and the error names the
// offending node.
Status ImportNodes(const std::vector<NodeDef>& nodes, Graph& graph, const FunctionLookup& lookup);

// `status` with "function 'name': " before its message (code and payloads kept).
Status InFunction(const Status& status, absl::string_view name);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_IMPORT_NODE_IMPORT_H_
