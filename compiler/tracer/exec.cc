// Statements (see evaluator.h).
#include "compiler/tracer/errors.h"
#include "compiler/tracer/evaluator.h"
#include "compiler/tracer/exceptions.h"
#include "compiler/tracer/namedtuple.h"
#include "compiler/tracer/repr.h"

namespace graphd::compiler::tracer {

using ast::StmtKind;

StatusOr<Evaluator::Flow> Evaluator::ExecBody(const ast::Body& body) {
  for (const auto& s : body) {
    ASSIGN_OR_RETURN(Flow flow, Exec(s));
    if (flow != Flow::kNormal) return flow;
  }
  return Flow::kNormal;
}

StatusOr<Evaluator::Flow> Evaluator::Exec(const ast::StmtPtr& owner) {
  const ast::Stmt& s = *owner;
  RETURN_IF_ERROR(errors::WithLocation(interp_.Step(), s.range));
  switch (s.kind) {
    case StmtKind::kExpr: {
      ASSIGN_OR_RETURN(Value unused, Eval(*s.As<ast::ExprStmt>()->value));
      (void)unused;
      return Flow::kNormal;
    }
    case StmtKind::kAssign: {
      auto* a = s.As<ast::Assign>();
      ASSIGN_OR_RETURN(Value v, Eval(*a->value));
      for (const auto& t : a->targets) RETURN_IF_ERROR(errors::WithLocation(Assign(*t, v), t->range));
      return Flow::kNormal;
    }
    case StmtKind::kAugAssign: {
      auto* a = s.As<ast::AugAssign>();
      ASSIGN_OR_RETURN(Value rhs, Eval(*a->value));
      Status st;
      if (auto* n = a->target->As<ast::Name>()) {
        ASSIGN_OR_RETURN(Value cur, Load(n->id));
        auto nv = interp_.BinaryOp(a->op, cur, rhs);
        st = nv.ok() ? Store(n->id, *nv) : nv.status();
      } else if (auto* at = a->target->As<ast::Attribute>()) {
        ASSIGN_OR_RETURN(Value obj, Eval(*at->value));
        ASSIGN_OR_RETURN(Value cur, interp_.GetAttr(obj, at->attr));
        auto nv = interp_.BinaryOp(a->op, cur, rhs);
        st = nv.ok() ? interp_.SetAttr(obj, at->attr, *nv) : nv.status();
      } else {
        auto* sub = a->target->As<ast::Subscript>();
        ASSIGN_OR_RETURN(Value obj, Eval(*sub->value));
        ASSIGN_OR_RETURN(Value index, Eval(*sub->slice));
        ASSIGN_OR_RETURN(Value cur, interp_.Subscript(obj, index));
        auto nv = interp_.BinaryOp(a->op, cur, rhs);
        if (!nv.ok()) return errors::WithLocation(nv.status(), s.range);
        // Reuse Assign's item logic through a synthetic store.
        ast::Subscript store(sub->value, sub->slice, ast::Ctx::kStore, sub->range);
        st = Assign(store, *nv);
      }
      RETURN_IF_ERROR(errors::WithLocation(std::move(st), s.range));
      return Flow::kNormal;
    }
    case StmtKind::kIf: {
      auto* i = s.As<ast::If>();
      ASSIGN_OR_RETURN(Value test, Eval(*i->test));
      auto truth = interp_.Truthy(test);
      if (!truth.ok()) return errors::WithLocation(truth.status(), i->test->range);
      return ExecBody(*truth ? i->body : i->orelse);
    }
    case StmtKind::kWhile:
    case StmtKind::kFor:
      return ExecLoop(s);
    case StmtKind::kBreak: return Flow::kBreak;
    case StmtKind::kContinue: return Flow::kContinue;
    case StmtKind::kReturn: {
      auto* r = s.As<ast::Return>();
      if (r->value) {
        ASSIGN_OR_RETURN(return_value_, Eval(*r->value));
      } else {
        return_value_ = Value::None();
      }
      return Flow::kReturn;
    }
    case StmtKind::kPass:
    case StmtKind::kGlobal:
    case StmtKind::kNonlocal:
      return Flow::kNormal;
    case StmtKind::kAssert: {
      auto* a = s.As<ast::Assert>();
      ASSIGN_OR_RETURN(Value test, Eval(*a->test));
      ASSIGN_OR_RETURN(bool ok, interp_.Truthy(test));
      if (ok) return Flow::kNormal;
      std::string msg;
      if (a->msg) {
        ASSIGN_OR_RETURN(Value m, Eval(*a->msg));
        msg = PyStr(m);
      }
      return errors::WithLocation(PyError("AssertionError", msg), s.range);
    }
    case StmtKind::kDelete:
      for (const auto& t : s.As<ast::Delete>()->targets) {
        if (auto* n = t->As<ast::Name>()) {
          RETURN_IF_ERROR(errors::WithLocation(Delete(n->id), t->range));
        } else if (auto* sub = t->As<ast::Subscript>()) {
          ASSIGN_OR_RETURN(Value obj, Eval(*sub->value));
          ASSIGN_OR_RETURN(Value key, Eval(*sub->slice));
          if (obj.is(Value::Kind::kDict)) {
            ASSIGN_OR_RETURN(int i, obj.as_dict()->Find(key));
            if (i < 0) return errors::WithLocation(PyError("KeyError", PyRepr(key)), t->range);
            obj.as_dict()->items.erase(obj.as_dict()->items.begin() + i);
          } else if (obj.is(Value::Kind::kList) && key.is_int_like()) {
            auto& items = obj.as_list()->items;
            int64_t n = static_cast<int64_t>(items.size()), k = key.as_int() < 0 ? key.as_int() + n : key.as_int();
            if (k < 0 || k >= n) return errors::WithLocation(PyError("IndexError", "list assignment index out of range"), t->range);
            items.erase(items.begin() + k);
          } else {
            return errors::WithLocation(PyError("TypeError", "'" + obj.TypeName() + "' object doesn't support item deletion"), t->range);
          }
        } else {
          return errors::WithLocation(PyError("NotImplementedError", "graphd cannot delete attributes"), t->range);
        }
      }
      return Flow::kNormal;
    case StmtKind::kWith: return ExecWith(*s.As<ast::With>(), 0);
    case StmtKind::kTry: return ExecTry(*s.As<ast::Try>());
    case StmtKind::kRaise: return errors::WithLocation(ExecRaise(*s.As<ast::Raise>()), s.range);
    case StmtKind::kFunctionDef:
      RETURN_IF_ERROR(ExecFunctionDef(*s.As<ast::FunctionDef>(), owner));
      return Flow::kNormal;
    case StmtKind::kClassDef:
      RETURN_IF_ERROR(ExecClassDef(*s.As<ast::ClassDef>()));
      return Flow::kNormal;
    case StmtKind::kImport:
    case StmtKind::kImportFrom:
      RETURN_IF_ERROR(errors::WithLocation(ExecImport(s), s.range));
      return Flow::kNormal;
  }
  return Flow::kNormal;
}

StatusOr<Evaluator::Flow> Evaluator::ExecWith(const ast::With& w, size_t item_index) {
  if (item_index == w.items.size()) return ExecBody(w.body);
  const ast::WithItem& item = w.items[item_index];
  ASSIGN_OR_RETURN(Value ctx, Eval(*item.context_expr));
  Value entered = ctx;
  if (ctx.is(Value::Kind::kObject)) {
    auto e = ctx.as_object()->Enter(interp_);
    if (!e.ok()) return errors::WithLocation(e.status(), item.context_expr->range);
    entered = *std::move(e);
  }
  Status bound = item.optional_vars ? Assign(*item.optional_vars, entered) : absl::OkStatus();
  StatusOr<Flow> flow = bound.ok() ? ExecWith(w, item_index + 1) : StatusOr<Flow>(bound);
  if (ctx.is(Value::Kind::kObject)) {
    Status exited = ctx.as_object()->Exit(interp_, !flow.ok());
    if (flow.ok() && !exited.ok()) return errors::WithLocation(exited, item.context_expr->range);
  }
  return flow;
}

Status Evaluator::ExecRaise(const ast::Raise& r) {
  if (r.exc == nullptr) {
    if (handling_.empty()) return PyError("RuntimeError", "No active exception to reraise");
    return handling_.back();
  }
  ASSIGN_OR_RETURN(Value v, Eval(*r.exc));
  if (r.cause != nullptr) {
    ASSIGN_OR_RETURN(Value cause, Eval(*r.cause));
    if (!cause.is_none() && !cause.object_as<ExceptionObj>() && !cause.object_as<ExceptionClassObj>()) {
      return PyError("TypeError", "exception causes must derive from BaseException");
    }
  }
  if (v.object_as<ExceptionClassObj>()) {
    ASSIGN_OR_RETURN(v, interp_.Call(v, CallArgs{.site = r.exc->range}));
  }
  auto exc = v.object_as<ExceptionObj>();
  if (exc == nullptr) return PyError("TypeError", "exceptions must derive from BaseException");
  return interp_.Raise(std::move(exc));
}

StatusOr<bool> Evaluator::HandlerMatches(const ast::ExceptHandler& h, const ExceptionObj& exc) {
  if (h.type == nullptr) return true;
  ASSIGN_OR_RETURN(Value type, Eval(*h.type));
  std::vector<Value> types = type.is(Value::Kind::kTuple) ? type.as_tuple() : std::vector<Value>{type};
  for (const Value& t : types) {
    auto cls = t.object_as<ExceptionClassObj>();
    if (cls == nullptr) {
      return errors::WithLocation(
          PyError("TypeError", "catching classes that do not inherit from BaseException is not allowed"),
          h.type->range);
    }
    if (exc.cls()->IsSubclassOf(*cls)) return true;
  }
  return false;
}

StatusOr<Evaluator::Flow> Evaluator::ExecTry(const ast::Try& t) {
  StatusOr<Flow> flow = ExecBody(t.body);
  if (!flow.ok() && Catchable(flow.status())) {
    Status error = flow.status();
    std::shared_ptr<ExceptionObj> exc = interp_.ExceptionFor(error);
    for (const ast::ExceptHandler& h : t.handlers) {
      StatusOr<bool> matches = HandlerMatches(h, *exc);
      if (!matches.ok()) {
        flow = matches.status();
        break;
      }
      if (!*matches) continue;
      Status bound = h.name.empty() ? absl::OkStatus() : Store(h.name, Value::Obj(exc));
      handling_.push_back(error);
      flow = bound.ok() ? ExecBody(h.body) : StatusOr<Flow>(bound);
      handling_.pop_back();
      if (!h.name.empty()) Delete(h.name).IgnoreError();  // Python unbinds it after the handler
      break;
    }
  } else if (flow.ok() && *flow == Flow::kNormal) {
    flow = ExecBody(t.orelse);
  }
  if (t.finalbody.empty()) return flow;
  Value returned = return_value_;
  ASSIGN_OR_RETURN(Flow after, ExecBody(t.finalbody));
  if (after != Flow::kNormal) return after;  // a return/break/continue in finally wins
  return_value_ = returned;
  return flow;
}

StatusOr<Evaluator::Flow> Evaluator::ExecLoop(const ast::Stmt& s) {
  auto run_body = [&](const ast::Body& body, bool* broke) -> StatusOr<bool> {  // false: return
    ASSIGN_OR_RETURN(Flow flow, ExecBody(body));
    if (flow == Flow::kReturn) return false;
    *broke = flow == Flow::kBreak;
    return true;
  };
  bool broke = false;
  if (auto* w = s.As<ast::While>()) {
    while (true) {
      RETURN_IF_ERROR(errors::WithLocation(interp_.Step(), s.range));
      ASSIGN_OR_RETURN(Value test, Eval(*w->test));
      auto truth = interp_.Truthy(test);
      if (!truth.ok()) return errors::WithLocation(truth.status(), w->test->range);
      if (!*truth) break;
      ASSIGN_OR_RETURN(bool go_on, run_body(w->body, &broke));
      if (!go_on) return Flow::kReturn;
      if (broke) break;
    }
    if (!broke) return ExecBody(w->orelse);
    return Flow::kNormal;
  }
  auto* f = s.As<ast::For>();
  ASSIGN_OR_RETURN(Value iterable, Eval(*f->iter));
  auto items = interp_.Iterate(iterable);
  if (!items.ok()) return errors::WithLocation(items.status(), f->iter->range);
  for (const Value& item : *items) {
    RETURN_IF_ERROR(errors::WithLocation(interp_.Step(), s.range));
    RETURN_IF_ERROR(errors::WithLocation(Assign(*f->target, item), f->target->range));
    ASSIGN_OR_RETURN(bool go_on, run_body(f->body, &broke));
    if (!go_on) return Flow::kReturn;
    if (broke) break;
  }
  if (!broke) return ExecBody(f->orelse);
  return Flow::kNormal;
}

Status Evaluator::ExecImport(const ast::Stmt& s) {
  auto import = [&](const std::string& module) -> StatusOr<Value> {
    const Value* m = interp_.FindModule(module);
    if (m == nullptr) {
      return PyError("ImportError", "graphd cannot import '" + module +
                                        "': only tensorflow (tensorflow.compat.v2), numpy and collections are "
                                        "available");
    }
    return *m;
  };
  if (auto* imp = s.As<ast::Import>()) {
    for (const auto& alias : imp->names) {
      if (!alias.asname.empty()) {
        ASSIGN_OR_RETURN(Value m, import(alias.name));
        RETURN_IF_ERROR(Store(alias.asname, m));
      } else {
        std::string top = alias.name.substr(0, alias.name.find('.'));
        ASSIGN_OR_RETURN(Value m, import(top));
        RETURN_IF_ERROR(import(alias.name).status());
        RETURN_IF_ERROR(Store(top, m));
      }
    }
    return absl::OkStatus();
  }
  auto* from = s.As<ast::ImportFrom>();
  if (from->module == "__future__") return absl::OkStatus();  // no-ops in Python 3
  ASSIGN_OR_RETURN(Value m, import(from->module));
  for (const auto& alias : from->names) {
    auto attr = interp_.GetAttr(m, alias.name);
    if (!attr.ok()) return PyError("ImportError", "cannot import name '" + alias.name + "' from '" + from->module + "'");
    RETURN_IF_ERROR(Store(alias.asname.empty() ? alias.name : alias.asname, *attr));
  }
  return absl::OkStatus();
}

Status Evaluator::ExecClassDef(const ast::ClassDef& def) {
  if (def.bases.size() == 1) {
    // A user exception class: its base is an exception class.
    ASSIGN_OR_RETURN(Value base, Eval(*def.bases[0]));
    if (auto tuple_cls = base.object_as<NamedTupleClassObj>()) {
      auto ns = std::make_shared<Namespace>(def.name);
      Evaluator body(interp_, scope_, globals_, ns);
      RETURN_IF_ERROR(body.ExecBody(def.body).status());
      return Store(def.name, Value::Obj(tuple_cls->Derive(def.name, ns)));
    }
    if (auto base_cls = base.object_as<ExceptionClassObj>()) {
      auto ns = std::make_shared<Namespace>(def.name);
      Evaluator body(interp_, scope_, globals_, ns);
      RETURN_IF_ERROR(body.ExecBody(def.body).status());
      Value cls = Value::Obj(std::make_shared<ExceptionClassObj>(def.name, base_cls, ns, /*builtin=*/false));
      if (!def.decorator_list.empty()) {
        return errors::WithLocation(PyError("NotImplementedError", "graphd exception classes cannot be decorated"),
                                    def.range);
      }
      return Store(def.name, cls);
    }
  }
  // Bases: user classes and tf.Module (a ClassObj too); `object` adds nothing.
  std::vector<std::shared_ptr<ClassObj>> bases;
  for (const auto& base : def.bases) {
    if (auto* n = base->As<ast::Name>(); n != nullptr && n->id == "object") continue;
    ASSIGN_OR_RETURN(Value b, Eval(*base));
    auto cls = b.object_as<ClassObj>();
    if (cls == nullptr) {
      return errors::WithLocation(
          PyError("TypeError", "graphd classes can derive from classes defined in the module and from tf.Module, "
                               "not from " + b.TypeName()),
          base->range);
    }
    bases.push_back(std::move(cls));
  }
  auto ns = std::make_shared<Namespace>(def.name);
  Evaluator body(interp_, scope_, globals_, ns);
  ASSIGN_OR_RETURN(Flow flow, body.ExecBody(def.body));
  (void)flow;
  auto class_obj = std::make_shared<ClassObj>(def.name, ns, std::move(bases));
  for (const auto& [name, value] : ns->attrs()) {
    if (auto fn = value.object_as<FunctionObj>()) fn->owner = class_obj;
    if (auto prop = value.object_as<PropertyObj>()) {
      if (auto getter = prop->getter.object_as<FunctionObj>()) getter->owner = class_obj;
    }
  }
  if (ContainerRegistry* r = CurrentContainerRegistry()) r->Add(class_obj);
  Value cls = Value::Obj(std::move(class_obj));
  for (auto it = def.decorator_list.rbegin(); it != def.decorator_list.rend(); ++it) {
    ASSIGN_OR_RETURN(Value deco, Eval(**it));
    ASSIGN_OR_RETURN(cls, interp_.Call(deco, CallArgs{.args = {cls}, .site = (*it)->range}));
  }
  return Store(def.name, cls);
}

}  // namespace graphd::compiler::tracer
