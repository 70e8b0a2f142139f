// The printer: AST -> readable Python source, used for AutoGraph's `to_code` and for
// golden tests. Output re-parses to the same AST (ParseModule(Print(m)) prints the
// same again): 4-space indentation, the fewest parentheses precedence and
// associativity allow (`a - (b - c)`, `(a ** b) ** c`, `(-x) ** 2`), tuples without
// parentheses at statement level (`a, b = b, a`), string literals as Python's repr
// writes them, floats in shortest round-trip form (0.1, 1e-05, float('inf')), elif
// chains re-formed, f-strings re-printed as f-strings, a blank line around defs and
// classes at module level and between the methods of a class.
//
// Limitations: f-string replacement fields are printed as 3.12 allows (a string
// constant with a backslash inside a field does not re-parse before 3.12); only
// Python's ASCII and common non-printable characters are escaped in strings.
// Thread-safe: no shared state.
#ifndef GRAPHD_COMPILER_FRONTEND_PRINTER_H_
#define GRAPHD_COMPILER_FRONTEND_PRINTER_H_

#include <string>

#include "compiler/frontend/ast.h"

namespace graphd::compiler {

// The whole module; every line ends with '\n' ("" for an empty module).
std::string PrintModule(const ast::Module& module);

// One statement and its nested blocks, each line indented by 4 * `indent` spaces and
// ending with '\n'.
std::string PrintStmt(const ast::Stmt& stmt, int indent = 0);

// One expression, parenthesised as it would need to be as a call argument (so a
// non-empty tuple prints as `(a, b)`).
std::string PrintExpr(const ast::Expr& expr);

}  // namespace graphd::compiler

#endif  // GRAPHD_COMPILER_FRONTEND_PRINTER_H_
