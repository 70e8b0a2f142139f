// Expressions with the fewest parentheses that precedence and associativity allow.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "compiler/frontend/print_internal.h"
#include "compiler/frontend/printer.h"

namespace graphd::compiler {
namespace print_internal {
namespace {

using ast::BinOpKind;
using ast::Expr;
using ast::ExprKind;

int BinOpPrec(BinOpKind op) {
  switch (op) {
    case BinOpKind::kBitOr: return kBor;
    case BinOpKind::kBitXor: return kBxor;
    case BinOpKind::kBitAnd: return kBand;
    case BinOpKind::kLShift:
    case BinOpKind::kRShift: return kShift;
    case BinOpKind::kAdd:
    case BinOpKind::kSub: return kArith;
    case BinOpKind::kPow: return kPower;
    default: return kTerm;
  }
}

const char* BinOpText(BinOpKind op) {
  switch (op) {
    case BinOpKind::kAdd: return "+";
    case BinOpKind::kSub: return "-";
    case BinOpKind::kMult: return "*";
    case BinOpKind::kMatMult: return "@";
    case BinOpKind::kDiv: return "/";
    case BinOpKind::kFloorDiv: return "//";
    case BinOpKind::kMod: return "%";
    case BinOpKind::kPow: return "**";
    case BinOpKind::kLShift: return "<<";
    case BinOpKind::kRShift: return ">>";
    case BinOpKind::kBitOr: return "|";
    case BinOpKind::kBitXor: return "^";
    case BinOpKind::kBitAnd: return "&";
  }
  return "?";
}

const char* CmpOpText(ast::CmpOpKind op) {
  switch (op) {
    case ast::CmpOpKind::kEq: return "==";
    case ast::CmpOpKind::kNotEq: return "!=";
    case ast::CmpOpKind::kLt: return "<";
    case ast::CmpOpKind::kLtE: return "<=";
    case ast::CmpOpKind::kGt: return ">";
    case ast::CmpOpKind::kGtE: return ">=";
    case ast::CmpOpKind::kIs: return "is";
    case ast::CmpOpKind::kIsNot: return "is not";
    case ast::CmpOpKind::kIn: return "in";
    case ast::CmpOpKind::kNotIn: return "not in";
  }
  return "?";
}

void AppendList(const std::vector<ast::ExprPtr>& elts, int min_prec, std::string* out) {
  for (size_t i = 0; i < elts.size(); ++i) {
    if (i > 0) *out += ", ";
    AppendExpr(*elts[i], min_prec, out);
  }
}

void AppendSliceItem(const Expr& e, std::string* out) {
  const auto* s = e.As<ast::Slice>();
  if (s == nullptr) {
    AppendExpr(e, kTest, out);
    return;
  }
  if (s->lower) AppendExpr(*s->lower, kTest, out);
  *out += ":";
  if (s->upper) AppendExpr(*s->upper, kTest, out);
  if (s->step) {
    *out += ":";
    AppendExpr(*s->step, kTest, out);
  }
}

void AppendGenerators(const std::vector<ast::Comprehension>& gens, std::string* out) {
  for (const ast::Comprehension& g : gens) {
    *out += " for ";
    AppendExpr(*g.target, kTuple, out);
    *out += " in ";
    AppendExpr(*g.iter, kOr, out);
    for (const ast::ExprPtr& cond : g.ifs) {
      *out += " if ";
      AppendExpr(*cond, kOr, out);
    }
  }
}

void AppendArg(const ast::Arg& a, const ast::ExprPtr& def, std::string* out) {
  *out += a.name;
  if (a.annotation) {
    *out += ": ";
    AppendExpr(*a.annotation, kTest, out);
  }
  if (def) {
    *out += a.annotation ? " = " : "=";
    AppendExpr(*def, kTest, out);
  }
}

// The node itself, without the parentheses AppendExpr may add.
void AppendBare(const Expr& e, std::string* out) {
  switch (e.kind) {
    case ExprKind::kName:
      *out += e.As<ast::Name>()->id;
      return;
    case ExprKind::kConstant:
      AppendConstant(e.As<ast::Constant>()->value, out);
      return;
    case ExprKind::kAttribute: {
      const auto* a = e.As<ast::Attribute>();
      const auto* c = a->value->As<ast::Constant>();
      const bool int_literal = c != nullptr && std::holds_alternative<int64_t>(c->value);
      AppendExpr(*a->value, int_literal ? kAtom + 1 : kAtom, out);  // (1).real, not 1.real
      absl::StrAppend(out, ".", a->attr);
      return;
    }
    case ExprKind::kSubscript: {
      const auto* s = e.As<ast::Subscript>();
      AppendExpr(*s->value, kAtom, out);
      *out += "[";
      const auto* t = s->slice->As<ast::Tuple>();
      if (t != nullptr && !t->elts.empty()) {
        for (size_t i = 0; i < t->elts.size(); ++i) {
          if (i > 0) *out += ", ";
          AppendSliceItem(*t->elts[i], out);
        }
        if (t->elts.size() == 1) *out += ",";
      } else {
        AppendSliceItem(*s->slice, out);
      }
      *out += "]";
      return;
    }
    case ExprKind::kSlice:  // only meaningful inside a subscript
      AppendSliceItem(e, out);
      return;
    case ExprKind::kCall: {
      const auto* c = e.As<ast::Call>();
      AppendExpr(*c->func, kAtom, out);
      *out += "(";
      AppendList(c->args, kTest, out);
      for (size_t i = 0; i < c->keywords.size(); ++i) {
        if (i > 0 || !c->args.empty()) *out += ", ";
        const ast::Keyword& k = c->keywords[i];
        *out += k.arg.empty() ? "**" : k.arg + "=";
        AppendExpr(*k.value, kTest, out);
      }
      *out += ")";
      return;
    }
    case ExprKind::kBinOp: {
      const auto* b = e.As<ast::BinOp>();
      const int p = BinOpPrec(b->op);
      const bool right_assoc = b->op == BinOpKind::kPow;
      AppendExpr(*b->left, right_assoc ? p + 1 : p, out);
      absl::StrAppend(out, " ", BinOpText(b->op), " ");
      AppendExpr(*b->right, right_assoc ? kFactor : p + 1, out);
      return;
    }
    case ExprKind::kUnaryOp: {
      const auto* u = e.As<ast::UnaryOp>();
      switch (u->op) {
        case ast::UnaryOpKind::kNot:
          *out += "not ";
          AppendExpr(*u->operand, kNot, out);
          return;
        case ast::UnaryOpKind::kUSub: *out += "-"; break;
        case ast::UnaryOpKind::kUAdd: *out += "+"; break;
        case ast::UnaryOpKind::kInvert: *out += "~"; break;
      }
      std::string operand;
      AppendExpr(*u->operand, kFactor, &operand);
      if (operand[0] == '-' || operand[0] == '+') *out += " ";  // - -x, not --x
      *out += operand;
      return;
    }
    case ExprKind::kBoolOp: {
      const auto* b = e.As<ast::BoolOp>();
      const int p = PrecOf(e);
      for (size_t i = 0; i < b->values.size(); ++i) {
        if (i > 0) *out += b->op == ast::BoolOpKind::kAnd ? " and " : " or ";
        AppendExpr(*b->values[i], p + 1, out);
      }
      return;
    }
    case ExprKind::kCompare: {
      const auto* c = e.As<ast::Compare>();
      AppendExpr(*c->left, kCmp + 1, out);
      for (size_t i = 0; i < c->ops.size() && i < c->comparators.size(); ++i) {
        absl::StrAppend(out, " ", CmpOpText(c->ops[i]), " ");
        AppendExpr(*c->comparators[i], kCmp + 1, out);
      }
      return;
    }
    case ExprKind::kIfExp: {
      const auto* i = e.As<ast::IfExp>();
      AppendExpr(*i->body, kOr, out);
      *out += " if ";
      AppendExpr(*i->test, kOr, out);
      *out += " else ";
      AppendExpr(*i->orelse, kTest, out);
      return;
    }
    case ExprKind::kLambda: {
      const auto* l = e.As<ast::Lambda>();
      std::string args;
      AppendArguments(l->args, &args);
      absl::StrAppend(out, "lambda", args.empty() ? "" : " ", args, ": ");
      AppendExpr(*l->body, kTest, out);
      return;
    }
    case ExprKind::kTuple: {
      const auto& elts = e.As<ast::Tuple>()->elts;
      if (elts.size() == 1) {
        *out += "(";
        AppendExpr(*elts[0], kTest, out);
        *out += ",)";
      } else if (elts.empty()) {
        *out += "()";
      } else {
        AppendList(elts, kTest, out);
      }
      return;
    }
    case ExprKind::kList:
      *out += "[";
      AppendList(e.As<ast::List>()->elts, kTest, out);
      *out += "]";
      return;
    case ExprKind::kDict: {
      const auto* d = e.As<ast::Dict>();
      *out += "{";
      for (size_t i = 0; i < d->values.size(); ++i) {
        if (i > 0) *out += ", ";
        if (i < d->keys.size() && d->keys[i]) {
          AppendExpr(*d->keys[i], kTest, out);
          *out += ": ";
          AppendExpr(*d->values[i], kTest, out);
        } else {
          *out += "**";
          AppendExpr(*d->values[i], kBor, out);
        }
      }
      *out += "}";
      return;
    }
    case ExprKind::kListComp: {
      const auto* c = e.As<ast::ListComp>();
      *out += "[";
      AppendExpr(*c->elt, kTest, out);
      AppendGenerators(c->generators, out);
      *out += "]";
      return;
    }
    case ExprKind::kDictComp: {
      const auto* c = e.As<ast::DictComp>();
      *out += "{";
      AppendExpr(*c->key, kTest, out);
      *out += ": ";
      AppendExpr(*c->value, kTest, out);
      AppendGenerators(c->generators, out);
      *out += "}";
      return;
    }
    case ExprKind::kStarred:
      *out += "*";
      AppendExpr(*e.As<ast::Starred>()->value, kBor, out);
      return;
    case ExprKind::kJoinedStr:
      AppendFString(e.As<ast::JoinedStr>()->values, out);
      return;
    case ExprKind::kFormattedValue: {
      std::vector<ast::ExprPtr> one = {std::shared_ptr<const Expr>(std::shared_ptr<const Expr>{}, &e)};
      AppendFString(one, out);
      return;
    }
  }
}

}  // namespace

int PrecOf(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kTuple:
      return e.As<ast::Tuple>()->elts.size() > 1 ? kTuple : kAtom;
    case ExprKind::kLambda:
    case ExprKind::kIfExp:
      return kTest;
    case ExprKind::kBoolOp:
      return e.As<ast::BoolOp>()->op == ast::BoolOpKind::kOr ? kOr : kAnd;
    case ExprKind::kUnaryOp:
      return e.As<ast::UnaryOp>()->op == ast::UnaryOpKind::kNot ? kNot : kFactor;
    case ExprKind::kCompare:
      return kCmp;
    case ExprKind::kBinOp:
      return BinOpPrec(e.As<ast::BinOp>()->op);
    case ExprKind::kConstant: {  // negative numbers print with a unary minus
      const auto& v = e.As<ast::Constant>()->value;
      if (const auto* i = std::get_if<int64_t>(&v)) return *i < 0 ? kFactor : kAtom;
      if (const auto* d = std::get_if<double>(&v)) return !std::isnan(*d) && std::signbit(*d) ? kFactor : kAtom;
      return kAtom;
    }
    default:
      return kAtom;
  }
}

void AppendExpr(const Expr& e, int min_prec, std::string* out) {
  if (PrecOf(e) >= min_prec) {
    AppendBare(e, out);
    return;
  }
  *out += "(";
  AppendBare(e, out);
  *out += ")";
}

void AppendArguments(const ast::Arguments& a, std::string* out) {
  std::vector<std::string> parts;
  const size_t first_default = a.args.size() - std::min(a.args.size(), a.defaults.size());
  for (size_t i = 0; i < a.args.size(); ++i) {
    std::string p;
    AppendArg(a.args[i], i >= first_default ? a.defaults[i - first_default] : nullptr, &p);
    parts.push_back(std::move(p));
  }
  if (a.vararg) {
    std::string p = "*";
    AppendArg(*a.vararg, nullptr, &p);
    parts.push_back(std::move(p));
  } else if (!a.kwonlyargs.empty()) {
    parts.push_back("*");
  }
  for (size_t i = 0; i < a.kwonlyargs.size(); ++i) {
    std::string p;
    AppendArg(a.kwonlyargs[i], i < a.kw_defaults.size() ? a.kw_defaults[i] : nullptr, &p);
    parts.push_back(std::move(p));
  }
  if (a.kwarg) {
    std::string p = "**";
    AppendArg(*a.kwarg, nullptr, &p);
    parts.push_back(std::move(p));
  }
  for (size_t i = 0; i < parts.size(); ++i) absl::StrAppend(out, i > 0 ? ", " : "", parts[i]);
}

}  // namespace print_internal

std::string PrintExpr(const ast::Expr& expr) {
  std::string out;
  print_internal::AppendExpr(expr, print_internal::kTest, &out);
  return out;
}

}  // namespace graphd::compiler
