// Expressions: precedence climbing from `test` down to atoms and displays.
#include <array>
#include <optional>
#include <utility>

#include "compiler/frontend/parser_impl.h"

namespace graphd::compiler::internal {

using ast::BinOpKind;
using ast::Ctx;
using ast::ExprPtr;

StatusOr<ExprPtr> Parser::ParseTest() {
  RETURN_IF_ERROR(Enter());
  DepthScope scope(&depth_);
  if (AtKeyword("lambda")) return ParseLambda();
  ASSIGN_OR_RETURN(ExprPtr body, ParseOrTest());
  if (!AcceptKeyword("if")) return body;
  ASSIGN_OR_RETURN(ExprPtr test, ParseOrTest());
  if (!AcceptKeyword("else")) {
    if (AtOp(":=")) return Unexpected();
    return SyntaxError(Peek().range, "expected 'else' after 'if' expression");
  }
  ASSIGN_OR_RETURN(ExprPtr orelse, ParseTest());
  return New<ast::IfExp>(test, body, orelse, From(body->range));
}

StatusOr<ExprPtr> Parser::ParseOrTest() {
  ASSIGN_OR_RETURN(ExprPtr first, ParseAndTest());
  if (!AtKeyword("or")) return first;
  std::vector<ExprPtr> values = {first};
  while (AcceptKeyword("or")) {
    ASSIGN_OR_RETURN(ExprPtr v, ParseAndTest());
    values.push_back(std::move(v));
  }
  return New<ast::BoolOp>(ast::BoolOpKind::kOr, std::move(values), From(first->range));
}

StatusOr<ExprPtr> Parser::ParseAndTest() {
  ASSIGN_OR_RETURN(ExprPtr first, ParseNotTest());
  if (!AtKeyword("and")) return first;
  std::vector<ExprPtr> values = {first};
  while (AcceptKeyword("and")) {
    ASSIGN_OR_RETURN(ExprPtr v, ParseNotTest());
    values.push_back(std::move(v));
  }
  return New<ast::BoolOp>(ast::BoolOpKind::kAnd, std::move(values), From(first->range));
}

StatusOr<ExprPtr> Parser::ParseNotTest() {
  if (!AtKeyword("not")) return ParseComparison();
  const Token& tok = Advance();
  RETURN_IF_ERROR(Enter());
  DepthScope scope(&depth_);
  ASSIGN_OR_RETURN(ExprPtr operand, ParseNotTest());
  return New<ast::UnaryOp>(ast::UnaryOpKind::kNot, operand, From(tok));
}

StatusOr<ExprPtr> Parser::ParseComparison() {
  ASSIGN_OR_RETURN(ExprPtr left, ParseBitOr());
  std::vector<ast::CmpOpKind> ops;
  std::vector<ExprPtr> comparators;
  static constexpr std::pair<absl::string_view, ast::CmpOpKind> kOps[] = {
      {"==", ast::CmpOpKind::kEq}, {"!=", ast::CmpOpKind::kNotEq}, {"<", ast::CmpOpKind::kLt},
      {"<=", ast::CmpOpKind::kLtE}, {">", ast::CmpOpKind::kGt},    {">=", ast::CmpOpKind::kGtE}};
  while (true) {
    std::optional<ast::CmpOpKind> op;
    for (const auto& [text, kind] : kOps) {
      if (AtOp(text)) op = kind;
    }
    if (op) {
      Advance();
    } else if (AcceptKeyword("in")) {
      op = ast::CmpOpKind::kIn;
    } else if (AtKeyword("not") && Peek(1).IsKeyword("in")) {
      Advance(), Advance();
      op = ast::CmpOpKind::kNotIn;
    } else if (AcceptKeyword("is")) {
      op = AcceptKeyword("not") ? ast::CmpOpKind::kIsNot : ast::CmpOpKind::kIs;
    } else {
      break;
    }
    ops.push_back(*op);
    ASSIGN_OR_RETURN(ExprPtr right, ParseBitOr());
    comparators.push_back(std::move(right));
  }
  if (ops.empty()) return left;
  return New<ast::Compare>(left, std::move(ops), std::move(comparators), From(left->range));
}

StatusOr<ExprPtr> Parser::ParseBinary(int level) {
  using Op = std::pair<absl::string_view, BinOpKind>;
  static const std::array<std::vector<Op>, 6> kLevels = {{
      {{"|", BinOpKind::kBitOr}},
      {{"^", BinOpKind::kBitXor}},
      {{"&", BinOpKind::kBitAnd}},
      {{"<<", BinOpKind::kLShift}, {">>", BinOpKind::kRShift}},
      {{"+", BinOpKind::kAdd}, {"-", BinOpKind::kSub}},
      {{"*", BinOpKind::kMult}, {"@", BinOpKind::kMatMult}, {"/", BinOpKind::kDiv},
       {"//", BinOpKind::kFloorDiv}, {"%", BinOpKind::kMod}},
  }};
  if (level == static_cast<int>(kLevels.size())) return ParseFactor();
  ASSIGN_OR_RETURN(ExprPtr left, ParseBinary(level + 1));
  while (true) {
    const Op* found = nullptr;
    for (const Op& op : kLevels[level]) {
      if (AtOp(op.first)) found = &op;
    }
    if (found == nullptr) return left;
    Advance();
    ASSIGN_OR_RETURN(ExprPtr right, ParseBinary(level + 1));
    left = New<ast::BinOp>(left, found->second, right, From(left->range));
    RETURN_IF_ERROR(CheckHeight(left));
  }
}

StatusOr<ExprPtr> Parser::ParseFactor() {
  ast::UnaryOpKind op;
  if (AtOp("-")) {
    op = ast::UnaryOpKind::kUSub;
  } else if (AtOp("+")) {
    op = ast::UnaryOpKind::kUAdd;
  } else if (AtOp("~")) {
    op = ast::UnaryOpKind::kInvert;
  } else {
    return ParsePower();
  }
  const Token& tok = Advance();
  RETURN_IF_ERROR(Enter());
  DepthScope scope(&depth_);
  ASSIGN_OR_RETURN(ExprPtr operand, ParseFactor());
  return New<ast::UnaryOp>(op, operand, From(tok));
}

StatusOr<ExprPtr> Parser::ParsePower() {
  if (AtKeyword("await")) return Unexpected();
  ASSIGN_OR_RETURN(ExprPtr base, ParsePrimary());
  if (!AcceptOp("**")) return base;
  RETURN_IF_ERROR(Enter());  // a ** b ** c ... recurses
  DepthScope scope(&depth_);
  ASSIGN_OR_RETURN(ExprPtr exponent, ParseFactor());
  ExprPtr e = New<ast::BinOp>(base, BinOpKind::kPow, exponent, From(base->range));
  RETURN_IF_ERROR(CheckHeight(e));
  return e;
}

StatusOr<ExprPtr> Parser::ParsePrimary() {
  ASSIGN_OR_RETURN(ExprPtr e, ParseAtom());
  while (true) {
    if (AtOp("(")) {
      ASSIGN_OR_RETURN(e, ParseCall(e));
    } else if (AtOp("[")) {
      ASSIGN_OR_RETURN(e, ParseSubscript(e));
    } else if (AcceptOp(".")) {
      ASSIGN_OR_RETURN(std::string attr, ExpectName());
      e = New<ast::Attribute>(e, std::move(attr), Ctx::kLoad, From(e->range));
    } else {
      return e;
    }
    RETURN_IF_ERROR(CheckHeight(e));
  }
}

StatusOr<ExprPtr> Parser::ParseAtom() {
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kName:
      Advance();
      return New<ast::Name>(t.text, Ctx::kLoad, t.range);
    case TokenKind::kNumber:
      Advance();
      if (t.is_float) return New<ast::Constant>(t.float_value, t.range);
      return New<ast::Constant>(t.int_value, t.range);
    case TokenKind::kString:
      return ParseStrings();
    case TokenKind::kKeyword:
      if (t.text == "None" || t.text == "True" || t.text == "False") {
        Advance();
        if (t.text == "None") return New<ast::Constant>(ast::NoneValue{}, t.range);
        return New<ast::Constant>(t.text == "True", t.range);
      }
      break;
    case TokenKind::kOp:
      if (t.text == "(") return ParseParenthesized();
      if (t.text == "[") return ParseListDisplay();
      if (t.text == "{") return ParseBraceDisplay();
      if (t.text == "...") {
        Advance();
        return New<ast::Constant>(ast::EllipsisValue{}, t.range);
      }
      break;
    default:
      break;
  }
  return Unexpected();
}

