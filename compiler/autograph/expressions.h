// Step 3 of the conversion (see converter.h): conditional and logical expressions,
// assert and list.append.
#ifndef GRAPHD_COMPILER_AUTOGRAPH_EXPRESSIONS_H_
#define GRAPHD_COMPILER_AUTOGRAPH_EXPRESSIONS_H_

#include "compiler/autograph/analysis.h"
#include "compiler/frontend/ast.h"

namespace graphd::compiler::autograph {

// `locals`: the function's local names; `x.append(v)` is converted only for those
// (appending to a global or captured list stays a trace-time Python mutation).
ast::Body ConvertExpressions(const ast::Body& body, const NameSet& locals);

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_EXPRESSIONS_H_
