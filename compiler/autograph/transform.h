// Rebuilding ASTs: map every expression of a tree bottom-up, rebuilding only the nodes
// whose children changed (unchanged subtrees are shared).
#ifndef GRAPHD_COMPILER_AUTOGRAPH_TRANSFORM_H_
#define GRAPHD_COMPILER_AUTOGRAPH_TRANSFORM_H_

#include <functional>

#include "compiler/frontend/ast.h"

namespace graphd::compiler::autograph {

// Called on each expression after its children were mapped; returns the replacement
// (or the same pointer).
using ExprFn = std::function<ast::ExprPtr(const ast::ExprPtr&)>;

ast::ExprPtr MapExpr(const ast::ExprPtr& expr, const ExprFn& fn);

// Maps the expressions of a statement and of its nested blocks; nested function
// bodies are left alone (their decorators and defaults are mapped).
ast::StmtPtr MapStmtExprs(const ast::StmtPtr& stmt, const ExprFn& fn);
ast::Body MapBodyExprs(const ast::Body& body, const ExprFn& fn);

// Copies of compound statements with new blocks (and, for loops, test/extra_test).
ast::StmtPtr WithBlocks(const ast::Stmt& stmt, ast::Body body, ast::Body orelse);
ast::StmtPtr WithLoopTests(const ast::Stmt& loop, ast::ExprPtr test_or_extra, ast::Body body,
                           ast::Body orelse);
ast::StmtPtr WithFunctionBody(const ast::FunctionDef& def, ast::Body body, std::string name);

// The statement blocks of a compound statement, in order: if/while/for body and
// orelse; with body; try body, each handler's body, orelse, finalbody. Empty for
// simple statements and for function and class definitions (scopes of their own).
std::vector<const ast::Body*> Blocks(const ast::Stmt& stmt);
// A copy of `stmt` whose blocks (as Blocks lists them) are `blocks`.
ast::StmtPtr WithAllBlocks(const ast::Stmt& stmt, std::vector<ast::Body> blocks);
// A copy of `stmt` with `fn` applied to each of its blocks (nullptr for simple ones).
ast::StmtPtr MapBlocks(const ast::Stmt& stmt, const std::function<ast::Body(const ast::Body&)>& fn);

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_TRANSFORM_H_
