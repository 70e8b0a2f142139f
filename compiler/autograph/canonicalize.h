// Steps 1 and 2 of the conversion (see converter.h): return, break and continue
// statements become flags and guards.
#ifndef GRAPHD_COMPILER_AUTOGRAPH_CANONICALIZE_H_
#define GRAPHD_COMPILER_AUTOGRAPH_CANONICALIZE_H_

#include "compiler/autograph/namer.h"
#include "compiler/frontend/ast.h"

namespace graphd::compiler::autograph {

// A function body with its returns canonicalised (unchanged when it only returns at
// its end).
ast::Body CanonicalizeReturns(const ast::Body& body, Namer& namer);
// Every loop of `body` (not of nested functions) without break/continue statements.
ast::Body CanonicalizeLoopExits(const ast::Body& body, Namer& namer);

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_CANONICALIZE_H_
