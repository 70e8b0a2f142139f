// The expression forms (see evaluator.h).
#include "compiler/tracer/errors.h"
#include "compiler/tracer/evaluator.h"

namespace graphd::compiler::tracer {

using ast::ExprKind;

namespace {

Value ConstantValue(const ast::ConstantValue& c) {
  return std::visit(
      [](const auto& v) -> Value {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, ast::NoneValue>) return Value::None();
        if constexpr (std::is_same_v<T, bool>) return Value::Bool(v);
        if constexpr (std::is_same_v<T, int64_t>) return Value::Int(v);
        if constexpr (std::is_same_v<T, double>) return Value::Float(v);
        if constexpr (std::is_same_v<T, std::string>) return Value::Str(v);
        if constexpr (std::is_same_v<T, ast::Bytes>) return Value::Bytes(v.data);
        return Value::Obj(nullptr);  // Ellipsis: handled by the caller
      },
      c);
}

class EllipsisObj : public Object {
 public:
  std::string TypeName() const override { return "ellipsis"; }
  std::string Repr() const override { return "Ellipsis"; }
};

}  // namespace

StatusOr<Value> Evaluator::EvalInner(const ast::Expr& e) {
  switch (e.kind) {
    case ExprKind::kName: return Load(e.As<ast::Name>()->id);
    case ExprKind::kConstant: {
      const auto& c = e.As<ast::Constant>()->value;
      if (std::holds_alternative<ast::EllipsisValue>(c)) {
        static const Value ellipsis = Value::Obj(std::make_shared<EllipsisObj>());
        return ellipsis;
      }
      return ConstantValue(c);
    }
    case ExprKind::kAttribute: {
      ASSIGN_OR_RETURN(Value obj, Eval(*e.As<ast::Attribute>()->value));
      return interp_.GetAttr(obj, e.As<ast::Attribute>()->attr);
    }
    case ExprKind::kSubscript: {
      ASSIGN_OR_RETURN(Value obj, Eval(*e.As<ast::Subscript>()->value));
      ASSIGN_OR_RETURN(Value index, Eval(*e.As<ast::Subscript>()->slice));
      return interp_.Subscript(obj, index);
    }
    case ExprKind::kSlice: return EvalSlice(e);
    case ExprKind::kCall: return EvalCall(*e.As<ast::Call>());
    case ExprKind::kBinOp: {
      auto* b = e.As<ast::BinOp>();
      ASSIGN_OR_RETURN(Value l, Eval(*b->left));
      ASSIGN_OR_RETURN(Value r, Eval(*b->right));
      return interp_.BinaryOp(b->op, l, r);
    }
    case ExprKind::kUnaryOp: {
      auto* u = e.As<ast::UnaryOp>();
      ASSIGN_OR_RETURN(Value x, Eval(*u->operand));
      return interp_.UnaryOp(u->op, x);
    }
    case ExprKind::kBoolOp: {
      // Unconverted code (module level): Python's short-circuit on truthiness.
      auto* b = e.As<ast::BoolOp>();
      Value v;
      for (const auto& operand : b->values) {
        ASSIGN_OR_RETURN(v, Eval(*operand));
        ASSIGN_OR_RETURN(bool truth, interp_.Truthy(v));
        if (truth == (b->op == ast::BoolOpKind::kOr)) return v;
      }
      return v;
    }
    case ExprKind::kCompare: {
      auto* c = e.As<ast::Compare>();
      ASSIGN_OR_RETURN(Value left, Eval(*c->left));
      Value result = Value::Bool(true);
      for (size_t i = 0; i < c->ops.size(); ++i) {
        ASSIGN_OR_RETURN(Value right, Eval(*c->comparators[i]));
        ASSIGN_OR_RETURN(result, interp_.CompareOp(c->ops[i], left, right));
        if (i + 1 < c->ops.size()) {
          ASSIGN_OR_RETURN(bool truth, interp_.Truthy(result));
          if (!truth) return result;
        }
        left = std::move(right);
      }
      return result;
    }
    case ExprKind::kIfExp: {
      auto* i = e.As<ast::IfExp>();
      ASSIGN_OR_RETURN(Value test, Eval(*i->test));
      ASSIGN_OR_RETURN(bool truth, interp_.Truthy(test));
      return Eval(truth ? *i->body : *i->orelse);
    }
    case ExprKind::kLambda: return MakeLambda(e);
    case ExprKind::kTuple:
    case ExprKind::kList: {
      const auto& elts = e.kind == ExprKind::kTuple ? e.As<ast::Tuple>()->elts : e.As<ast::List>()->elts;
      std::vector<Value> items;
      for (const auto& el : elts) {
        if (auto* star = el->As<ast::Starred>()) {
          ASSIGN_OR_RETURN(Value seq, Eval(*star->value));
          ASSIGN_OR_RETURN(std::vector<Value> more, interp_.Iterate(seq));
          items.insert(items.end(), more.begin(), more.end());
          continue;
        }
        ASSIGN_OR_RETURN(Value v, Eval(*el));
        items.push_back(std::move(v));
      }
      return e.kind == ExprKind::kTuple ? Value::Tuple(std::move(items)) : Value::List(std::move(items));
    }
    case ExprKind::kDict: {
      auto* d = e.As<ast::Dict>();
      Value out = Value::NewDict();
      auto put = [&](const Value& k, const Value& v) -> Status {
        ASSIGN_OR_RETURN(int i, out.as_dict()->Find(k));
        if (i >= 0) {
          out.as_dict()->items[i].second = v;
        } else {
          out.as_dict()->items.emplace_back(k, v);
        }
        return absl::OkStatus();
      };
      for (size_t i = 0; i < d->keys.size(); ++i) {
        ASSIGN_OR_RETURN(Value v, Eval(*d->values[i]));
        if (d->keys[i] == nullptr) {
          if (!v.is(Value::Kind::kDict)) return PyError("TypeError", "'" + v.TypeName() + "' object is not a mapping");
          for (const auto& [k, val] : v.as_dict()->items) RETURN_IF_ERROR(put(k, val));
          continue;
        }
        ASSIGN_OR_RETURN(Value k, Eval(*d->keys[i]));
        RETURN_IF_ERROR(put(k, v));
      }
      return out;
    }
    case ExprKind::kListComp:
    case ExprKind::kDictComp:
      return EvalComprehension(e);
    case ExprKind::kStarred:
      return PyError("SyntaxError", "can't use starred expression here");
    case ExprKind::kJoinedStr: return EvalJoinedStr(*e.As<ast::JoinedStr>());
    case ExprKind::kFormattedValue: return PyError("SyntaxError", "formatted value outside an f-string");
  }
  return PyError("SystemError", "unknown expression");
}

