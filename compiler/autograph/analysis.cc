#include "compiler/autograph/analysis.h"

#include <functional>

namespace graphd::compiler::autograph {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::Stmt;
using ast::StmtKind;

void Merge(NameSet& into, const NameSet& from) { into.insert(from.begin(), from.end()); }

NameSet Minus(NameSet a, const NameSet& b) {
  for (const std::string& n : b) a.erase(n);
  return a;
}

void ReadsOf(const ast::ExprPtr& e, NameSet& out);

// Reads of comprehension generators and element(s), minus their targets.
void ReadsOfComprehension(const std::vector<ast::Comprehension>& gens,
                          const std::vector<const Expr*>& elts, NameSet& out) {
  NameSet reads, bound;
  for (const ast::Comprehension& g : gens) {
    NameSet iter_reads;
    ReadsOf(g.iter, iter_reads);
    // The first iterable is evaluated outside; later ones see earlier targets.
    Merge(reads, Minus(iter_reads, bound));
    AddTargetNames(*g.target, bound);
    for (const auto& cond : g.ifs) {
      NameSet r;
      ReadsOf(cond, r);
      Merge(reads, Minus(r, bound));
    }
  }
  for (const Expr* e : elts) {
    NameSet r = ReadNames(*e);
    Merge(reads, Minus(r, bound));
  }
  Merge(out, reads);
}

void ReadsOfArguments(const ast::Arguments& args, NameSet& out) {
  for (const auto& d : args.defaults) ReadsOf(d, out);
  for (const auto& d : args.kw_defaults) ReadsOf(d, out);
}

void ReadsOf(const ast::ExprPtr& e, NameSet& out) {
  if (e == nullptr) return;
  switch (e->kind) {
    case ExprKind::kName:
      if (e->As<ast::Name>()->ctx == ast::Ctx::kLoad) out.insert(e->As<ast::Name>()->id);
      return;
    case ExprKind::kConstant: return;
    case ExprKind::kAttribute: ReadsOf(e->As<ast::Attribute>()->value, out); return;
    case ExprKind::kSubscript:
      ReadsOf(e->As<ast::Subscript>()->value, out);
      ReadsOf(e->As<ast::Subscript>()->slice, out);
      return;
    case ExprKind::kSlice: {
      auto* s = e->As<ast::Slice>();
      ReadsOf(s->lower, out);
      ReadsOf(s->upper, out);
      ReadsOf(s->step, out);
      return;
    }
    case ExprKind::kCall: {
      auto* c = e->As<ast::Call>();
      ReadsOf(c->func, out);
      for (const auto& a : c->args) ReadsOf(a, out);
      for (const auto& k : c->keywords) ReadsOf(k.value, out);
      return;
    }
    case ExprKind::kBinOp:
      ReadsOf(e->As<ast::BinOp>()->left, out);
      ReadsOf(e->As<ast::BinOp>()->right, out);
      return;
    case ExprKind::kUnaryOp: ReadsOf(e->As<ast::UnaryOp>()->operand, out); return;
    case ExprKind::kBoolOp:
      for (const auto& v : e->As<ast::BoolOp>()->values) ReadsOf(v, out);
      return;
    case ExprKind::kCompare: {
      auto* c = e->As<ast::Compare>();
      ReadsOf(c->left, out);
      for (const auto& v : c->comparators) ReadsOf(v, out);
      return;
    }
    case ExprKind::kIfExp: {
      auto* i = e->As<ast::IfExp>();
      ReadsOf(i->test, out);
      ReadsOf(i->body, out);
      ReadsOf(i->orelse, out);
      return;
    }
    case ExprKind::kLambda: {
      auto* l = e->As<ast::Lambda>();
      ReadsOfArguments(l->args, out);
      NameSet body_reads = ReadNames(*l->body);
      NameSet params;
      for (const auto& a : l->args.args) params.insert(a.name);
      for (const auto& a : l->args.kwonlyargs) params.insert(a.name);
      if (l->args.vararg) params.insert(l->args.vararg->name);
      if (l->args.kwarg) params.insert(l->args.kwarg->name);
      Merge(out, Minus(body_reads, params));
      return;
    }
    case ExprKind::kTuple:
      for (const auto& v : e->As<ast::Tuple>()->elts) ReadsOf(v, out);
      return;
    case ExprKind::kList:
      for (const auto& v : e->As<ast::List>()->elts) ReadsOf(v, out);
      return;
    case ExprKind::kDict: {
      auto* d = e->As<ast::Dict>();
      for (const auto& k : d->keys) ReadsOf(k, out);
      for (const auto& v : d->values) ReadsOf(v, out);
      return;
    }
    case ExprKind::kListComp: {
      auto* c = e->As<ast::ListComp>();
      ReadsOfComprehension(c->generators, {c->elt.get()}, out);
      return;
    }
    case ExprKind::kDictComp: {
      auto* c = e->As<ast::DictComp>();
      ReadsOfComprehension(c->generators, {c->key.get(), c->value.get()}, out);
      return;
    }
    case ExprKind::kStarred: ReadsOf(e->As<ast::Starred>()->value, out); return;
    case ExprKind::kJoinedStr:
      for (const auto& v : e->As<ast::JoinedStr>()->values) ReadsOf(v, out);
      return;
    case ExprKind::kFormattedValue:
      ReadsOf(e->As<ast::FormattedValue>()->value, out);
      ReadsOf(e->As<ast::FormattedValue>()->format_spec, out);
      return;
  }
}

// Reads made by evaluating an assignment target (obj in obj.a = v, x and i in x[i] = v).
void TargetReads(const ast::ExprPtr& target, NameSet& out) {
  if (target == nullptr) return;
  switch (target->kind) {
    case ExprKind::kAttribute: ReadsOf(target->As<ast::Attribute>()->value, out); return;
    case ExprKind::kSubscript:
      ReadsOf(target->As<ast::Subscript>()->value, out);
      ReadsOf(target->As<ast::Subscript>()->slice, out);
      return;
    case ExprKind::kTuple:
      for (const auto& v : target->As<ast::Tuple>()->elts) TargetReads(v, out);
      return;
    case ExprKind::kList:
      for (const auto& v : target->As<ast::List>()->elts) TargetReads(v, out);
      return;
    case ExprKind::kStarred: TargetReads(target->As<ast::Starred>()->value, out); return;
    default: return;
  }
}

NameSet ParamNames(const ast::Arguments& args) {
  NameSet params;
  for (const auto& a : args.args) params.insert(a.name);
  for (const auto& a : args.kwonlyargs) params.insert(a.name);
  if (args.vararg) params.insert(args.vararg->name);
  if (args.kwarg) params.insert(args.kwarg->name);
  return params;
}

// Every name read anywhere in `body` (nested functions' free reads included).
void AllReads(const ast::Body& body, NameSet& out);

void AllReadsStmt(const Stmt& s, NameSet& out) {
  switch (s.kind) {
    case StmtKind::kExpr: ReadsOf(s.As<ast::ExprStmt>()->value, out); return;
    case StmtKind::kAssign:
      ReadsOf(s.As<ast::Assign>()->value, out);
      for (const auto& t : s.As<ast::Assign>()->targets) TargetReads(t, out);
      return;
    case StmtKind::kAugAssign: {
      auto* a = s.As<ast::AugAssign>();
      ReadsOf(a->value, out);
      TargetReads(a->target, out);
      if (auto* n = a->target->As<ast::Name>()) out.insert(n->id);
      return;
    }
    case StmtKind::kIf:
      ReadsOf(s.As<ast::If>()->test, out);
      AllReads(s.As<ast::If>()->body, out);
      AllReads(s.As<ast::If>()->orelse, out);
      return;
    case StmtKind::kWhile:
      ReadsOf(s.As<ast::While>()->test, out);
      AllReads(s.As<ast::While>()->body, out);
      AllReads(s.As<ast::While>()->orelse, out);
      return;
    case StmtKind::kFor:
      ReadsOf(s.As<ast::For>()->iter, out);
      TargetReads(s.As<ast::For>()->target, out);
      AllReads(s.As<ast::For>()->body, out);
      AllReads(s.As<ast::For>()->orelse, out);
      return;
    case StmtKind::kReturn: ReadsOf(s.As<ast::Return>()->value, out); return;
    case StmtKind::kAssert:
      ReadsOf(s.As<ast::Assert>()->test, out);
      ReadsOf(s.As<ast::Assert>()->msg, out);
      return;
    case StmtKind::kDelete:
      for (const auto& t : s.As<ast::Delete>()->targets) TargetReads(t, out);
      return;
    case StmtKind::kWith:
      for (const auto& item : s.As<ast::With>()->items) {
        ReadsOf(item.context_expr, out);
        TargetReads(item.optional_vars, out);
      }
      AllReads(s.As<ast::With>()->body, out);
      return;
    case StmtKind::kTry: {
      auto* t = s.As<ast::Try>();
      AllReads(t->body, out);
      for (const auto& h : t->handlers) {
        ReadsOf(h.type, out);
        AllReads(h.body, out);
      }
      AllReads(t->orelse, out);
      AllReads(t->finalbody, out);
      return;
    }
    case StmtKind::kRaise:
      ReadsOf(s.As<ast::Raise>()->exc, out);
      ReadsOf(s.As<ast::Raise>()->cause, out);
      return;
    case StmtKind::kFunctionDef: {
      auto* f = s.As<ast::FunctionDef>();
      for (const auto& d : f->decorator_list) ReadsOf(d, out);
      ReadsOfArguments(f->args, out);
      Merge(out, FreeNames(f->args, f->body));
      return;
    }
    case StmtKind::kClassDef: {
      auto* c = s.As<ast::ClassDef>();
      for (const auto& d : c->decorator_list) ReadsOf(d, out);
      for (const auto& b : c->bases) ReadsOf(b, out);
      AllReads(c->body, out);  // class bodies see the enclosing scope
      return;
    }
    default: return;
  }
}

void AllReads(const ast::Body& body, NameSet& out) {
  for (const auto& s : body) AllReadsStmt(*s, out);
}

bool AnyStmt(const ast::Body& body, const std::function<bool(const Stmt&)>& pred, bool into_loops) {
  for (const auto& s : body) {
    if (pred(*s)) return true;
    switch (s->kind) {
      case StmtKind::kIf:
        if (AnyStmt(s->As<ast::If>()->body, pred, into_loops) ||
            AnyStmt(s->As<ast::If>()->orelse, pred, into_loops)) return true;
        break;
      case StmtKind::kWith:
        if (AnyStmt(s->As<ast::With>()->body, pred, into_loops)) return true;
        break;
      case StmtKind::kTry: {
        auto* t = s->As<ast::Try>();
        if (AnyStmt(t->body, pred, into_loops) || AnyStmt(t->orelse, pred, into_loops) ||
            AnyStmt(t->finalbody, pred, into_loops)) {
          return true;
        }
        for (const auto& h : t->handlers) {
          if (AnyStmt(h.body, pred, into_loops)) return true;
        }
        break;
      }
      case StmtKind::kWhile:
        if (into_loops && (AnyStmt(s->As<ast::While>()->body, pred, into_loops) ||
                           AnyStmt(s->As<ast::While>()->orelse, pred, into_loops))) return true;
        if (!into_loops && AnyStmt(s->As<ast::While>()->orelse, pred, into_loops)) return true;
        break;
      case StmtKind::kFor:
        if (into_loops && (AnyStmt(s->As<ast::For>()->body, pred, into_loops) ||
                           AnyStmt(s->As<ast::For>()->orelse, pred, into_loops))) return true;
        if (!into_loops && AnyStmt(s->As<ast::For>()->orelse, pred, into_loops)) return true;
        break;
      default: break;
    }
  }
  return false;
}

}  // namespace

