// The parser's internals, shared by parser.cc (cursor, errors, targets, limits),
// parse_expr.cc, parse_args.cc, parse_fstring.cc, parse_stmt.cc and parse_compound.cc.
// Not part of the frontend's interface: use parser.h.
#ifndef GRAPHD_COMPILER_FRONTEND_PARSER_IMPL_H_
#define GRAPHD_COMPILER_FRONTEND_PARSER_IMPL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "compiler/frontend/ast.h"
#include "compiler/frontend/diagnostics.h"
#include "compiler/frontend/token.h"
#include "core/status.h"

namespace graphd::compiler::internal {

// Most nested expression-parsing recursions (each bracket level costs one or two).
inline constexpr int kMaxExprDepth = 300;
// Tallest expression tree (left-associative chains like a + b + ... grow it without
// recursion).
inline constexpr int kMaxExprHeight = 1000;

// Whether `tok` can begin an expression (used to tell a trailing comma).
bool StartsExpression(const Token& tok);
// CPython's name for an expression in "cannot assign to ..." messages.
std::string ExprName(const ast::Expr& e);

class Parser {
 public:
  // `depth` is the expression nesting already used by an enclosing parser (f-strings).
  Parser(std::shared_ptr<const SourceFile> file, std::vector<Token> tokens, int depth = 0);

  StatusOr<ast::Body> ParseFile();
  // An expression list followed by ENDMARKER.
  StatusOr<ast::ExprPtr> ParseEval();
  // Height of a tree built by this parser (1 for unknown nodes, 0 for null).
  int HeightOf(const ast::ExprPtr& e) const;

 private:
  // Restores the recursion depth on scope exit.
  class DepthScope {
   public:
    explicit DepthScope(int* depth) : depth_(depth) {}
    ~DepthScope() { --*depth_; }
    DepthScope(const DepthScope&) = delete;
    DepthScope& operator=(const DepthScope&) = delete;

   private:
    int* depth_;
  };

  // ---- cursor and errors (parser.cc)
  const Token& Peek(int k = 0) const;
  const Token& Advance();
  bool At(TokenKind kind) const { return Peek().kind == kind; }
  bool AtOp(absl::string_view op) const { return Peek().IsOp(op); }
  bool AtKeyword(absl::string_view kw) const { return Peek().IsKeyword(kw); }
  bool AcceptOp(absl::string_view op);
  bool AcceptKeyword(absl::string_view kw);
  Status ExpectOp(absl::string_view op);
  Status ExpectKeyword(absl::string_view kw);
  StatusOr<std::string> ExpectName();
  // The error for the current token where it cannot stand.
  Status Unexpected() const;
  // From `begin` to the end of the last consumed token.
  SourceRange From(const SourceRange& begin) const;
  SourceRange From(const Token& begin) const { return From(begin.range); }
  SourceRange Range(int begin, int end) const { return SourceRange{file_, begin, end}; }

  // ---- limits (parser.cc)
  Status Enter();  // one more level of recursion, or RecursionError
  template <typename T, typename... A>
  ast::ExprPtr New(A&&... args) {
    auto node = std::make_shared<const T>(std::forward<A>(args)...);
    Track(*node);
    return node;
  }
  void Track(const ast::Expr& e);
  Status CheckHeight(const ast::ExprPtr& e) const;

  // ---- targets (parser.cc)
  StatusOr<ast::ExprPtr> ToTarget(const ast::ExprPtr& e, ast::Ctx ctx);
  Status CheckAugTarget(const ast::ExprPtr& e) const;
  Status CheckValue(const ast::ExprPtr& e) const;  // no bare *x