StatusOr<Value> Evaluator::EvalComprehension(const ast::Expr& e) {
  const std::vector<ast::Comprehension>& gens =
      e.kind == ExprKind::kListComp ? e.As<ast::ListComp>()->generators : e.As<ast::DictComp>()->generators;
  // The comprehension is a scope of its own whose locals are its targets.
  static const ast::Arguments kNoArgs;
  const ScopeInfo& info = interp_.InfoFor(&e, kNoArgs, nullptr, nullptr);
  auto scope = std::make_shared<Scope>();
  scope->parent = scope_;
  scope->info = &info;
  Evaluator inner(interp_, scope, globals_);
  Value out = e.kind == ExprKind::kListComp ? Value::List({}) : Value::NewDict();
  std::function<Status(size_t)> loop = [&](size_t level) -> Status {
    if (level == gens.size()) {
      if (auto* lc = e.As<ast::ListComp>()) {
        ASSIGN_OR_RETURN(Value v, inner.Eval(*lc->elt));
        out.as_list()->items.push_back(std::move(v));
        return absl::OkStatus();
      }
      auto* dc = e.As<ast::DictComp>();
      ASSIGN_OR_RETURN(Value k, inner.Eval(*dc->key));
      ASSIGN_OR_RETURN(Value v, inner.Eval(*dc->value));
      ASSIGN_OR_RETURN(int i, out.as_dict()->Find(k));
      if (i >= 0) {
        out.as_dict()->items[i].second = v;
      } else {
        out.as_dict()->items.emplace_back(k, v);
      }
      return absl::OkStatus();
    }
    const ast::Comprehension& g = gens[level];
    // The first iterable is evaluated in the enclosing scope.
    ASSIGN_OR_RETURN(Value iterable, level == 0 ? Eval(*g.iter) : inner.Eval(*g.iter));
    ASSIGN_OR_RETURN(std::vector<Value> items, interp_.Iterate(iterable));
    for (const Value& item : items) {
      RETURN_IF_ERROR(interp_.Step());
      RETURN_IF_ERROR(inner.Assign(*g.target, item));
      bool keep = true;
      for (const auto& cond : g.ifs) {
        ASSIGN_OR_RETURN(Value c, inner.Eval(*cond));
        ASSIGN_OR_RETURN(keep, interp_.Truthy(c));
        if (!keep) break;
      }
      if (keep) RETURN_IF_ERROR(loop(level + 1));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(loop(0));
  return out;
}

}  // namespace graphd::compiler::tracer
