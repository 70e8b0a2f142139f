// Step 4 of the conversion (see converter.h): if/while/for statements become ag__
// calls on nested functions.
//
// The state of a statement (what get_state/set_state carry, TensorFlow's rules):
//  * names it modifies that are live into or out of it, and names the function
//    declares nonlocal that it modifies;
//  * composite names it modifies (`d['b']`, `obj.x`, symbols.h) whose names are all
//    live into it.
// A simple state name that may be unbound when the statement starts (no assignment
// reaches it on any path) is first set to `ag__.Undefined('name')`.
#ifndef GRAPHD_COMPILER_AUTOGRAPH_CONTROL_FLOW_H_
#define GRAPHD_COMPILER_AUTOGRAPH_CONTROL_FLOW_H_

#include "compiler/autograph/namer.h"
#include "compiler/autograph/symbols.h"
#include "compiler/frontend/ast.h"

namespace graphd::compiler::autograph {

// The function being converted, as its statements' conversions see it.
struct FunctionScope {
  Declared declared;  // its global and nonlocal declarations
  Namer* namer;
};

// `defined` are the names that may be bound before `body` (the parameters, for a
// whole function body); `live_out` those read after it.
ast::Body ConvertControlFlow(const ast::Body& body, const NameSet& live_out, const NameSet& defined,
                             FunctionScope& fn);

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_CONTROL_FLOW_H_
