// Expressions, names and assignment (see evaluator.h).
#include "absl/strings/str_cat.h"
#include "compiler/tracer/errors.h"
#include "compiler/tracer/evaluator.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {

using ast::ExprKind;

StatusOr<Value> Evaluator::Eval(const ast::Expr& e) {
  if (e.kind == ExprKind::kCall || e.kind == ExprKind::kBinOp || e.kind == ExprKind::kCompare ||
      e.kind == ExprKind::kSubscript || e.kind == ExprKind::kUnaryOp) {
    interp_.set_current_range(e.range);
  }
  auto v = EvalInner(e);
  if (!v.ok() && errors::LocationsOf(v.status()).empty()) return errors::WithLocation(v.status(), e.range);
  return v;
}

std::shared_ptr<Cell> Evaluator::CellFor(const std::string& name, bool create) {
  if (scope_ == nullptr || class_ns_ != nullptr) return nullptr;
  const ScopeInfo& info = *scope_->info;
  if (info.globals.contains(name)) return nullptr;
  if (info.locals.contains(name) && !info.nonlocals.contains(name)) {
    auto& cell = scope_->cells[name];
    if (!cell && create) cell = std::make_shared<Cell>();
    return cell ? cell : std::make_shared<Cell>();  // unbound local
  }
  // Free or nonlocal: the nearest enclosing activation that binds it.
  for (Scope* s = scope_->parent.get(); s != nullptr; s = s->parent.get()) {
    if (s->info->locals.contains(name) && !s->info->nonlocals.contains(name)) {
      auto& cell = s->cells[name];
      if (!cell) cell = std::make_shared<Cell>();
      return cell;
    }
  }
  return nullptr;
}

StatusOr<Value> Evaluator::Load(const std::string& name) {
  ASSIGN_OR_RETURN(Value v, LoadBinding(name));
  if (v.object_as<UndefinedObj>()) {
    // AutoGraph's message for a variable it marked undefined (not bound on this path).
    return PyError("UnboundLocalError", "'" + name + "' is used before assignment");
  }
  return v;
}

StatusOr<Value> Evaluator::LoadBinding(const std::string& name) {
  if (class_ns_ != nullptr) {
    if (const Value* v = class_ns_->Find(name)) return *v;
  }
  if (scope_ != nullptr && class_ns_ == nullptr) {
    std::shared_ptr<Cell> cell = CellFor(name, false);
    if (cell != nullptr) {
      if (cell->bound) return cell->value;
      const ScopeInfo& info = *scope_->info;
      if (info.locals.contains(name) && !info.nonlocals.contains(name)) {
        return PyError("UnboundLocalError", "local variable '" + name + "' referenced before assignment");
      }
      return PyError("NameError", "free variable '" + name + "' referenced before assignment in enclosing scope");
    }
  }
  if (const Value* v = globals_->Find(name)) return *v;
  if (const Value* v = interp_.FindBuiltin(name)) return *v;
  return PyError("NameError", "name '" + name + "' is not defined");
}

Status Evaluator::Store(const std::string& name, Value v) {
  if (class_ns_ != nullptr) {
    class_ns_->Set(name, std::move(v));
    return absl::OkStatus();
  }
  std::shared_ptr<Cell> cell = CellFor(name, true);
  if (cell == nullptr) {
    globals_->Set(name, std::move(v));
    return absl::OkStatus();
  }
  cell->value = std::move(v);
  cell->bound = true;
  return absl::OkStatus();
}

Status Evaluator::Delete(const std::string& name) {
  std::shared_ptr<Cell> cell = CellFor(name, false);
  if (cell != nullptr && cell->bound) {
    cell->bound = false;
    cell->value = Value::None();
    return absl::OkStatus();
  }
  return PyError("NameError", "name '" + name + "' is not defined");
}

