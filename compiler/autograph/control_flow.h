// Step 4 of the conversion (see converter.h): if/while/for statements become ag__
// calls on nested functions.
#ifndef GRAPHD_COMPILER_AUTOGRAPH_CONTROL_FLOW_H_
#define GRAPHD_COMPILER_AUTOGRAPH_CONTROL_FLOW_H_

#include "compiler/autograph/namer.h"
#include "compiler/frontend/ast.h"

namespace graphd::compiler::autograph {

// `defined` are the names certainly bound before `body` (the parameters, for a whole
// function body); `live_out` those read after it.
ast::Body ConvertControlFlow(const ast::Body& body, const NameSet& live_out, const NameSet& defined,
                             Namer& namer);

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_CONTROL_FLOW_H_