void AddTargetNames(const ast::Expr& target, NameSet& out) {
  switch (target.kind) {
    case ExprKind::kName: out.insert(target.As<ast::Name>()->id); return;
    case ExprKind::kTuple:
      for (const auto& e : target.As<ast::Tuple>()->elts) AddTargetNames(*e, out);
      return;
    case ExprKind::kList:
      for (const auto& e : target.As<ast::List>()->elts) AddTargetNames(*e, out);
      return;
    case ExprKind::kStarred: AddTargetNames(*target.As<ast::Starred>()->value, out); return;
    default: return;  // attributes and subscripts bind no name
  }
}

NameSet AssignedNames(const ast::Stmt& s) {
  NameSet out;
  switch (s.kind) {
    case StmtKind::kAssign:
      for (const auto& t : s.As<ast::Assign>()->targets) AddTargetNames(*t, out);
      break;
    case StmtKind::kAugAssign: AddTargetNames(*s.As<ast::AugAssign>()->target, out); break;
    case StmtKind::kFor:
      AddTargetNames(*s.As<ast::For>()->target, out);
      Merge(out, AssignedNames(s.As<ast::For>()->body));
      Merge(out, AssignedNames(s.As<ast::For>()->orelse));
      break;
    case StmtKind::kWhile:
      Merge(out, AssignedNames(s.As<ast::While>()->body));
      Merge(out, AssignedNames(s.As<ast::While>()->orelse));
      break;
    case StmtKind::kIf:
      Merge(out, AssignedNames(s.As<ast::If>()->body));
      Merge(out, AssignedNames(s.As<ast::If>()->orelse));
      break;
    case StmtKind::kWith:
      for (const auto& item : s.As<ast::With>()->items) {
        if (item.optional_vars) AddTargetNames(*item.optional_vars, out);
      }
      Merge(out, AssignedNames(s.As<ast::With>()->body));
      break;
    case StmtKind::kDelete:
      for (const auto& t : s.As<ast::Delete>()->targets) AddTargetNames(*t, out);
      break;
    case StmtKind::kTry: {
      auto* t = s.As<ast::Try>();
      Merge(out, AssignedNames(t->body));
      for (const auto& h : t->handlers) {
        if (!h.name.empty()) out.insert(h.name);
        Merge(out, AssignedNames(h.body));
      }
      Merge(out, AssignedNames(t->orelse));
      Merge(out, AssignedNames(t->finalbody));
      break;
    }
    case StmtKind::kFunctionDef: out.insert(s.As<ast::FunctionDef>()->name); break;
    case StmtKind::kClassDef: out.insert(s.As<ast::ClassDef>()->name); break;
    case StmtKind::kImport:
      for (const auto& a : s.As<ast::Import>()->names) {
        out.insert(!a.asname.empty() ? a.asname : a.name.substr(0, a.name.find('.')));
      }
      break;
    case StmtKind::kImportFrom:
      for (const auto& a : s.As<ast::ImportFrom>()->names) out.insert(!a.asname.empty() ? a.asname : a.name);
      break;
    default: break;
  }
  return out;
}