StatusOr<ExprPtr> Parser::ParseParenthesized() {
  const Token& open = Advance();
  if (AcceptOp(")")) return New<ast::Tuple>(std::vector<ExprPtr>{}, Ctx::kLoad, From(open));
  ASSIGN_OR_RETURN(ExprPtr first, ParseStarOrTest());
  if (AtKeyword("for") || AtKeyword("async")) {
    if (first->kind == ast::ExprKind::kStarred) {
      return SyntaxError(first->range, "iterable unpacking cannot be used in comprehension");
    }
    return NotSupported(open.range, "generator expressions are not supported by graphd; "
                                    "use a list comprehension [...]");
  }
  if (!AtOp(",")) {
    RETURN_IF_ERROR(ExpectOp(")"));
    if (first->kind == ast::ExprKind::kStarred) {
      return SyntaxError(first->range, "cannot use starred expression here");
    }
    return first;
  }
  std::vector<ExprPtr> elts = {first};
  while (AcceptOp(",")) {
    if (AtOp(")")) break;
    ASSIGN_OR_RETURN(ExprPtr e, ParseStarOrTest());
    elts.push_back(std::move(e));
  }
  RETURN_IF_ERROR(ExpectOp(")"));
  return New<ast::Tuple>(std::move(elts), Ctx::kLoad, From(open));
}

