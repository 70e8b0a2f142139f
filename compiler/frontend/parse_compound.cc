// Compound statements: if/elif/else, while, for, with, try, def, class, decorators,
// suites.
#include "absl/strings/str_cat.h"
#include "compiler/frontend/parser_impl.h"

namespace graphd::compiler::internal {

using ast::Ctx;
using ast::ExprPtr;
using ast::StmtPtr;

StatusOr<ast::Body> Parser::ParseSuite(absl::string_view what, const Token& header) {
  ast::Body body;
  if (!At(TokenKind::kNewline)) {
    RETURN_IF_ERROR(ParseSimpleStatements(&body));
    return body;
  }
  Advance();
  if (!At(TokenKind::kIndent)) {
    return IndentationError(Peek().range, absl::StrCat("expected an indented block after ", what,
                                                       " on line ", header.range.line()));
  }
  Advance();
  while (!At(TokenKind::kDedent) && !At(TokenKind::kEndMarker)) {
    RETURN_IF_ERROR(ParseStatement(&body));
  }
  if (At(TokenKind::kDedent)) Advance();
  return body;
}

StatusOr<StmtPtr> Parser::ParseIf() {
  struct Clause {
    ExprPtr test;
    ast::Body body;
    SourceRange begin;
  };
  std::vector<Clause> clauses;
  do {
    const Token& tok = Advance();  // if / elif
    ASSIGN_OR_RETURN(ExprPtr test, ParseTest());
    RETURN_IF_ERROR(ExpectOp(":"));
    ASSIGN_OR_RETURN(ast::Body body,
                     ParseSuite(tok.text == "if" ? "'if' statement" : "'elif' statement", tok));
    clauses.push_back({std::move(test), std::move(body), tok.range});
  } while (AtKeyword("elif"));
  ast::Body orelse;
  if (AtKeyword("else")) {
    const Token& tok = Advance();
    RETURN_IF_ERROR(ExpectOp(":"));
    ASSIGN_OR_RETURN(orelse, ParseSuite("'else' statement", tok));
  }
  // elif chains are nested Ifs in orelse, built innermost first (no recursion).
  for (auto it = clauses.rbegin(); it != clauses.rend(); ++it) {
    StmtPtr s = std::make_shared<const ast::If>(it->test, std::move(it->body), std::move(orelse),
                                                From(it->begin));
    orelse = ast::Body{std::move(s)};
  }
  return orelse[0];
}

StatusOr<StmtPtr> Parser::ParseWhile() {
  const Token& tok = Advance();
  ASSIGN_OR_RETURN(ExprPtr test, ParseTest());
  RETURN_IF_ERROR(ExpectOp(":"));
  ++loop_depth_;
  StatusOr<ast::Body> body = ParseSuite("'while' statement", tok);
  --loop_depth_;
  if (!body.ok()) return body.status();
  ast::Body orelse;
  if (AtKeyword("else")) {
    const Token& else_tok = Advance();
    RETURN_IF_ERROR(ExpectOp(":"));
    ASSIGN_OR_RETURN(orelse, ParseSuite("'else' statement", else_tok));
  }
  return std::make_shared<const ast::While>(test, *std::move(body), std::move(orelse), From(tok));
}

StatusOr<StmtPtr> Parser::ParseFor() {
  const Token& tok = Advance();
  ASSIGN_OR_RETURN(ExprPtr parsed, ParseTargetList());
  ASSIGN_OR_RETURN(ExprPtr target, ToTarget(parsed, Ctx::kStore));
  RETURN_IF_ERROR(ExpectKeyword("in"));
  ASSIGN_OR_RETURN(ExprPtr iter, ParseTestList(/*allow_star=*/true));
  RETURN_IF_ERROR(CheckValue(iter));
  RETURN_IF_ERROR(ExpectOp(":"));
  ++loop_depth_;
  StatusOr<ast::Body> body = ParseSuite("'for' statement", tok);
  --loop_depth_;
  if (!body.ok()) return body.status();
  ast::Body orelse;
  if (AtKeyword("else")) {
    const Token& else_tok = Advance();
    RETURN_IF_ERROR(ExpectOp(":"));
    ASSIGN_OR_RETURN(orelse, ParseSuite("'else' statement", else_tok));
  }
  return std::make_shared<const ast::For>(target, iter, *std::move(body), std::move(orelse), From(tok));
}

StatusOr<std::vector<ast::WithItem>> Parser::ParseWithItems(bool parenthesized) {
  if (parenthesized) Advance();  // (
  std::vector<ast::WithItem> items;
  do {
    if (parenthesized && !items.empty() && AtOp(")")) break;
    ast::WithItem item;
    ASSIGN_OR_RETURN(item.context_expr, ParseTest());
    if (AcceptKeyword("as")) {
      ASSIGN_OR_RETURN(ExprPtr parsed, ParseStarTarget());
      ASSIGN_OR_RETURN(item.optional_vars, ToTarget(parsed, Ctx::kStore));
    }
    items.push_back(std::move(item));
  } while (AcceptOp(","));
  if (parenthesized) RETURN_IF_ERROR(ExpectOp(")"));
  if (!AtOp(":")) return SyntaxError(Peek().range, "expected ':'");
  return items;
}

StatusOr<StmtPtr> Parser::ParseWith() {
  const Token& tok = Advance();
  std::vector<ast::WithItem> items;
  bool done = false;
  if (AtOp("(")) {  // with (a as b, c as d):  -- else backtrack to an ordinary expression
    const size_t saved = pos_;
    StatusOr<std::vector<ast::WithItem>> parsed = ParseWithItems(/*parenthesized=*/true);
    if (parsed.ok()) {
      items = *std::move(parsed);
      done = true;
    } else {
      pos_ = saved;
    }
  }
  if (!done) {
    ASSIGN_OR_RETURN(items, ParseWithItems(/*parenthesized=*/false));
  }
  RETURN_IF_ERROR(ExpectOp(":"));
  ASSIGN_OR_RETURN(ast::Body body, ParseSuite("'with' statement", tok));
  return std::make_shared<const ast::With>(std::move(items), std::move(body), From(tok));
}

StatusOr<StmtPtr> Parser::ParseTry() {
  const Token& tok = Advance();
  RETURN_IF_ERROR(ExpectOp(":"));
  ASSIGN_OR_RETURN(ast::Body body, ParseSuite("'try' statement", tok));
  std::vector<ast::ExceptHandler> handlers;
  while (AtKeyword("except")) {
    const Token& except = Advance();
    if (AtOp("*")) return NotSupported(Peek().range, "'except*' clauses are not supported by graphd");
    ast::ExceptHandler h{.range = except.range};
    if (!AtOp(":")) {
      if (!handlers.empty() && handlers.back().type == nullptr) {
        return SyntaxError(except.range, "default 'except:' must be last");
      }
      ASSIGN_OR_RETURN(h.type, ParseTest());
      if (AcceptKeyword("as")) {
        ASSIGN_OR_RETURN(h.name, ExpectName());
      }
    } else if (!handlers.empty() && handlers.back().type == nullptr) {
      return SyntaxError(except.range, "default 'except:' must be last");
    }
    RETURN_IF_ERROR(ExpectOp(":"));
    ASSIGN_OR_RETURN(h.body, ParseSuite("'except' statement", except));
    handlers.push_back(std::move(h));
  }
  ast::Body orelse, finalbody;
  if (AtKeyword("else")) {
    const Token& else_tok = Advance();
    if (handlers.empty()) return SyntaxError(else_tok.range, "invalid syntax: 'else' needs an 'except' before it");
    RETURN_IF_ERROR(ExpectOp(":"));
    ASSIGN_OR_RETURN(orelse, ParseSuite("'else' statement", else_tok));
  }
  if (AtKeyword("finally")) {
    const Token& finally_tok = Advance();
    RETURN_IF_ERROR(ExpectOp(":"));
    ASSIGN_OR_RETURN(finalbody, ParseSuite("'finally' statement", finally_tok));
  }
  if (handlers.empty() && finalbody.empty()) {
    return SyntaxError(Peek().range, "expected 'except' or 'finally' block");
  }
  return std::make_shared<const ast::Try>(std::move(body), std::move(handlers), std::move(orelse),
                                          std::move(finalbody), From(tok));
}

Status Parser::AsyncNotSupported() const {
  const Token& t = Peek();
  const Token& next = Peek(1);
  if (next.IsKeyword("def")) return NotSupported(t.range, "'async def' functions are not supported by graphd");
  if (next.IsKeyword("for")) return NotSupported(t.range, "'async for' loops are not supported by graphd");
  if (next.IsKeyword("with")) return NotSupported(t.range, "'async with' statements are not supported by graphd");
  return SyntaxError(t.range, "invalid syntax");
}

StatusOr<StmtPtr> Parser::ParseDecorated() {
  std::vector<ExprPtr> decorators;
  while (AcceptOp("@")) {
    ASSIGN_OR_RETURN(ExprPtr d, ParseTest());
    if (!At(TokenKind::kNewline)) return Unexpected();
    Advance();
    decorators.push_back(std::move(d));
  }
  if (AtKeyword("def")) return ParseFunctionDef(std::move(decorators));
  if (AtKeyword("class")) return ParseClassDef(std::move(decorators));
  if (AtKeyword("async")) return AsyncNotSupported();
  if (At(TokenKind::kIndent)) return Unexpected();
  return NotSupported(Peek().range,
                      "decorators on anything but 'def' and 'class' (such as lambdas) are not supported by graphd");
}

StatusOr<StmtPtr> Parser::ParseFunctionDef(std::vector<ExprPtr> decorators) {
  const Token& tok = Advance();
  ASSIGN_OR_RETURN(std::string name, ExpectName());
  RETURN_IF_ERROR(ExpectOp("("));
  ASSIGN_OR_RETURN(ast::Arguments args, ParseParameters(/*lambda=*/false));
  RETURN_IF_ERROR(ExpectOp(")"));
  ExprPtr returns;
  if (AcceptOp("->")) {
    ASSIGN_OR_RETURN(returns, ParseTest());
  }
  RETURN_IF_ERROR(ExpectOp(":"));
  const int saved_loops = loop_depth_;
  loop_depth_ = 0;
  ++function_depth_, ++scope_depth_;
  StatusOr<ast::Body> body = ParseSuite("function definition", tok);
  --function_depth_, --scope_depth_;
  loop_depth_ = saved_loops;
  if (!body.ok()) return body.status();
  return std::make_shared<const ast::FunctionDef>(std::move(name), std::move(args), *std::move(body),
                                                  std::move(decorators), returns, From(tok));
}

StatusOr<StmtPtr> Parser::ParseClassDef(std::vector<ExprPtr> decorators) {
  const Token& tok = Advance();
  const Token& name_tok = Peek();
  ASSIGN_OR_RETURN(std::string name, ExpectName());
  std::vector<ExprPtr> bases;
  if (AtOp("(")) {
    ExprPtr self = New<ast::Name>(name, Ctx::kLoad, name_tok.range);
    ASSIGN_OR_RETURN(ExprPtr call, ParseCall(self));
    const auto* c = call->As<ast::Call>();
    if (!c->keywords.empty()) {
      return NotSupported(c->keywords[0].range,
                          "class keyword arguments (such as metaclass=) are not supported by graphd");
    }
    for (const ExprPtr& base : c->args) {
      if (base->kind == ast::ExprKind::kStarred || base->kind == ast::ExprKind::kListComp) {
        return NotSupported(base->range, "computed base class lists are not supported by graphd");
      }
    }
    bases = c->args;
  }
  RETURN_IF_ERROR(ExpectOp(":"));
  const int saved_loops = loop_depth_, saved_functions = function_depth_;
  loop_depth_ = function_depth_ = 0;
  ++scope_depth_;
  StatusOr<ast::Body> body = ParseSuite("class definition", tok);
  --scope_depth_;
  loop_depth_ = saved_loops;
  function_depth_ = saved_functions;
  if (!body.ok()) return body.status();
  return std::make_shared<const ast::ClassDef>(std::move(name), std::move(bases), *std::move(body),
                                               std::move(decorators), From(tok));
}

}  // namespace graphd::compiler::internal
