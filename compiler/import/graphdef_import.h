// Imports a client's GraphDef (nodes and function library) into a Graph, all or nothing.
#ifndef GRAPHD_COMPILER_IMPORT_GRAPHDEF_IMPORT_H_
#define GRAPHD_COMPILER_IMPORT_GRAPHDEF_IMPORT_H_

#include "compiler/import/function_library.h"
#include "core/graph/graph.h"
#include "core/graph/node_def.h"

namespace graphd::compiler {

// Imports `def.library` (see ImportFunctionLibrary; its functions may name those of
// `library`), then adds every node of `def` to `graph`. Inputs may name nodes of `def`
// (in any order) or nodes already in `graph`. Checks: valid names
// ([A-Za-z0-9.][A-Za-z0-9_./>-]*, as TensorFlow's), unique names (also against `graph`),
// known ops (Unimplemented), inputs naming existing nodes and outputs, control inputs
// after data inputs, no cycles, function attributes naming functions of `def.library`
// or `library`, and each op's type inference (If/While check their functions'
// arities and types). On success the new functions join `library`; on any error
// `graph` and `library` are left exactly as they were and the error names the
// offending node or function. A null `library` stands for an empty one that is
// dropped after the import.
Status ImportGraphDef(const GraphDef& def, Graph& graph, FunctionLibrary* library = nullptr);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_IMPORT_GRAPHDEF_IMPORT_H_