NameSet AssignedNames(const ast::Body& body) {
  NameSet out;
  for (const auto& s : body) Merge(out, AssignedNames(*s));
  return out;
}

NameSet ReadNames(const ast::Expr& expr) {
  NameSet out;
  // ReadsOf takes shared pointers; wrap without taking ownership.
  ReadsOf(ast::ExprPtr(ast::ExprPtr(), &expr), out);
  return out;
}

NameSet FreeNames(const ast::Arguments& params, const ast::Body& body) {
  NameSet reads;
  AllReads(body, reads);
  NameSet bound = AssignedNames(body);
  Merge(bound, ParamNames(params));
  for (const auto& s : body) {
    if (auto* g = s->As<ast::Global>()) {
      for (const auto& n : g->names) bound.erase(n), reads.insert(n);
    }
    if (auto* n = s->As<ast::Nonlocal>()) {
      for (const auto& name : n->names) bound.erase(name), reads.insert(name);
    }
  }
  return Minus(reads, bound);
}

NameSet LiveIn(const ast::Body& body, const NameSet& live_out) {
  NameSet live = live_out;
  for (auto it = body.rbegin(); it != body.rend(); ++it) live = LiveIn(**it, live);
  return live;
}

std::vector<NameSet> LiveOuts(const ast::Body& body, const NameSet& live_out) {
  std::vector<NameSet> outs(body.size());
  NameSet live = live_out;
  for (int i = static_cast<int>(body.size()) - 1; i >= 0; --i) {
    outs[i] = live;
    live = LiveIn(*body[i], live);
  }
  return outs;
}

