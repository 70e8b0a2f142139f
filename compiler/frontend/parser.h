// The parser: tokens -> AST (ast.h, whose header comment is the grammar). Recursive
// descent with one function per precedence level; every node gets the SourceRange of
// the tokens it was built from.
//
// Errors (all located with errors::WithLocation at the offending token and classed
// with errors::WithPythonClass):
//  * grammar errors: InvalidArgument, SyntaxError, with CPython's wording ("invalid
//    syntax", "expected ':'", "cannot assign to function call", ...); indentation
//    errors are IndentationError (TabError for ambiguous tabs);
//  * Python that graphd does not support (try/except/raise, async/await, yield, set
//    displays, :=, match, star imports, starred assignment targets, generator
//    expressions, ...): Unimplemented, NotImplementedError, naming the construct;
//  * nesting beyond the limits (kMaxNesting brackets or blocks, deeply nested or
//    very long expressions): ResourceExhausted, RecursionError. Parsing never recurses
//    more than a bounded depth, and the trees it builds have bounded height.
//
// Accepted beyond the ast.h grammar, with these mappings: `x: T = v` becomes
// `x = v`; an unparenthesised generator argument `f(x for x in y)` becomes the list
// comprehension `f([x for x in y])`; `with (a as b, c as d):`.
// Thread-safe: no shared state.
#ifndef GRAPHD_COMPILER_FRONTEND_PARSER_H_
#define GRAPHD_COMPILER_FRONTEND_PARSER_H_

#include <memory>

#include "compiler/frontend/ast.h"
#include "core/source.h"
#include "core/status.h"

namespace graphd::compiler {

// Parses a whole module (Python's "exec" mode).
StatusOr<ast::Module> ParseModule(std::shared_ptr<const SourceFile> file);

// Parses the whole of `file` as one expression list (Python's "eval" mode; newlines are
// insignificant). `a, b` gives a Tuple.
StatusOr<ast::ExprPtr> ParseExpression(std::shared_ptr<const SourceFile> file);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_FRONTEND_PARSER_H_