Status Evaluator::Assign(const ast::Expr& target, const Value& v) {
  switch (target.kind) {
    case ExprKind::kName: return Store(target.As<ast::Name>()->id, v);
    case ExprKind::kTuple:
    case ExprKind::kList: {
      const auto& elts = target.kind == ExprKind::kTuple ? target.As<ast::Tuple>()->elts : target.As<ast::List>()->elts;
      ASSIGN_OR_RETURN(std::vector<Value> items, interp_.Iterate(v));
      if (items.size() != elts.size()) {
        return PyError("ValueError", items.size() < elts.size()
                                         ? absl::StrCat("not enough values to unpack (expected ", elts.size(), ", got ", items.size(), ")")
                                         : absl::StrCat("too many values to unpack (expected ", elts.size(), ")"));
      }
      for (size_t i = 0; i < elts.size(); ++i) RETURN_IF_ERROR(Assign(*elts[i], items[i]));
      return absl::OkStatus();
    }
    case ExprKind::kAttribute: {
      auto* a = target.As<ast::Attribute>();
      ASSIGN_OR_RETURN(Value obj, Eval(*a->value));
      return interp_.SetAttr(obj, a->attr, v);
    }
    case ExprKind::kSubscript: {
      auto* s = target.As<ast::Subscript>();
      ASSIGN_OR_RETURN(Value obj, Eval(*s->value));
      ASSIGN_OR_RETURN(Value key, Eval(*s->slice));
      if (obj.is(Value::Kind::kDict)) {
        ASSIGN_OR_RETURN(int i, obj.as_dict()->Find(key));
        if (i >= 0) {
          obj.as_dict()->items[i].second = v;
        } else {
          obj.as_dict()->items.emplace_back(key, v);
        }
        return absl::OkStatus();
      }
      if (obj.is(Value::Kind::kList) && key.is_int_like()) {
        auto& items = obj.as_list()->items;
        int64_t n = static_cast<int64_t>(items.size());
        int64_t k = key.as_int() < 0 ? key.as_int() + n : key.as_int();
        if (k < 0 || k >= n) return PyError("IndexError", "list assignment index out of range");
        items[k] = v;
        return absl::OkStatus();
      }
      if (obj.is(Value::Kind::kTensor)) {
        return PyError("TypeError", "'Tensor' object does not support item assignment (tensors are immutable; "
                                    "use tf.tensor_scatter_nd_update or build a new tensor)");
      }
      return PyError("TypeError", "'" + obj.TypeName() + "' object does not support item assignment");
    }
    default: return PyError("SyntaxError", "cannot assign to this expression");
  }
}

StatusOr<std::vector<Value>> Evaluator::EvalDefaults(const std::vector<ast::ExprPtr>& exprs) {
  std::vector<Value> out;
  for (const auto& e : exprs) {
    if (e == nullptr) {
      out.push_back(Value::None());
      continue;
    }
    ASSIGN_OR_RETURN(Value v, Eval(*e));
    out.push_back(std::move(v));
  }
  return out;
}

Status Evaluator::ExecFunctionDef(const ast::FunctionDef& def, const std::shared_ptr<const ast::Stmt>& holder) {
  auto fn = std::make_shared<FunctionObj>();
  interp_.Adopt(fn);
  fn->name = def.name;
  fn->params = &def.args;
  fn->body = &def.body;
  fn->def = holder;
  fn->info = &interp_.InfoFor(&def, def.args, &def.body, nullptr);
  fn->closure = scope_;  // methods close over the enclosing function, not the class
  fn->globals = globals_;
  ASSIGN_OR_RETURN(fn->defaults, EvalDefaults(def.args.defaults));
  for (size_t i = 0; i < def.args.kwonlyargs.size(); ++i) {
    fn->kwonly.insert(def.args.kwonlyargs[i].name);
    if (i < def.args.kw_defaults.size() && def.args.kw_defaults[i]) {
      ASSIGN_OR_RETURN(Value d, Eval(*def.args.kw_defaults[i]));
      fn->kw_defaults.emplace_back(def.args.kwonlyargs[i].name, d);
    }
  }
  Value result = Value::Obj(fn);
  for (auto it = def.decorator_list.rbegin(); it != def.decorator_list.rend(); ++it) {
    ASSIGN_OR_RETURN(Value deco, Eval(**it));
    auto decorated = interp_.Call(deco, CallArgs{.args = {result}, .site = (*it)->range});
    if (!decorated.ok()) return errors::WithLocation(decorated.status(), (*it)->range);
    result = *std::move(decorated);
  }
  return Store(def.name, result);
}