NameSet LoopHeadLive(const ast::Stmt& loop, const NameSet& live_out) {
  const ast::Body& body = loop.kind == StmtKind::kWhile ? loop.As<ast::While>()->body : loop.As<ast::For>()->body;
  const ast::Body& orelse = loop.kind == StmtKind::kWhile ? loop.As<ast::While>()->orelse : loop.As<ast::For>()->orelse;
  NameSet target;
  if (loop.kind == StmtKind::kFor) AddTargetNames(*loop.As<ast::For>()->target, target);
  NameSet head = live_out;
  Merge(head, LiveIn(orelse, live_out));
  if (loop.kind == StmtKind::kWhile) Merge(head, ReadNames(*loop.As<ast::While>()->test));
  // A for loop's extra test (break and return flags) runs before each item.
  if (loop.kind == StmtKind::kFor && loop.As<ast::For>()->extra_test) {
    Merge(head, ReadNames(*loop.As<ast::For>()->extra_test));
  }
  // Fixpoint: the body's live-in flows back to the head.
  while (true) {
    NameSet next = head;
    Merge(next, Minus(LiveIn(body, head), target));
    if (next == head) return head;
    head = std::move(next);
  }
}

NameSet LiveIn(const ast::Stmt& s, const NameSet& live_out) {
  switch (s.kind) {
    case StmtKind::kIf: {
      auto* i = s.As<ast::If>();
      NameSet live = LiveIn(i->body, live_out);
      Merge(live, LiveIn(i->orelse, live_out));
      Merge(live, ReadNames(*i->test));
      return live;
    }
    case StmtKind::kWhile: return LoopHeadLive(s, live_out);
    case StmtKind::kFor: {
      NameSet live = LoopHeadLive(s, live_out);
      Merge(live, ReadNames(*s.As<ast::For>()->iter));
      return live;
    }
    case StmtKind::kWith: {
      auto* w = s.As<ast::With>();
      NameSet vars;
      for (const auto& item : w->items) {
        if (item.optional_vars) AddTargetNames(*item.optional_vars, vars);
      }
      NameSet live = Minus(LiveIn(w->body, live_out), vars);
      for (const auto& item : w->items) {
        Merge(live, ReadNames(*item.context_expr));
        if (item.optional_vars) TargetReads(item.optional_vars, live);
      }
      return live;
    }
    case StmtKind::kReturn: {
      NameSet live;
      ReadsOf(s.As<ast::Return>()->value, live);
      return live;
    }
    case StmtKind::kTry: {
      std::vector<NameSet> outs = TryLiveOuts(*s.As<ast::Try>(), live_out);
      NameSet live = LiveIn(s.As<ast::Try>()->body, outs[0]);
      Merge(live, TryErrorLive(*s.As<ast::Try>(), live_out));
      return live;
    }
    default: {
      // Straight-line statements: kill what they bind, then add what they read.
      NameSet live = Minus(live_out, AssignedNames(s));
      AllReadsStmt(s, live);
      return live;
    }
  }
}

