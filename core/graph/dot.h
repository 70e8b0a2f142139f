// Graphviz DOT text for the IR, so a concrete function can be drawn (`dot -Tsvg`).
// Nodes are boxes labelled with their name, op, and each output's dtype and shape;
// arguments are ellipses and results a "return" node; control edges are dashed.
// Functions held in attributes (If branches, While cond and body) are drawn as
// clusters beside the node that holds them, labelled `node.attr @function`, with a
// dotted edge from the node to the cluster. Deterministic: the same function always
// gives the same text.
#ifndef GRAPHD_CORE_GRAPH_DOT_H_
#define GRAPHD_CORE_GRAPH_DOT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "core/graph/function.h"

namespace graphd {

// A complete `digraph` for `function`, titled `title` (the function's name if empty).
std::string FunctionToDot(const Function& function, absl::string_view title = "");

// A complete `digraph` for a whole graph (a session's GraphDef), no arguments or results.
std::string GraphToDot(const Graph& graph, absl::string_view title);

}  // namespace graphd

#endif  // GRAPHD_CORE_GRAPH_DOT_H_
