// Imports a client's GraphDef into a Graph, all or nothing.
#ifndef GRAPHD_COMPILER_IMPORT_GRAPHDEF_IMPORT_H_
#define GRAPHD_COMPILER_IMPORT_GRAPHDEF_IMPORT_H_

#include "core/graph/graph.h"
#include "core/graph/node_def.h"

namespace graphd::compiler {

// Adds every node of `def` to `graph`. Inputs may name nodes of `def` (in any order)
// or nodes already in `graph`. Checks: valid names ([A-Za-z0-9.][A-Za-z0-9_./>-]*, as
// TensorFlow's), unique names (also against `graph`), known ops
// (Unimplemented), inputs naming existing nodes and outputs, control inputs after data
// inputs, no cycles, and each op's type inference. On any error `graph` is left exactly
// as it was and the error names the offending node.
Status ImportGraphDef(const GraphDef& def, Graph& graph);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_IMPORT_GRAPHDEF_IMPORT_H_
