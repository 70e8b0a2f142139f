#include "compiler/autograph/expressions.h"

#include "compiler/autograph/builder.h"
#include "compiler/autograph/transform.h"
#include "compiler/frontend/printer.h"

namespace graphd::compiler::autograph {
namespace {

using ast::ExprKind;
using ast::ExprPtr;

// ag__.and_(lambda: a, lambda: ag__.and_(lambda: b, lambda: c)) for `a and b and c`.
ExprPtr ConvertBoolOp(const ast::BoolOp& op) {
  Builder b(op.range);
  const char* fn = op.op == ast::BoolOpKind::kAnd ? "ag__.and_" : "ag__.or_";
  ExprPtr result = op.values.back();
  for (int i = static_cast<int>(op.values.size()) - 2; i >= 0; --i) {
    result = b.Call(fn, {b.Lambda(op.values[i]), b.Lambda(result)});
  }
  return result;
}

ExprPtr ConvertExpr(const ExprPtr& e) {
  Builder b(e->range);
  switch (e->kind) {
    case ExprKind::kIfExp: {
      auto* i = e->As<ast::IfExp>();
      return b.Call("ag__.if_exp", {i->test, b.Lambda(i->body), b.Lambda(i->orelse),
                                    b.Str(PrintExpr(*i->test))});
    }
    case ExprKind::kBoolOp: return ConvertBoolOp(*e->As<ast::BoolOp>());
    case ExprKind::kUnaryOp:
      if (e->As<ast::UnaryOp>()->op == ast::UnaryOpKind::kNot) {
        return b.Call("ag__.not_", {e->As<ast::UnaryOp>()->operand});
      }
      return e;
    default: return e;
  }
}

// `x.append(v)` as a statement, on a plain name.
const ast::Call* ListAppend(const ast::Stmt& s) {
  auto* es = s.As<ast::ExprStmt>();
  if (es == nullptr) return nullptr;
  auto* call = es->value->As<ast::Call>();
  if (call == nullptr || call->args.size() != 1 || !call->keywords.empty()) return nullptr;
  auto* attr = call->func->As<ast::Attribute>();
  if (attr == nullptr || attr->attr != "append" || attr->value->kind != ExprKind::kName) return nullptr;
  if (call->args[0]->kind == ExprKind::kStarred) return nullptr;
  return call;
}

ast::Body ConvertStatements(const ast::Body& body, const NameSet& locals);

ast::StmtPtr ConvertStatement(const ast::StmtPtr& s, const NameSet& locals) {
  Builder b(s->range);
  if (auto* a = s->As<ast::Assert>()) {
    ExprPtr msg = a->msg ? b.Lambda(a->msg) : b.None();
    return b.Expr(b.Call("ag__.assert_stmt", {a->test, msg}));
  }
  const ast::Call* call = ListAppend(*s);
  if (call != nullptr && locals.contains(call->func->As<ast::Attribute>()->value->As<ast::Name>()->id)) {
    // The list becomes a loop variable when appended to in a loop: make it assigned.
    const std::string& name = call->func->As<ast::Attribute>()->value->As<ast::Name>()->id;
    return b.Assign(name, b.Call("ag__.list_append", {b.Load(name), call->args[0]}));
  }
  ast::StmtPtr mapped = MapBlocks(*s, [&](const ast::Body& block) { return ConvertStatements(block, locals); });
  return mapped ? mapped : s;
}

ast::Body ConvertStatements(const ast::Body& body, const NameSet& locals) {
  ast::Body out;
  for (const auto& s : body) out.push_back(ConvertStatement(s, locals));
  return out;
}

}  // namespace

ast::Body ConvertExpressions(const ast::Body& body, const NameSet& locals) {
  // Statements first (they look at the original call shapes), then every expression.
  return MapBodyExprs(ConvertStatements(body, locals), ConvertExpr);
}

}  // namespace graphd::compiler::autograph
