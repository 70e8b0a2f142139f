#include "compiler/autograph/transform.h"

namespace graphd::compiler::autograph {

using namespace ast;  // NOLINT: a file of node rebuilders

namespace {

ExprPtr M(const ExprPtr& e, const ExprFn& fn) { return e ? MapExpr(e, fn) : nullptr; }

std::vector<ExprPtr> MapAll(const std::vector<ExprPtr>& v, const ExprFn& fn, bool* changed) {
  std::vector<ExprPtr> out;
  out.reserve(v.size());
  for (const auto& e : v) {
    out.push_back(M(e, fn));
    *changed |= out.back() != e;
  }
  return out;
}

Arguments MapArguments(const Arguments& a, const ExprFn& fn, bool* changed) {
  Arguments out = a;
  out.defaults = MapAll(a.defaults, fn, changed);
  out.kw_defaults = MapAll(a.kw_defaults, fn, changed);
  return out;
}

std::vector<Comprehension> MapGenerators(const std::vector<Comprehension>& gens, const ExprFn& fn,
                                         bool* changed) {
  std::vector<Comprehension> out;
  for (const auto& g : gens) {
    Comprehension c{.target = g.target, .iter = M(g.iter, fn), .ifs = MapAll(g.ifs, fn, changed)};
    *changed |= c.iter != g.iter;
    out.push_back(std::move(c));
  }
  return out;
}

ExprPtr Rebuild(const ExprPtr& e, const ExprFn& fn) {
  bool ch = false;
  auto m = [&](const ExprPtr& x) {
    ExprPtr y = M(x, fn);
    ch |= y != x;
    return y;
  };
  const SourceRange& r = e->range;
  switch (e->kind) {
    case ExprKind::kName:
    case ExprKind::kConstant:
      return e;
    case ExprKind::kAttribute: {
      auto* a = e->As<Attribute>();
      auto v = m(a->value);
      return ch ? std::make_shared<Attribute>(v, a->attr, a->ctx, r) : e;
    }
    case ExprKind::kSubscript: {
      auto* s = e->As<Subscript>();
      auto v = m(s->value);
      auto sl = m(s->slice);
      return ch ? std::make_shared<Subscript>(v, sl, s->ctx, r) : e;
    }
    case ExprKind::kSlice: {
      auto* s = e->As<Slice>();
      auto lo = m(s->lower), hi = m(s->upper), st = m(s->step);
      return ch ? std::make_shared<Slice>(lo, hi, st, r) : e;
    }
    case ExprKind::kCall: {
      auto* c = e->As<Call>();
      auto f = m(c->func);
      auto args = MapAll(c->args, fn, &ch);
      std::vector<Keyword> kws;
      for (const auto& k : c->keywords) kws.push_back({k.arg, m(k.value), k.range});
      return ch ? std::make_shared<Call>(f, args, kws, r) : e;
    }
    case ExprKind::kBinOp: {
      auto* b = e->As<BinOp>();
      auto l = m(b->left), rr = m(b->right);
      return ch ? std::make_shared<BinOp>(l, b->op, rr, r) : e;
    }
    case ExprKind::kUnaryOp: {
      auto* u = e->As<UnaryOp>();
      auto o = m(u->operand);
      return ch ? std::make_shared<UnaryOp>(u->op, o, r) : e;
    }
    case ExprKind::kBoolOp: {
      auto* b = e->As<BoolOp>();
      auto vs = MapAll(b->values, fn, &ch);
      return ch ? std::make_shared<BoolOp>(b->op, vs, r) : e;
    }
    case ExprKind::kCompare: {
      auto* c = e->As<Compare>();
      auto l = m(c->left);
      auto cs = MapAll(c->comparators, fn, &ch);
      return ch ? std::make_shared<Compare>(l, c->ops, cs, r) : e;
    }
    case ExprKind::kIfExp: {
      auto* i = e->As<IfExp>();
      auto t = m(i->test), b = m(i->body), o = m(i->orelse);
      return ch ? std::make_shared<IfExp>(t, b, o, r) : e;
    }
    case ExprKind::kLambda: {
      auto* l = e->As<Lambda>();
      auto args = MapArguments(l->args, fn, &ch);
      auto body = m(l->body);
      return ch ? std::make_shared<Lambda>(args, body, r) : e;
    }
    case ExprKind::kTuple: {
      auto* t = e->As<Tuple>();
      auto es = MapAll(t->elts, fn, &ch);
      return ch ? std::make_shared<Tuple>(es, t->ctx, r) : e;
    }
    case ExprKind::kList: {
      auto* l = e->As<List>();
      auto es = MapAll(l->elts, fn, &ch);
      return ch ? std::make_shared<List>(es, l->ctx, r) : e;
    }
    case ExprKind::kDict: {
      auto* d = e->As<Dict>();
      auto ks = MapAll(d->keys, fn, &ch);
      auto vs = MapAll(d->values, fn, &ch);
      return ch ? std::make_shared<Dict>(ks, vs, r) : e;
    }
    case ExprKind::kListComp: {
      auto* c = e->As<ListComp>();
      auto el = m(c->elt);
      auto gens = MapGenerators(c->generators, fn, &ch);
      return ch ? std::make_shared<ListComp>(el, gens, r) : e;
    }
    case ExprKind::kDictComp: {
      auto* c = e->As<DictComp>();
      auto k = m(c->key), v = m(c->value);
      auto gens = MapGenerators(c->generators, fn, &ch);
      return ch ? std::make_shared<DictComp>(k, v, gens, r) : e;
    }
    case ExprKind::kStarred: {
      auto* s = e->As<Starred>();
      auto v = m(s->value);
      return ch ? std::make_shared<Starred>(v, s->ctx, r) : e;
    }
    case ExprKind::kJoinedStr: {
      auto* j = e->As<JoinedStr>();
      auto vs = MapAll(j->values, fn, &ch);
      return ch ? std::make_shared<JoinedStr>(vs, r) : e;
    }
    case ExprKind::kFormattedValue: {
      auto* f = e->As<FormattedValue>();
      auto v = m(f->value), spec = m(f->format_spec);
      return ch ? std::make_shared<FormattedValue>(v, f->conversion, spec, r) : e;
    }
  }
  return e;
}

}  // namespace

ExprPtr MapExpr(const ExprPtr& expr, const ExprFn& fn) { return fn(Rebuild(expr, fn)); }

Body MapBodyExprs(const Body& body, const ExprFn& fn) {
  Body out;
  out.reserve(body.size());
  for (const auto& s : body) out.push_back(MapStmtExprs(s, fn));
  return out;
}

StmtPtr MapStmtExprs(const StmtPtr& s, const ExprFn& fn) {
  const SourceRange& r = s->range;
  switch (s->kind) {
    case StmtKind::kExpr: return std::make_shared<ExprStmt>(M(s->As<ExprStmt>()->value, fn), r);
    case StmtKind::kAssign: {
      auto* a = s->As<Assign>();
      bool ch = false;
      return std::make_shared<Assign>(MapAll(a->targets, fn, &ch), M(a->value, fn), r);
    }
    case StmtKind::kAugAssign: {
      auto* a = s->As<AugAssign>();
      return std::make_shared<AugAssign>(M(a->target, fn), a->op, M(a->value, fn), r);
    }
    case StmtKind::kIf: {
      auto* i = s->As<If>();
      return std::make_shared<If>(M(i->test, fn), MapBodyExprs(i->body, fn), MapBodyExprs(i->orelse, fn), r);
    }
    case StmtKind::kWhile: {
      auto* w = s->As<While>();
      auto out = std::make_shared<While>(M(w->test, fn), MapBodyExprs(w->body, fn), MapBodyExprs(w->orelse, fn), r);
      out->had_else = w->had_else;
      return out;
    }
    case StmtKind::kFor: {
      auto* f = s->As<For>();
      auto out = std::make_shared<For>(f->target, M(f->iter, fn), MapBodyExprs(f->body, fn),
                                       MapBodyExprs(f->orelse, fn), r);
      out->extra_test = M(f->extra_test, fn);
      out->had_else = f->had_else;
      return out;
    }
    case StmtKind::kReturn: return std::make_shared<Return>(M(s->As<Return>()->value, fn), r);
    case StmtKind::kAssert:
      return std::make_shared<Assert>(M(s->As<Assert>()->test, fn), M(s->As<Assert>()->msg, fn), r);
    case StmtKind::kWith: {
      auto* w = s->As<With>();
      std::vector<WithItem> items;
      for (const auto& it : w->items) items.push_back({M(it.context_expr, fn), it.optional_vars});
      return std::make_shared<With>(items, MapBodyExprs(w->body, fn), r);
    }
    case StmtKind::kTry: {
      auto* t = s->As<Try>();
      std::vector<ExceptHandler> handlers;
      for (const auto& h : t->handlers) {
        handlers.push_back({.type = M(h.type, fn), .name = h.name, .body = MapBodyExprs(h.body, fn), .range = h.range});
      }
      return std::make_shared<Try>(MapBodyExprs(t->body, fn), std::move(handlers), MapBodyExprs(t->orelse, fn),
                                   MapBodyExprs(t->finalbody, fn), r);
    }
    case StmtKind::kRaise:
      return std::make_shared<Raise>(M(s->As<Raise>()->exc, fn), M(s->As<Raise>()->cause, fn), r);
    case StmtKind::kFunctionDef: {
      auto* f = s->As<FunctionDef>();
      bool ch = false;
      return std::make_shared<FunctionDef>(f->name, MapArguments(f->args, fn, &ch), f->body,
                                           MapAll(f->decorator_list, fn, &ch), f->returns, r);
    }
    default: return s;
  }
}

StmtPtr WithBlocks(const Stmt& s, Body body, Body orelse) {
  switch (s.kind) {
    case StmtKind::kIf: return std::make_shared<If>(s.As<If>()->test, std::move(body), std::move(orelse), s.range);
    case StmtKind::kWhile: {
      auto out = std::make_shared<While>(s.As<While>()->test, std::move(body), std::move(orelse), s.range);
      out->had_else = s.As<While>()->had_else;
      return out;
    }
    case StmtKind::kFor: {
      auto* f = s.As<For>();
      auto out = std::make_shared<For>(f->target, f->iter, std::move(body), std::move(orelse), s.range);
      out->extra_test = f->extra_test;
      out->had_else = f->had_else;
      return out;
    }
    case StmtKind::kWith: return std::make_shared<With>(s.As<With>()->items, std::move(body), s.range);
    default: return nullptr;
  }
}

std::vector<const Body*> Blocks(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::kIf: return {&s.As<If>()->body, &s.As<If>()->orelse};
    case StmtKind::kWhile: return {&s.As<While>()->body, &s.As<While>()->orelse};
    case StmtKind::kFor: return {&s.As<For>()->body, &s.As<For>()->orelse};
    case StmtKind::kWith: return {&s.As<With>()->body};
    case StmtKind::kTry: {
      auto* t = s.As<Try>();
      std::vector<const Body*> out = {&t->body};
      for (const auto& h : t->handlers) out.push_back(&h.body);
      out.push_back(&t->orelse);
      out.push_back(&t->finalbody);
      return out;
    }
    default: return {};
  }
}