StatusOr<Value> Evaluator::MakeLambda(const ast::Expr& e) {
  auto* l = e.As<ast::Lambda>();
  auto fn = std::make_shared<FunctionObj>();
  interp_.Adopt(fn);
  fn->name = "<lambda>";
  fn->params = &l->args;
  fn->lambda_body = l->body;
  // Keep the AST alive: the lambda node is owned by the module tree, which the
  // FunctionObj of the enclosing def keeps; module-level lambdas by the loaded module.
  fn->info = &interp_.InfoFor(&e, l->args, nullptr, l->body.get());
  fn->closure = scope_;
  fn->globals = globals_;
  ASSIGN_OR_RETURN(fn->defaults, EvalDefaults(l->args.defaults));
  return Value::Obj(fn);
}

StatusOr<Value> Evaluator::EvalSlice(const ast::Expr& e) {
  auto* s = e.As<ast::Slice>();
  Value parts[3];
  const ast::ExprPtr* exprs[3] = {&s->lower, &s->upper, &s->step};
  for (int i = 0; i < 3; ++i) {
    if (*exprs[i]) {
      ASSIGN_OR_RETURN(parts[i], Eval(**exprs[i]));
    }
  }
  return Value::Obj(std::make_shared<SliceObj>(parts[0], parts[1], parts[2]));
}

StatusOr<Value> Evaluator::EvalCall(const ast::Call& call) {
  ASSIGN_OR_RETURN(Value callee, Eval(*call.func));
  CallArgs args{.site = call.range};
  for (const auto& a : call.args) {
    if (auto* star = a->As<ast::Starred>()) {
      ASSIGN_OR_RETURN(Value seq, Eval(*star->value));
      ASSIGN_OR_RETURN(std::vector<Value> items, interp_.Iterate(seq));
      args.args.insert(args.args.end(), items.begin(), items.end());
    } else {
      ASSIGN_OR_RETURN(Value v, Eval(*a));
      args.args.push_back(std::move(v));
    }
  }
  for (const auto& k : call.keywords) {
    ASSIGN_OR_RETURN(Value v, Eval(*k.value));
    if (!k.arg.empty()) {
      args.kwargs.emplace_back(k.arg, std::move(v));
      continue;
    }
    if (!v.is(Value::Kind::kDict)) return PyError("TypeError", "argument after ** must be a mapping, not " + v.TypeName());
    for (const auto& [key, val] : v.as_dict()->items) {
      if (!key.is(Value::Kind::kStr)) return PyError("TypeError", "keywords must be strings");
      args.kwargs.emplace_back(key.as_str(), val);
    }
  }
  auto result = interp_.Call(callee, std::move(args));
  if (!result.ok()) return errors::WithLocation(result.status(), call.range);
  return result;
}

StatusOr<Value> Evaluator::EvalJoinedStr(const ast::JoinedStr& s) {
  std::string out;
  for (const auto& part : s.values) {
    if (auto* c = part->As<ast::Constant>()) {
      out += std::get<std::string>(c->value);
      continue;
    }
    auto* f = part->As<ast::FormattedValue>();
    ASSIGN_OR_RETURN(Value v, Eval(*f->value));
    std::string text = f->conversion == 'r' || f->conversion == 'a' ? PyRepr(v) : PyStr(v);
    if (f->format_spec) {
      ASSIGN_OR_RETURN(Value spec, Eval(*f->format_spec));
      if (!spec.as_str().empty()) {
        return PyError("NotImplementedError", "format specs in f-strings are not supported by graphd yet");
      }
    }
    out += text;
  }
  return Value::Str(out);
}

}  // namespace graphd::compiler::tracer
