// Helpers the passes share: which nodes a pass must leave alone, value equality of
// attributes, and fresh node names.
#ifndef GRAPHD_COMPILER_PASSES_PASS_UTIL_H_
#define GRAPHD_COMPILER_PASSES_PASS_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace graphd::compiler::passes {

// For each node id: whether some node has it as a control input.
std::vector<bool> ControlOutputs(const Graph& graph);

// True when passes must keep `node` as it is and where it is: stateful ops (which
// include If and While, reads and assigns of variables, PrintV2, Assert), nodes with
// control inputs or control outputs (`control_outputs` from ControlOutputs), nodes
// holding functions, nodes with ref inputs, and the graph's inputs (Arg, Placeholder).
bool IsPinned(const Node& node, const std::vector<bool>& control_outputs);

// Equality by value: tensors by dtype, shape and contents; functions by identity.
bool TensorsEqual(const Tensor& a, const Tensor& b);
bool AttrValuesEqual(const AttrValue& a, const AttrValue& b);
bool AttrsEqual(const AttrMap& a, const AttrMap& b);
// A hash consistent with AttrsEqual (cheap: samples tensor contents).
size_t AttrsHash(const AttrMap& attrs);

// The value of a float32 Const holding one element (of any rank), if `ref` is one.
std::optional<float> ScalarConst(OutputRef ref);

// `base`, or `base_1`, `base_2`, ... : the first name not in `graph`.
std::string FreshName(const Graph& graph, const std::string& base);

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_PASS_UTIL_H_