StatusOr<ExprPtr> Parser::ParseListDisplay() {
  const Token& open = Advance();
  std::vector<ExprPtr> elts;
  if (!AtOp("]")) {
    ASSIGN_OR_RETURN(ExprPtr first, ParseStarOrTest());
    if (AtKeyword("for") || AtKeyword("async")) {
      if (first->kind == ast::ExprKind::kStarred) {
        return SyntaxError(first->range, "iterable unpacking cannot be used in comprehension");
      }
      ASSIGN_OR_RETURN(std::vector<ast::Comprehension> gens, ParseCompFor());
      RETURN_IF_ERROR(ExpectOp("]"));
      return New<ast::ListComp>(first, std::move(gens), From(open));
    }
    elts.push_back(std::move(first));
    while (AcceptOp(",")) {
      if (AtOp("]")) break;
      ASSIGN_OR_RETURN(ExprPtr e, ParseStarOrTest());
      elts.push_back(std::move(e));
    }
  }
  RETURN_IF_ERROR(ExpectOp("]"));
  return New<ast::List>(std::move(elts), Ctx::kLoad, From(open));
}

StatusOr<ExprPtr> Parser::ParseBraceDisplay() {
  const Token& open = Advance();
  std::vector<ExprPtr> keys, values;
  if (AcceptOp("}")) return New<ast::Dict>(std::move(keys), std::move(values), From(open));
  bool first = true;
  do {
    if (!first && AtOp("}")) break;
    if (AcceptOp("**")) {
      ASSIGN_OR_RETURN(ExprPtr v, ParseBitOr());
      if (AtKeyword("for")) return SyntaxError(v->range, "dict unpacking cannot be used in dict comprehension");
      keys.push_back(nullptr);
      values.push_back(std::move(v));
    } else {
      ASSIGN_OR_RETURN(ExprPtr k, ParseStarOrTest());
      if (!AtOp(":")) {
        if (first && (AtKeyword("for") || AtKeyword("async"))) {
          return NotSupported(open.range, "set comprehensions are not supported by graphd");
        }
        if (first && (AtOp(",") || AtOp("}"))) {
          return NotSupported(open.range, "set literals are not supported by graphd; use a list or tuple");
        }
        if (AtOp(":=")) return Unexpected();
        return SyntaxError(Peek().range, "expected ':'");
      }
      RETURN_IF_ERROR(CheckValue(k));
      Advance();
      ASSIGN_OR_RETURN(ExprPtr v, ParseTest());
      if (first && (AtKeyword("for") || AtKeyword("async"))) {
        ASSIGN_OR_RETURN(std::vector<ast::Comprehension> gens, ParseCompFor());
        RETURN_IF_ERROR(ExpectOp("}"));
        return New<ast::DictComp>(k, v, std::move(gens), From(open));
      }
      keys.push_back(std::move(k));
      values.push_back(std::move(v));
    }
    first = false;
  } while (AcceptOp(","));
  RETURN_IF_ERROR(ExpectOp("}"));
  return New<ast::Dict>(std::move(keys), std::move(values), From(open));
}

StatusOr<ExprPtr> Parser::ParseLambda() {
  const Token& tok = Advance();
  ASSIGN_OR_RETURN(ast::Arguments args, ParseParameters(/*lambda=*/true));
  RETURN_IF_ERROR(ExpectOp(":"));
  ASSIGN_OR_RETURN(ExprPtr body, ParseTest());
  return New<ast::Lambda>(std::move(args), body, From(tok));
}

StatusOr<ExprPtr> Parser::ParseStarOrTest() {
  if (!AtOp("*")) return ParseTest();
  const Token& star = Advance();
  ASSIGN_OR_RETURN(ExprPtr value, ParseBitOr());
  return New<ast::Starred>(value, Ctx::kLoad, From(star));
}

StatusOr<ExprPtr> Parser::ParseStarTarget() {
  if (!AtOp("*")) return ParseBitOr();
  const Token& star = Advance();
  ASSIGN_OR_RETURN(ExprPtr value, ParseBitOr());
  return New<ast::Starred>(value, Ctx::kLoad, From(star));
}

StatusOr<ExprPtr> Parser::ParseTestList(bool allow_star) {
  auto item = [&]() { return allow_star ? ParseStarOrTest() : ParseTest(); };
  ASSIGN_OR_RETURN(ExprPtr first, item());
  if (!AtOp(",")) return first;
  std::vector<ExprPtr> elts = {first};
  while (AcceptOp(",")) {
    if (!StartsExpression(Peek())) break;
    ASSIGN_OR_RETURN(ExprPtr e, item());
    elts.push_back(std::move(e));
  }
  return New<ast::Tuple>(std::move(elts), Ctx::kLoad, From(first->range));
}

StatusOr<ExprPtr> Parser::ParseTargetList() {
  ASSIGN_OR_RETURN(ExprPtr first, ParseStarTarget());
  if (!AtOp(",")) return first;
  std::vector<ExprPtr> elts = {first};
  while (AcceptOp(",")) {
    if (!StartsExpression(Peek())) break;
    ASSIGN_OR_RETURN(ExprPtr e, ParseStarTarget());
    elts.push_back(std::move(e));
  }
  return New<ast::Tuple>(std::move(elts), Ctx::kLoad, From(first->range));
}

}  // namespace graphd::compiler::internal