// What is live where an exception may leave a try's body: what a handler or the
// finally block reads.
NameSet TryErrorLive(const ast::Try& t, const NameSet& live_out) {
  NameSet after = LiveIn(t.finalbody, live_out);
  NameSet on_error = LiveIn(t.finalbody, {});
  for (const auto& h : t.handlers) {
    NameSet in_handler = LiveIn(h.body, after);
    if (!h.name.empty()) in_handler.erase(h.name);
    Merge(on_error, in_handler);
    ReadsOf(h.type, on_error);
  }
  return on_error;
}

std::vector<NameSet> TryLiveOuts(const ast::Try& t, const NameSet& live_out) {
  NameSet after = LiveIn(t.finalbody, live_out);
  // An exception may leave the body anywhere: what handlers and finally read is live
  // all through it.
  NameSet body_out = LiveIn(t.orelse, after);
  Merge(body_out, TryErrorLive(t, live_out));
  std::vector<NameSet> outs = {body_out};
  for (size_t i = 0; i < t.handlers.size(); ++i) outs.push_back(after);
  outs.push_back(after);     // else
  outs.push_back(live_out);  // finally
  return outs;
}

NameSet DefinedAfter(const ast::Stmt& s, const NameSet& before) {
  NameSet out = before;
  switch (s.kind) {
    case StmtKind::kIf: {
      auto* i = s.As<ast::If>();
      NameSet a = before, b = before;
      for (const auto& x : i->body) a = DefinedAfter(*x, a);
      for (const auto& x : i->orelse) b = DefinedAfter(*x, b);
      for (const std::string& n : a) {
        if (b.contains(n)) out.insert(n);
      }
      return out;
    }
    case StmtKind::kWhile:
    case StmtKind::kFor:
      return out;  // the body may run zero times
    case StmtKind::kWith: {
      for (const auto& item : s.As<ast::With>()->items) {
        if (item.optional_vars) AddTargetNames(*item.optional_vars, out);
      }
      for (const auto& x : s.As<ast::With>()->body) out = DefinedAfter(*x, out);
      return out;
    }
    case StmtKind::kTry: {
      // The body may stop anywhere; the finally block always runs.
      for (const auto& x : s.As<ast::Try>()->finalbody) out = DefinedAfter(*x, out);
      return out;
    }
    case StmtKind::kDelete: {
      NameSet deleted;
      for (const auto& t : s.As<ast::Delete>()->targets) AddTargetNames(*t, deleted);
      return Minus(out, deleted);
    }
    default:
      Merge(out, AssignedNames(s));
      return out;
  }
}

bool ContainsReturn(const ast::Body& body) {
  return AnyStmt(body, [](const Stmt& s) { return s.kind == StmtKind::kReturn; }, true);
}

bool ContainsLoopExit(const ast::Body& body, ast::StmtKind kind) {
  return AnyStmt(body, [kind](const Stmt& s) { return s.kind == kind; }, false);
}

}  // namespace graphd::compiler::autograph
