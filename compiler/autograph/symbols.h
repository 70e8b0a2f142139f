// The symbols a control-flow statement carries as its state, as TensorFlow's AutoGraph
// names them: simple names (`x`) and composite names (`x.a`, `x['b']`, `y[0]`,
// `self.w[i]`), an attribute or subscript chain over a name whose subscripts are
// constants or themselves such symbols. A composite assigned inside a staged branch
// or loop body is a branch output or loop variable like a name, so `d['b'] = 1` under a
// tensor `if` takes the value of the branch that ran.
#ifndef GRAPHD_COMPILER_AUTOGRAPH_SYMBOLS_H_
#define GRAPHD_COMPILER_AUTOGRAPH_SYMBOLS_H_

#include <optional>
#include <string>
#include <vector>

#include "compiler/autograph/analysis.h"

namespace graphd::compiler::autograph {

// One state symbol. For a simple name `expr` is null.
struct Symbol {
  std::string key;     // the name, or the composite as printed ("x['b']")
  ast::ExprPtr expr;   // the composite expression (Load context)
  NameSet support;     // the names the composite reads (x; i in y[i])
  bool composite() const { return expr != nullptr; }
};

// A Symbol for `target` when it is a composite (an Attribute or Subscript over a
// qualifiable chain); nullopt for names and anything else.
std::optional<Symbol> CompositeOf(const ast::Expr& target);

// The composites `body` assigns (assignment, augmented assignment, for targets, del),
// through nested if/while/for/with blocks but not nested functions; each key once.
std::vector<Symbol> AssignedComposites(const ast::Body& body);

// The names declared `global` / `nonlocal` anywhere in a function body (not in nested
// functions or classes).
struct Declared {
  NameSet globals, nonlocals;
};
Declared DeclaredNames(const ast::Body& body);

// `expr` (a Name, Attribute or Subscript) rebuilt with context `ctx` at its top.
ast::ExprPtr WithCtx(const ast::ExprPtr& expr, ast::Ctx ctx);

}  // namespace graphd::compiler::autograph

#endif  // GRAPHD_COMPILER_AUTOGRAPH_SYMBOLS_H_
