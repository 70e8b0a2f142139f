// Static analyses AutoGraph's conversions need, over the structured AST of one
// function body: which names a piece of code assigns, which it reads, and which are
// live (read later before being reassigned). Nested function bodies are scopes of their
// own: their locals are not the enclosing function's, but the names they read freely
// count as reads where the function is defined (closures).
#ifndef GRAPHD_COMPILER_AUTOGRAPH_ANALYSIS_H_
#define GRAPHD_COMPILER_AUTOGRAPH_ANALYSIS_H_

#include <set>
#include <string>
#include <vector>

#include "compiler/frontend/ast.h"

namespace graphd::compiler::autograph {

using NameSet = std::set<std::string>;

// Names bound by an assignment target (Name, Tuple/List of targets, Starred).
void AddTargetNames(const ast::Expr& target, NameSet& out);

// Names `body` binds in its own scope: assignment, augmented assignment, for and with
// targets, del, def/class names, imports; through if/while/for/with blocks but not into
// nested functions, lambdas or comprehensions.
NameSet AssignedNames(const ast::Body& body);
NameSet AssignedNames(const ast::Stmt& stmt);

// Names an expression reads (Load), including the free names of lambdas and
// comprehensions inside it.
NameSet ReadNames(const ast::Expr& expr);

// The free names a function body reads: read anywhere in it (nested functions
// included) but not bound in it or declared global. `params` are bound.
NameSet FreeNames(const ast::Arguments& params, const ast::Body& body);

// Liveness over structured code (no break/continue/return except a final return).
// Returns the names live before `body` when `live_out` are live after it.
NameSet LiveIn(const ast::Body& body, const NameSet& live_out);
NameSet LiveIn(const ast::Stmt& stmt, const NameSet& live_out);
// The set live after each statement of `body`, by index.
std::vector<NameSet> LiveOuts(const ast::Body& body, const NameSet& live_out);
// Live at the head of a loop (before its test or its next item): what the test, the
// body's next iteration, the else clause and the code after read.
NameSet LoopHeadLive(const ast::Stmt& loop, const NameSet& live_out);

// The names live after each block of a try statement (in the order of Blocks():
// body, handlers, else, finally) when `live_out` are live after the statement; and
// those live wherever an exception may leave its body.
std::vector<NameSet> TryLiveOuts(const ast::Try& t, const NameSet& live_out);
NameSet TryErrorLive(const ast::Try& t, const NameSet& live_out);

// Names certainly bound after `stmt` runs, given those bound before.
NameSet DefinedAfter(const ast::Stmt& stmt, const NameSet& defined_before);

// True when `body` (not counting nested functions) contains a statement of kind K
// directly in it or in nested if/with blocks, or (for return) in nested loops too.
bool ContainsReturn(const ast::Body& body);
// break/continue that belong to the innermost enclosing loop (not to nested loops).
bool ContainsLoopExit(const ast::Body& body, ast::StmtKind kind);

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_ANALYSIS_H_