StmtPtr WithAllBlocks(const Stmt& s, std::vector<Body> blocks) {
  if (s.kind != StmtKind::kTry) {
    if (blocks.empty()) return nullptr;
    Body orelse = blocks.size() > 1 ? std::move(blocks[1]) : Body{};
    return WithBlocks(s, std::move(blocks[0]), std::move(orelse));
  }
  auto* t = s.As<Try>();
  std::vector<ExceptHandler> handlers = t->handlers;
  for (size_t i = 0; i < handlers.size(); ++i) handlers[i].body = std::move(blocks[1 + i]);
  const size_t n = blocks.size();
  return std::make_shared<Try>(std::move(blocks[0]), std::move(handlers), std::move(blocks[n - 2]),
                               std::move(blocks[n - 1]), s.range);
}

StmtPtr MapBlocks(const Stmt& s, const std::function<Body(const Body&)>& fn) {
  std::vector<const Body*> blocks = Blocks(s);
  if (blocks.empty()) return nullptr;
  std::vector<Body> mapped;
  for (const Body* b : blocks) mapped.push_back(fn(*b));
  return WithAllBlocks(s, std::move(mapped));
}

StmtPtr WithLoopTests(const Stmt& loop, ExprPtr test, Body body, Body orelse) {
  if (loop.kind == StmtKind::kWhile) {
    auto out = std::make_shared<While>(std::move(test), std::move(body), std::move(orelse), loop.range);
    out->had_else = loop.As<While>()->had_else;
    return out;
  }
  auto* f = loop.As<For>();
  auto out = std::make_shared<For>(f->target, f->iter, std::move(body), std::move(orelse), loop.range);
  out->extra_test = std::move(test);
  out->had_else = f->had_else;
  return out;
}

StmtPtr WithFunctionBody(const FunctionDef& def, Body body, std::string name) {
  return std::make_shared<FunctionDef>(std::move(name), def.args, std::move(body), def.decorator_list,
                                       def.returns, def.range);
}

}  // namespace graphd::compiler::autograph
