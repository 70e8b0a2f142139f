#include "compiler/frontend/parser.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "compiler/frontend/lexer.h"
#include "compiler/frontend/parser_impl.h"

namespace graphd::compiler {
namespace internal {

using ast::Ctx;
using ast::Expr;
using ast::ExprKind;
using ast::ExprPtr;

bool StartsExpression(const Token& tok) {
  switch (tok.kind) {
    case TokenKind::kName:
    case TokenKind::kNumber:
    case TokenKind::kString:
      return true;
    case TokenKind::kKeyword:
      return tok.text == "None" || tok.text == "True" || tok.text == "False" || tok.text == "not" ||
             tok.text == "lambda" || tok.text == "await" || tok.text == "yield";
    case TokenKind::kOp:
      return tok.text == "(" || tok.text == "[" || tok.text == "{" || tok.text == "-" ||
             tok.text == "+" || tok.text == "~" || tok.text == "*" || tok.text == "...";
    default:
      return false;
  }
}

std::string ExprName(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kName: return "name";
    case ExprKind::kAttribute: return "attribute";
    case ExprKind::kSubscript: return "subscript";
    case ExprKind::kSlice: return "slice";
    case ExprKind::kStarred: return "starred";
    case ExprKind::kTuple: return "tuple";
    case ExprKind::kList: return "list";
    case ExprKind::kLambda: return "lambda";
    case ExprKind::kCall: return "function call";
    case ExprKind::kBinOp:
    case ExprKind::kUnaryOp:
    case ExprKind::kBoolOp: return "expression";
    case ExprKind::kCompare: return "comparison";
    case ExprKind::kIfExp: return "conditional expression";
    case ExprKind::kListComp: return "list comprehension";
    case ExprKind::kDictComp: return "dict comprehension";
    case ExprKind::kDict: return "dict literal";
    case ExprKind::kJoinedStr:
    case ExprKind::kFormattedValue: return "f-string expression";
    case ExprKind::kConstant: {
      const auto& v = e.As<ast::Constant>()->value;
      if (std::holds_alternative<ast::NoneValue>(v)) return "None";
      if (const bool* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
      if (std::holds_alternative<ast::EllipsisValue>(v)) return "ellipsis";
      return "literal";
    }
  }
  return "expression";
}

Parser::Parser(std::shared_ptr<const SourceFile> file, std::vector<Token> tokens, int depth)
    : file_(std::move(file)), tokens_(std::move(tokens)), depth_(depth) {}

// ------------------------------------------------------------------ cursor

const Token& Parser::Peek(int k) const {
  return tokens_[std::min(pos_ + k, tokens_.size() - 1)];  // the last token is ENDMARKER
}

const Token& Parser::Advance() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool Parser::AcceptOp(absl::string_view op) {
  if (!AtOp(op)) return false;
  Advance();
  return true;
}

bool Parser::AcceptKeyword(absl::string_view kw) {
  if (!AtKeyword(kw)) return false;
  Advance();
  return true;
}

Status Parser::ExpectOp(absl::string_view op) {
  if (AcceptOp(op)) return absl::OkStatus();
  const Token& t = Peek();
  if (t.kind == TokenKind::kIndent || t.IsOp(":=") || t.IsKeyword("yield") || t.IsKeyword("await")) {
    return Unexpected();
  }
  return SyntaxError(t.range, absl::StrCat("expected '", op, "'"));
}

Status Parser::ExpectKeyword(absl::string_view kw) {
  if (AcceptKeyword(kw)) return absl::OkStatus();
  if (AtOp(":=")) return Unexpected();
  return SyntaxError(Peek().range, absl::StrCat("expected '", kw, "'"));
}

StatusOr<std::string> Parser::ExpectName() {
  if (!At(TokenKind::kName)) return Unexpected();
  return Advance().text;
}

Status Parser::Unexpected() const {
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kIndent:
      return IndentationError(t.range, "unexpected indent");
    case TokenKind::kDedent:
      return IndentationError(t.range, "unexpected unindent");
    case TokenKind::kOp:
      if (t.text == ":=") {
        return NotSupported(t.range, "assignment expressions (':=') are not supported by graphd");
      }
      break;
    case TokenKind::kKeyword:
      if (t.text == "yield") return NotSupported(t.range, "'yield' expressions are not supported by graphd");
      if (t.text == "await") return NotSupported(t.range, "'await' expressions are not supported by graphd");
      break;
    default:
      break;
  }
  return SyntaxError(t.range, "invalid syntax");
}

SourceRange Parser::From(const SourceRange& begin) const {
  // The last consumed token that is not layout (NEWLINE/INDENT/DEDENT sit elsewhere).
  size_t last = pos_;
  while (last > 0 && (tokens_[last - 1].kind == TokenKind::kNewline || tokens_[last - 1].kind == TokenKind::kIndent ||
                      tokens_[last - 1].kind == TokenKind::kDedent)) {
    --last;
  }
  const int end = last > 0 ? tokens_[last - 1].range.end : begin.end;
  return SourceRange{file_, begin.begin, std::max(begin.end, end)};
}

// ------------------------------------------------------------------ limits

Status Parser::Enter() {
  if (depth_ >= kMaxExprDepth) {
    return TooDeep(Peek().range, "expression is nested too deeply");
  }
  ++depth_;
  return absl::OkStatus();
}

int Parser::HeightOf(const ExprPtr& e) const {
  if (e == nullptr) return 0;
  auto it = heights_.find(e.get());
  return it == heights_.end() ? 1 : it->second;
}

void Parser::Track(const Expr& e) {
  int h = 0;
  auto see = [&](const ExprPtr& c) { h = std::max(h, HeightOf(c)); };
  auto see_all = [&](const std::vector<ExprPtr>& v) {
    for (const ExprPtr& c : v) see(c);
  };
  auto see_generators = [&](const std::vector<ast::Comprehension>& gens) {
    for (const ast::Comprehension& g : gens) {
      see(g.target);
      see(g.iter);
      see_all(g.ifs);
    }
  };
  switch (e.kind) {
    case ExprKind::kName:
    case ExprKind::kConstant: break;
    case ExprKind::kAttribute: see(e.As<ast::Attribute>()->value); break;
    case ExprKind::kSubscript:
      see(e.As<ast::Subscript>()->value);
      see(e.As<ast::Subscript>()->slice);
      break;
    case ExprKind::kSlice: {
      const auto* s = e.As<ast::Slice>();
      see(s->lower), see(s->upper), see(s->step);
      break;
    }
    case ExprKind::kCall: {
      const auto* c = e.As<ast::Call>();
      see(c->func);
      see_all(c->args);
      for (const ast::Keyword& k : c->keywords) see(k.value);
      break;
    }
    case ExprKind::kBinOp: see(e.As<ast::BinOp>()->left), see(e.As<ast::BinOp>()->right); break;
    case ExprKind::kUnaryOp: see(e.As<ast::UnaryOp>()->operand); break;
    case ExprKind::kBoolOp: see_all(e.As<ast::BoolOp>()->values); break;
    case ExprKind::kCompare:
      see(e.As<ast::Compare>()->left);
      see_all(e.As<ast::Compare>()->comparators);
      break;
    case ExprKind::kIfExp: {
      const auto* i = e.As<ast::IfExp>();
      see(i->test), see(i->body), see(i->orelse);
      break;
    }
    case ExprKind::kLambda: {
      const auto* l = e.As<ast::Lambda>();
      see_all(l->args.defaults);
      see_all(l->args.kw_defaults);
      see(l->body);
      break;
    }
    case ExprKind::kTuple: see_all(e.As<ast::Tuple>()->elts); break;
    case ExprKind::kList: see_all(e.As<ast::List>()->elts); break;
    case ExprKind::kDict:
      see_all(e.As<ast::Dict>()->keys);
      see_all(e.As<ast::Dict>()->values);
      break;
    case ExprKind::kListComp:
      see(e.As<ast::ListComp>()->elt);
      see_generators(e.As<ast::ListComp>()->generators);
      break;
    case ExprKind::kDictComp:
      see(e.As<ast::DictComp>()->key);
      see(e.As<ast::DictComp>()->value);
      see_generators(e.As<ast::DictComp>()->generators);
      break;
    case ExprKind::kStarred: see(e.As<ast::Starred>()->value); break;
    case ExprKind::kJoinedStr: see_all(e.As<ast::JoinedStr>()->values); break;
    case ExprKind::kFormattedValue:
      see(e.As<ast::FormattedValue>()->value);
      see(e.As<ast::FormattedValue>()->format_spec);
      break;
  }
  heights_[&e] = h + 1;
}

Status Parser::CheckHeight(const ExprPtr& e) const {
  if (HeightOf(e) <= kMaxExprHeight) return absl::OkStatus();
  return TooDeep(e->range, "expression is too long or nested too deeply");
}

// ------------------------------------------------------------------ targets

StatusOr<ExprPtr> Parser::ToTarget(const ExprPtr& e, Ctx ctx) {
  switch (e->kind) {
    case ExprKind::kName:
      return New<ast::Name>(e->As<ast::Name>()->id, ctx, e->range);
    case ExprKind::kAttribute: {
      const auto* a = e->As<ast::Attribute>();
      return New<ast::Attribute>(a->value, a->attr, ctx, e->range);
    }
    case ExprKind::kSubscript: {
      const auto* s = e->As<ast::Subscript>();
      return New<ast::Subscript>(s->value, s->slice, ctx, e->range);
    }
    case ExprKind::kTuple:
    case ExprKind::kList: {
      const bool tuple = e->kind == ExprKind::kTuple;
      const auto& elts = tuple ? e->As<ast::Tuple>()->elts : e->As<ast::List>()->elts;
      std::vector<ExprPtr> out;
      out.reserve(elts.size());
      for (const ExprPtr& elt : elts) {
        ASSIGN_OR_RETURN(ExprPtr t, ToTarget(elt, ctx));
        out.push_back(std::move(t));
      }
      if (tuple) return New<ast::Tuple>(std::move(out), ctx, e->range);
      return New<ast::List>(std::move(out), ctx, e->range);
    }
    case ExprKind::kStarred:
      if (ctx == Ctx::kDel) return SyntaxError(e->range, "cannot delete starred");
      return NotSupported(e->range, "starred assignment targets are not supported by graphd");
    default:
      return SyntaxError(e->range, absl::StrCat(ctx == Ctx::kDel ? "cannot delete " : "cannot assign to ",
                                                ExprName(*e)));
  }
}

Status Parser::CheckAugTarget(const ExprPtr& e) const {
  if (e->kind == ExprKind::kName || e->kind == ExprKind::kAttribute || e->kind == ExprKind::kSubscript) {
    return absl::OkStatus();
  }
  return SyntaxError(e->range,
                     absl::StrCat("'", ExprName(*e), "' is an illegal expression for augmented assignment"));
}

Status Parser::CheckValue(const ExprPtr& e) const {
  if (e->kind == ExprKind::kStarred) return SyntaxError(e->range, "can't use starred expression here");
  return absl::OkStatus();
}

// ------------------------------------------------------------------ entry points

StatusOr<ast::Body> Parser::ParseFile() {
  ast::Body body;
  while (!At(TokenKind::kEndMarker)) {
    if (At(TokenKind::kNewline)) {
      Advance();
      continue;
    }
    RETURN_IF_ERROR(ParseStatement(&body));
  }
  return body;
}

StatusOr<ExprPtr> Parser::ParseEval() {
  ASSIGN_OR_RETURN(ExprPtr e, ParseTestList(/*allow_star=*/true));
  if (!At(TokenKind::kEndMarker)) return Unexpected();
  RETURN_IF_ERROR(CheckValue(e));
  return e;
}

}  // namespace internal

StatusOr<ast::Module> ParseModule(std::shared_ptr<const SourceFile> file) {
  ASSIGN_OR_RETURN(std::vector<Token> tokens, Lex(file));
  internal::Parser parser(file, std::move(tokens));
  ast::Module module;
  ASSIGN_OR_RETURN(module.body, parser.ParseFile());
  module.file = std::move(file);
  return module;
}

StatusOr<ast::ExprPtr> ParseExpression(std::shared_ptr<const SourceFile> file) {
  const int size = static_cast<int>(file->text().size());
  ASSIGN_OR_RETURN(std::vector<Token> tokens, LexExpression(file, 0, size));
  internal::Parser parser(file, std::move(tokens));
  return parser.ParseEval();
}

}  // namespace graphd::compiler
