// Statement dispatch and simple statements (expression statements, assignments,
// pass/break/continue/return/assert/del/global/nonlocal/import).
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/frontend/parser_impl.h"

namespace graphd::compiler::internal {

using ast::Ctx;
using ast::ExprPtr;
using ast::StmtPtr;

namespace {

std::optional<ast::BinOpKind> AugOp(const Token& t) {
  static constexpr std::pair<absl::string_view, ast::BinOpKind> kOps[] = {
      {"+=", ast::BinOpKind::kAdd},      {"-=", ast::BinOpKind::kSub},     {"*=", ast::BinOpKind::kMult},
      {"@=", ast::BinOpKind::kMatMult},  {"/=", ast::BinOpKind::kDiv},     {"//=", ast::BinOpKind::kFloorDiv},
      {"%=", ast::BinOpKind::kMod},      {"**=", ast::BinOpKind::kPow},    {"<<=", ast::BinOpKind::kLShift},
      {">>=", ast::BinOpKind::kRShift},  {"|=", ast::BinOpKind::kBitOr},   {"^=", ast::BinOpKind::kBitXor},
      {"&=", ast::BinOpKind::kBitAnd}};
  if (t.kind != TokenKind::kOp) return std::nullopt;
  for (const auto& [text, op] : kOps) {
    if (t.text == text) return op;
  }
  return std::nullopt;
}

}  // namespace

Status Parser::ParseStatement(ast::Body* out) {
  const Token& t = Peek();
  StatusOr<StmtPtr> s;
  if (t.kind == TokenKind::kIndent) return Unexpected();
  if (t.IsOp("@")) {
    s = ParseDecorated();
  } else if (t.kind == TokenKind::kKeyword) {
    if (t.text == "if") {
      s = ParseIf();
    } else if (t.text == "while") {
      s = ParseWhile();
    } else if (t.text == "for") {
      s = ParseFor();
    } else if (t.text == "with") {
      s = ParseWith();
    } else if (t.text == "def") {
      s = ParseFunctionDef({});
    } else if (t.text == "class") {
      s = ParseClassDef({});
    } else if (t.text == "try") {
      s = ParseTry();
    } else if (t.text == "async") {
      return AsyncNotSupported();
    } else {
      return ParseSimpleStatements(out);
    }
  } else if (AtMatchStatement()) {
    return NotSupported(t.range, "'match' statements are not supported by graphd");
  } else {
    return ParseSimpleStatements(out);
  }
  if (!s.ok()) return s.status();
  out->push_back(*std::move(s));
  return absl::OkStatus();
}

// `match` is a soft keyword: `match x:` opens a match statement, `match(x)` is a call.
bool Parser::AtMatchStatement() const {
  if (!Peek().Is(TokenKind::kName, "match")) return false;
  const Token& next = Peek(1);
  if (next.kind == TokenKind::kNewline || AugOp(next) ||
      (next.kind == TokenKind::kOp && (next.text == "=" || next.text == ":" || next.text == "." ||
                                       next.text == "," || next.text == ")" || next.text == "]"))) {
    return false;
  }
  size_t i = pos_ + 1;
  while (i + 1 < tokens_.size() && tokens_[i + 1].kind != TokenKind::kNewline &&
         tokens_[i + 1].kind != TokenKind::kEndMarker) {
    ++i;
  }
  return tokens_[i].IsOp(":");
}

Status Parser::ParseSimpleStatements(ast::Body* out) {
  while (true) {
    ASSIGN_OR_RETURN(StmtPtr s, ParseSmallStatement());
    out->push_back(std::move(s));
    if (!AcceptOp(";") || At(TokenKind::kNewline)) break;
  }
  if (!At(TokenKind::kNewline)) return Unexpected();
  Advance();
  return absl::OkStatus();
}

StatusOr<StmtPtr> Parser::ParseSmallStatement() {
  const Token& t = Peek();
  if (t.kind != TokenKind::kKeyword) return ParseExprStatement();
  const std::string& kw = t.text;
  if (kw == "pass") {
    Advance();
    return std::make_shared<const ast::Pass>(t.range);
  }
  if (kw == "break") {
    if (loop_depth_ == 0) return SyntaxError(t.range, "'break' outside loop");
    Advance();
    return std::make_shared<const ast::Break>(t.range);
  }
  if (kw == "continue") {
    if (loop_depth_ == 0) return SyntaxError(t.range, "'continue' not properly in loop");
    Advance();
    return std::make_shared<const ast::Continue>(t.range);
  }
  if (kw == "return") {
    if (function_depth_ == 0) return SyntaxError(t.range, "'return' outside function");
    Advance();
    ExprPtr value;
    if (StartsExpression(Peek())) {
      ASSIGN_OR_RETURN(value, ParseTestList(/*allow_star=*/true));
      RETURN_IF_ERROR(CheckValue(value));
    }
    return std::make_shared<const ast::Return>(value, From(t));
  }
  if (kw == "assert") {
    Advance();
    ASSIGN_OR_RETURN(ExprPtr test, ParseTest());
    ExprPtr msg;
    if (AcceptOp(",")) {
      ASSIGN_OR_RETURN(msg, ParseTest());
    }
    return std::make_shared<const ast::Assert>(test, msg, From(t));
  }
  if (kw == "del") return ParseDelete();
  if (kw == "global" || kw == "nonlocal") return ParseGlobal();
  if (kw == "import") return ParseImport();
  if (kw == "from") return ParseFromImport();
  if (kw == "raise") {
    Advance();
    ExprPtr exc, cause;
    if (StartsExpression(Peek())) {
      ASSIGN_OR_RETURN(exc, ParseTest());
      if (AcceptKeyword("from")) {
        ASSIGN_OR_RETURN(cause, ParseTest());
      }
    }
    return std::make_shared<const ast::Raise>(exc, cause, From(t));
  }
  if (StartsExpression(t)) return ParseExprStatement();
  return Unexpected();
}

StatusOr<StmtPtr> Parser::ParseExprStatement() {
  ASSIGN_OR_RETURN(ExprPtr first, ParseTestList(/*allow_star=*/true));
  if (std::optional<ast::BinOpKind> op = AugOp(Peek())) {
    RETURN_IF_ERROR(CheckAugTarget(first));
    Advance();
    ASSIGN_OR_RETURN(ExprPtr target, ToTarget(first, Ctx::kStore));
    if (AtKeyword("yield")) return Unexpected();
    ASSIGN_OR_RETURN(ExprPtr value, ParseTestList(/*allow_star=*/true));
    RETURN_IF_ERROR(CheckValue(value));
    return std::make_shared<const ast::AugAssign>(target, *op, value, From(first->range));
  }
  if (AtOp(":")) {  // x: T = v  ->  x = v
    if (first->kind == ast::ExprKind::kTuple) {
      return SyntaxError(first->range, "only single target (not tuple) can be annotated");
    }
    if (first->kind != ast::ExprKind::kName && first->kind != ast::ExprKind::kAttribute &&
        first->kind != ast::ExprKind::kSubscript) {
      return SyntaxError(first->range, "illegal target for annotation");
    }
    Advance();
    ASSIGN_OR_RETURN(ExprPtr annotation, ParseTest());
    if (!AcceptOp("=")) {
      return NotSupported(From(first->range), "variable annotations without a value are not supported by graphd");
    }
    ASSIGN_OR_RETURN(ExprPtr target, ToTarget(first, Ctx::kStore));
    ASSIGN_OR_RETURN(ExprPtr value, ParseTestList(/*allow_star=*/true));
    RETURN_IF_ERROR(CheckValue(value));
    return std::make_shared<const ast::Assign>(std::vector<ExprPtr>{target}, value, From(first->range));
  }
  if (!AtOp("=")) {
    RETURN_IF_ERROR(CheckValue(first));
    return std::make_shared<const ast::ExprStmt>(first, first->range);
  }
  std::vector<ExprPtr> targets;
  ExprPtr value = first;
  while (AcceptOp("=")) {
    ASSIGN_OR_RETURN(ExprPtr target, ToTarget(value, Ctx::kStore));
    targets.push_back(std::move(target));
    if (AtKeyword("yield")) return Unexpected();
    ASSIGN_OR_RETURN(value, ParseTestList(/*allow_star=*/true));
  }
  RETURN_IF_ERROR(CheckValue(value));
  return std::make_shared<const ast::Assign>(std::move(targets), value, From(first->range));
}

StatusOr<StmtPtr> Parser::ParseDelete() {
  const Token& tok = Advance();
  std::vector<ExprPtr> targets;
  do {
    if (!targets.empty() && !StartsExpression(Peek())) break;
    ASSIGN_OR_RETURN(ExprPtr e, ParseStarTarget());
    ASSIGN_OR_RETURN(ExprPtr target, ToTarget(e, Ctx::kDel));
    targets.push_back(std::move(target));
  } while (AcceptOp(","));
  return std::make_shared<const ast::Delete>(std::move(targets), From(tok));
}

StatusOr<StmtPtr> Parser::ParseGlobal() {
  const Token& tok = Advance();
  const bool global = tok.text == "global";
  if (!global && scope_depth_ == 0) {
    return SyntaxError(tok.range, "nonlocal declaration not allowed at module level");
  }
  std::vector<std::string> names;
  do {
    ASSIGN_OR_RETURN(std::string name, ExpectName());
    names.push_back(std::move(name));
  } while (AcceptOp(","));
  if (global) return std::make_shared<const ast::Global>(std::move(names), From(tok));
  return std::make_shared<const ast::Nonlocal>(std::move(names), From(tok));
}

StatusOr<std::string> Parser::ParseDottedName() {
  ASSIGN_OR_RETURN(std::string name, ExpectName());
  while (AcceptOp(".")) {
    ASSIGN_OR_RETURN(std::string part, ExpectName());
    absl::StrAppend(&name, ".", part);
  }
  return name;
}

StatusOr<StmtPtr> Parser::ParseImport() {
  const Token& tok = Advance();
  std::vector<ast::Alias> names;
  do {
    const Token& start = Peek();
    ast::Alias alias;
    ASSIGN_OR_RETURN(alias.name, ParseDottedName());
    if (AcceptKeyword("as")) {
      ASSIGN_OR_RETURN(alias.asname, ExpectName());
    }
    alias.range = From(start);
    names.push_back(std::move(alias));
  } while (AcceptOp(","));
  return std::make_shared<const ast::Import>(std::move(names), From(tok));
}

StatusOr<StmtPtr> Parser::ParseFromImport() {
  const Token& tok = Advance();
  if (AtOp(".") || AtOp("...")) {
    return NotSupported(Peek().range, "relative imports are not supported by graphd");
  }
  ASSIGN_OR_RETURN(std::string module, ParseDottedName());
  RETURN_IF_ERROR(ExpectKeyword("import"));
  if (AtOp("*")) {
    return NotSupported(Peek().range, "star imports ('from m import *') are not supported by graphd");
  }
  const bool parens = AcceptOp("(");
  std::vector<ast::Alias> names;
  do {
    if (parens && !names.empty() && AtOp(")")) break;
    const Token& start = Peek();
    ast::Alias alias;
    ASSIGN_OR_RETURN(alias.name, ExpectName());
    if (AcceptKeyword("as")) {
      ASSIGN_OR_RETURN(alias.asname, ExpectName());
    }
    alias.range = From(start);
    names.push_back(std::move(alias));
  } while (AcceptOp(","));
  if (parens) RETURN_IF_ERROR(ExpectOp(")"));
  if (!parens && names.empty()) return Unexpected();
  return std::make_shared<const ast::ImportFrom>(std::move(module), std::move(names), From(tok));
}

}  // namespace graphd::compiler::internal
