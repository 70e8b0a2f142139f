// Shared by printer.cc (statements), print_expr.cc (expressions) and print_literal.cc
// (literals and f-strings). Not part of the frontend's interface: use printer.h.
#ifndef GRAPHD_COMPILER_FRONTEND_PRINT_INTERNAL_H_
#define GRAPHD_COMPILER_FRONTEND_PRINT_INTERNAL_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "compiler/frontend/ast.h"

namespace graphd::compiler::print_internal {

// Precedence levels, loosest first (as in CPython's ast.unparse).
enum Prec : int {
  kTuple = 1,  // a, b
  kTest,       // lambda, x if c else y
  kOr,
  kAnd,
  kNot,
  kCmp,
  kBor,
  kBxor,
  kBand,
  kShift,
  kArith,
  kTerm,
  kFactor,  // unary - + ~
  kPower,
  kAwait,
  kAtom,
};

// Appends `e`, in parentheses when its precedence is below `min_prec`.
void AppendExpr(const ast::Expr& e, int min_prec, std::string* out);
// The precedence of `e` as printed.
int PrecOf(const ast::Expr& e);
// def/lambda parameters, without the enclosing parentheses.
void AppendArguments(const ast::Arguments& args, std::string* out);

// Python's repr of a str (UTF-8) or bytes value, and of a float.
std::string ReprStr(absl::string_view s);
std::string ReprBytes(absl::string_view s);
std::string ReprFloat(double d);
// A multi-line str written as a triple-quoted literal with real newlines (for
// docstrings), or nullopt when it has no newline or has characters that need escapes.
std::optional<std::string> TripleQuoted(absl::string_view s);
// Appends the repr of a constant value.
void AppendConstant(const ast::ConstantValue& v, std::string* out);
// Appends an f-string literal for the parts of a JoinedStr.
void AppendFString(const std::vector<ast::ExprPtr>& values, std::string* out);

}  // namespace graphd::compiler::print_internal

#endif  // GRAPHD_COMPILER_FRONTEND_PRINT_INTERNAL_H_
