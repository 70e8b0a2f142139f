// Terse constructors for the AST nodes AutoGraph's conversions emit. Every node takes
// the SourceRange of the user code it stands for, so errors raised while running
// converted code point at the user's line.
#ifndef GRAPHD_COMPILER_AUTOGRAPH_BUILDER_H_
#define GRAPHD_COMPILER_AUTOGRAPH_BUILDER_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/frontend/ast.h"

namespace graphd::compiler::autograph {

class Builder {
 public:
  explicit Builder(SourceRange range) : r_(std::move(range)) {}

  ast::ExprPtr Load(const std::string& name) const;
  ast::ExprPtr Store(const std::string& name) const;
  // "ag__.if_stmt" and similar dotted names.
  ast::ExprPtr Dotted(const std::string& dotted) const;
  ast::ExprPtr Str(const std::string& value) const;
  ast::ExprPtr Int(int64_t value) const;
  ast::ExprPtr Bool(bool value) const;
  ast::ExprPtr None() const;
  ast::ExprPtr Call(ast::ExprPtr func, std::vector<ast::ExprPtr> args) const;
  ast::ExprPtr Call(const std::string& dotted, std::vector<ast::ExprPtr> args) const {
    return Call(Dotted(dotted), std::move(args));
  }
  ast::ExprPtr Tuple(std::vector<ast::ExprPtr> elts, ast::Ctx ctx = ast::Ctx::kLoad) const;
  ast::ExprPtr Lambda(ast::ExprPtr body) const;  // lambda: body
  ast::ExprPtr Not(ast::ExprPtr operand) const;
  // A tuple of string constants, one per name (symbol_names arguments).
  ast::ExprPtr NameStrings(const std::vector<std::string>& names) const;
  ast::ExprPtr LoadTuple(const std::vector<std::string>& names) const;

  ast::StmtPtr Assign(ast::ExprPtr target, ast::ExprPtr value) const;
  ast::StmtPtr Assign(const std::string& name, ast::ExprPtr value) const {
    return Assign(Store(name), std::move(value));
  }
  ast::StmtPtr Expr(ast::ExprPtr value) const;
  ast::StmtPtr If(ast::ExprPtr test, ast::Body body, ast::Body orelse = {}) const;
  ast::StmtPtr Return(ast::ExprPtr value) const;
  ast::StmtPtr Nonlocal(std::vector<std::string> names) const;
  ast::StmtPtr Global(std::vector<std::string> names) const;
  ast::StmtPtr Pass() const;
  // def name(params): body  (positional parameters only)
  ast::StmtPtr Def(const std::string& name, std::vector<std::string> params, ast::Body body) const;

  const SourceRange& range() const { return r_; }

 private:
  SourceRange r_;
};

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_BUILDER_H_
