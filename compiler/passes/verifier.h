// Checks what every pass must preserve (see pass.h): the IR invariants of a body.
#ifndef GRAPHD_COMPILER_PASSES_VERIFIER_H_
#define GRAPHD_COMPILER_PASSES_VERIFIER_H_

#include "compiler/passes/function_body.h"

namespace graphd::compiler::passes {

// OK when: ids equal positions and names resolve to their nodes; every data and
// control input is an earlier node of the graph (so id order is topological) and
// names an existing output; re-running each node's inference accepts its inputs and
// gives its recorded dtypes, with recorded shapes compatible with the re-inferred
// ones (folding may make an input's value known, so inference may now be more
// precise); `args` are exactly the graph's Arg nodes, each once; results are
// outputs of the graph's nodes. Internal, naming the node, otherwise.
Status VerifyBody(const FunctionBody& body);

}  // namespace graphd::compiler::passes

#endif  // GRAPHD_COMPILER_PASSES_VERIFIER_H_