  // ---- expressions (parse_expr.cc)
  StatusOr<ast::ExprPtr> ParseTest();
  StatusOr<ast::ExprPtr> ParseOrTest();
  StatusOr<ast::ExprPtr> ParseAndTest();
  StatusOr<ast::ExprPtr> ParseNotTest();
  StatusOr<ast::ExprPtr> ParseComparison();
  StatusOr<ast::ExprPtr> ParseBinary(int level);  // 0 is '|', 5 is '*'
  StatusOr<ast::ExprPtr> ParseBitOr() { return ParseBinary(0); }
  StatusOr<ast::ExprPtr> ParseFactor();
  StatusOr<ast::ExprPtr> ParsePower();
  StatusOr<ast::ExprPtr> ParsePrimary();
  StatusOr<ast::ExprPtr> ParseAtom();
  StatusOr<ast::ExprPtr> ParseParenthesized();
  StatusOr<ast::ExprPtr> ParseListDisplay();
  StatusOr<ast::ExprPtr> ParseBraceDisplay();
  StatusOr<ast::ExprPtr> ParseLambda();
  // '*' bitor | test
  StatusOr<ast::ExprPtr> ParseStarOrTest();
  // '*' bitor | bitor: one assignment target (for, comprehension, with, del).
  StatusOr<ast::ExprPtr> ParseStarTarget();
  // One item, or a Tuple of them when a comma follows.
  StatusOr<ast::ExprPtr> ParseTestList(bool allow_star);
  StatusOr<ast::ExprPtr> ParseTargetList();

  // ---- calls, subscripts, comprehensions, parameters (parse_args.cc)
  StatusOr<ast::ExprPtr> ParseCall(ast::ExprPtr func);
  StatusOr<ast::ExprPtr> ParseSubscript(ast::ExprPtr value);
  StatusOr<ast::ExprPtr> ParseSliceItem();
  StatusOr<std::vector<ast::Comprehension>> ParseCompFor();
  StatusOr<ast::Arguments> ParseParameters(bool lambda);
  StatusOr<ast::Arg> ParseParam(bool lambda);

  // ---- string literals and f-strings (parse_fstring.cc)
  StatusOr<ast::ExprPtr> ParseStrings();
  struct FString;  // the f-string being parsed
  StatusOr<int> WalkFString(FString& f, int p, int nesting, bool in_spec,
                            std::vector<ast::ExprPtr>* parts, std::string* pending);
  StatusOr<int> ParseField(FString& f, int p, int nesting, std::vector<ast::ExprPtr>* parts,
                           std::string* pending);
  StatusOr<ast::ExprPtr> ParseFieldExpression(int begin, int end);

  // ---- simple statements (parse_stmt.cc)
  Status ParseStatement(ast::Body* out);
  Status ParseSimpleStatements(ast::Body* out);
  StatusOr<ast::StmtPtr> ParseSmallStatement();
  StatusOr<ast::StmtPtr> ParseExprStatement();
  StatusOr<ast::StmtPtr> ParseDelete();
  StatusOr<ast::StmtPtr> ParseGlobal();
  StatusOr<ast::StmtPtr> ParseImport();
  StatusOr<ast::StmtPtr> ParseFromImport();
  StatusOr<std::string> ParseDottedName();
  bool AtMatchStatement() const;

  // ---- compound statements (parse_compound.cc)
  StatusOr<ast::StmtPtr> ParseIf();
  StatusOr<ast::StmtPtr> ParseWhile();
  StatusOr<ast::StmtPtr> ParseFor();
  StatusOr<ast::StmtPtr> ParseWith();
  StatusOr<ast::StmtPtr> ParseTry();
  StatusOr<std::vector<ast::WithItem>> ParseWithItems(bool parenthesized);
  StatusOr<ast::StmtPtr> ParseDecorated();
  StatusOr<ast::StmtPtr> ParseFunctionDef(std::vector<ast::ExprPtr> decorators);
  StatusOr<ast::StmtPtr> ParseClassDef(std::vector<ast::ExprPtr> decorators);
  Status AsyncNotSupported() const;
  // After the header's ':': a simple-statement line, or NEWLINE INDENT stmt+ DEDENT.
  // `what` names the header for "expected an indented block after <what> on line N".
  StatusOr<ast::Body> ParseSuite(absl::string_view what, const Token& header);

  std::shared_ptr<const SourceFile> file_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_;
  int function_depth_ = 0;  // enclosing defs (return allowed)
  int loop_depth_ = 0;      // enclosing loops within the innermost def/class
  int scope_depth_ = 0;     // enclosing defs and classes (nonlocal allowed)
  absl::flat_hash_map<const ast::Expr*, int> heights_;
};

}  // namespace graphd::compiler::internal

#endif  // GRAPHD_COMPILER_FRONTEND_PARSER_IMPL_H_
