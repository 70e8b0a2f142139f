// A compact, deterministic text form of the IR, for golden tests and IR dumps. One
// line per node in id order:
//
//   name = Op[attr=value, ...](input, input:1, ^control) : float32[2,?]
//
// Attributes are sorted by name; small tensors print their values
// (`float32[2]{1, 2}`; more than 8 elements end in `...`). Functions held in
// attributes print as `@name`, and their bodies follow the node, indented, as
// `attr = @name(arg, ...) { ... return r, ... }`, once per text: a function printed
// already shows as `attr = @name (printed above)`. Source ranges are not printed.
#ifndef GRAPHD_CORE_GRAPH_IR_TEXT_H_
#define GRAPHD_CORE_GRAPH_IR_TEXT_H_

#include <string>
#include <vector>

#include "core/graph/function.h"

namespace graphd {

// The value of an attribute as the IR text prints it.
std::string AttrValueToText(const AttrValue& value);

// The nodes of `graph`, then `return r, ...` when `results` is not null.
std::string GraphToText(const Graph& graph, const std::vector<OutputRef>* results = nullptr,
                        int indent = 0);

// `@name(arg, ...) {`, the body, `return ...`, `}`.
std::string FunctionToText(const Function& function, int indent = 0);

}  // namespace graphd

#endif  // GRAPHD_CORE_GRAPH_IR_TEXT_H_
