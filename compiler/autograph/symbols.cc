#include "compiler/autograph/symbols.h"

#include "compiler/autograph/transform.h"
#include "compiler/frontend/printer.h"

namespace graphd::compiler::autograph {
namespace {

using ast::ExprKind;
using ast::StmtKind;

// A subscript key that names one element for good: a literal (int, str, bool, also
// `-1`) or a qualifiable symbol. Adds the names it reads to `support`.
bool StaticKey(const ast::Expr& key, NameSet& support);

// Name, or an attribute/subscript chain over one. Adds the names it reads.
bool Qualifiable(const ast::Expr& e, NameSet& support) {
  switch (e.kind) {
    case ExprKind::kName: support.insert(e.As<ast::Name>()->id); return true;
    case ExprKind::kAttribute: return Qualifiable(*e.As<ast::Attribute>()->value, support);
    case ExprKind::kSubscript:
      return Qualifiable(*e.As<ast::Subscript>()->value, support) && StaticKey(*e.As<ast::Subscript>()->slice, support);
    default: return false;
  }
}

bool StaticKey(const ast::Expr& key, NameSet& support) {
  if (auto* c = key.As<ast::Constant>()) {
    return std::holds_alternative<int64_t>(c->value) || std::holds_alternative<std::string>(c->value) ||
           std::holds_alternative<bool>(c->value);
  }
  if (auto* u = key.As<ast::UnaryOp>()) {
    auto* c = u->operand->As<ast::Constant>();
    return u->op == ast::UnaryOpKind::kUSub && c != nullptr && std::holds_alternative<int64_t>(c->value);
  }
  return Qualifiable(key, support);
}

void AddComposites(const ast::Expr& target, std::vector<Symbol>& out) {
  if (auto* t = target.As<ast::Tuple>()) {
    for (const auto& e : t->elts) AddComposites(*e, out);
    return;
  }
  if (auto* l = target.As<ast::List>()) {
    for (const auto& e : l->elts) AddComposites(*e, out);
    return;
  }
  if (auto* s = target.As<ast::Starred>()) {
    AddComposites(*s->value, out);
    return;
  }
  std::optional<Symbol> sym = CompositeOf(target);
  if (!sym) return;
  for (const Symbol& seen : out) {
    if (seen.key == sym->key) return;
  }
  out.push_back(*std::move(sym));
}

void CompositesOf(const ast::Body& body, std::vector<Symbol>& out) {
  for (const auto& s : body) {
    switch (s->kind) {
      case StmtKind::kAssign:
        for (const auto& t : s->As<ast::Assign>()->targets) AddComposites(*t, out);
        break;
      case StmtKind::kAugAssign: AddComposites(*s->As<ast::AugAssign>()->target, out); break;
      case StmtKind::kDelete:
        for (const auto& t : s->As<ast::Delete>()->targets) AddComposites(*t, out);
        break;
      case StmtKind::kFor:
        AddComposites(*s->As<ast::For>()->target, out);
        CompositesOf(s->As<ast::For>()->body, out);
        CompositesOf(s->As<ast::For>()->orelse, out);
        break;
      case StmtKind::kWhile:
        CompositesOf(s->As<ast::While>()->body, out);
        CompositesOf(s->As<ast::While>()->orelse, out);
        break;
      case StmtKind::kIf:
        CompositesOf(s->As<ast::If>()->body, out);
        CompositesOf(s->As<ast::If>()->orelse, out);
        break;
      case StmtKind::kWith:
        for (const auto& item : s->As<ast::With>()->items) {
          if (item.optional_vars) AddComposites(*item.optional_vars, out);
        }
        CompositesOf(s->As<ast::With>()->body, out);
        break;
      case StmtKind::kTry:
        for (const ast::Body* block : Blocks(*s)) CompositesOf(*block, out);
        break;
      default: break;
    }
  }
}

void Declarations(const ast::Body& body, Declared& out) {
  for (const auto& s : body) {
    if (auto* g = s->As<ast::Global>()) out.globals.insert(g->names.begin(), g->names.end());
    if (auto* n = s->As<ast::Nonlocal>()) out.nonlocals.insert(n->names.begin(), n->names.end());
    for (const ast::Body* block : Blocks(*s)) Declarations(*block, out);
  }
}

}  // namespace

std::optional<Symbol> CompositeOf(const ast::Expr& target) {
  if (target.kind != ExprKind::kAttribute && target.kind != ExprKind::kSubscript) return std::nullopt;
  Symbol sym;
  if (!Qualifiable(target, sym.support)) return std::nullopt;
  ast::ExprPtr self(ast::ExprPtr(), &target);  // not owned: only rebuilt below
  sym.expr = WithCtx(self, ast::Ctx::kLoad);
  sym.key = PrintExpr(*sym.expr);
  return sym;
}

std::vector<Symbol> AssignedComposites(const ast::Body& body) {
  std::vector<Symbol> out;
  CompositesOf(body, out);
  return out;
}

Declared DeclaredNames(const ast::Body& body) {
  Declared out;
  Declarations(body, out);
  return out;
}

ast::ExprPtr WithCtx(const ast::ExprPtr& e, ast::Ctx ctx) {
  switch (e->kind) {
    case ExprKind::kName: return std::make_shared<ast::Name>(e->As<ast::Name>()->id, ctx, e->range);
    case ExprKind::kAttribute: {
      auto* a = e->As<ast::Attribute>();
      return std::make_shared<ast::Attribute>(a->value, a->attr, ctx, e->range);
    }
    case ExprKind::kSubscript: {
      auto* s = e->As<ast::Subscript>();
      return std::make_shared<ast::Subscript>(s->value, s->slice, ctx, e->range);
    }
    default: return e;
  }
}

}  // namespace graphd::compiler::autograph
