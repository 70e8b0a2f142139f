#include "compiler/autograph/builder.h"

#include "absl/strings/str_split.h"

namespace graphd::compiler::autograph {

using namespace ast;  // NOLINT: a file of node constructors

ExprPtr Builder::Load(const std::string& name) const { return std::make_shared<Name>(name, Ctx::kLoad, r_); }
ExprPtr Builder::Store(const std::string& name) const { return std::make_shared<Name>(name, Ctx::kStore, r_); }

ExprPtr Builder::Dotted(const std::string& dotted) const {
  std::vector<std::string> parts = absl::StrSplit(dotted, '.');
  ExprPtr e = Load(parts[0]);
  for (size_t i = 1; i < parts.size(); ++i) e = std::make_shared<Attribute>(e, parts[i], Ctx::kLoad, r_);
  return e;
}

ExprPtr Builder::Str(const std::string& value) const { return std::make_shared<Constant>(value, r_); }
ExprPtr Builder::Int(int64_t value) const { return std::make_shared<Constant>(value, r_); }
ExprPtr Builder::Bool(bool value) const { return std::make_shared<Constant>(value, r_); }
ExprPtr Builder::None() const { return std::make_shared<Constant>(NoneValue{}, r_); }

ExprPtr Builder::Call(ExprPtr func, std::vector<ExprPtr> args) const {
  return std::make_shared<ast::Call>(std::move(func), std::move(args), std::vector<Keyword>{}, r_);
}

ExprPtr Builder::Tuple(std::vector<ExprPtr> elts, Ctx ctx) const {
  return std::make_shared<ast::Tuple>(std::move(elts), ctx, r_);
}

ExprPtr Builder::Lambda(ExprPtr body) const { return std::make_shared<ast::Lambda>(Arguments{}, std::move(body), r_); }

ExprPtr Builder::Not(ExprPtr operand) const {
  return std::make_shared<UnaryOp>(UnaryOpKind::kNot, std::move(operand), r_);
}

ExprPtr Builder::NameStrings(const std::vector<std::string>& names) const {
  std::vector<ExprPtr> elts;
  for (const auto& n : names) elts.push_back(Str(n));
  return Tuple(std::move(elts));
}

ExprPtr Builder::LoadTuple(const std::vector<std::string>& names) const {
  std::vector<ExprPtr> elts;
  for (const auto& n : names) elts.push_back(Load(n));
  return Tuple(std::move(elts));
}

StmtPtr Builder::Assign(ExprPtr target, ExprPtr value) const {
  return std::make_shared<ast::Assign>(std::vector<ExprPtr>{std::move(target)}, std::move(value), r_);
}

StmtPtr Builder::Expr(ExprPtr value) const { return std::make_shared<ExprStmt>(std::move(value), r_); }

StmtPtr Builder::If(ExprPtr test, Body body, Body orelse) const {
  return std::make_shared<ast::If>(std::move(test), std::move(body), std::move(orelse), r_);
}

StmtPtr Builder::Return(ExprPtr value) const { return std::make_shared<ast::Return>(std::move(value), r_); }
StmtPtr Builder::Nonlocal(std::vector<std::string> names) const {
  return std::make_shared<ast::Nonlocal>(std::move(names), r_);
}
StmtPtr Builder::Global(std::vector<std::string> names) const {
  return std::make_shared<ast::Global>(std::move(names), r_);
}
StmtPtr Builder::Pass() const { return std::make_shared<ast::Pass>(r_); }

StmtPtr Builder::Def(const std::string& name, std::vector<std::string> params, Body body) const {
  Arguments args;
  for (auto& p : params) args.args.push_back(Arg{.name = std::move(p), .range = r_});
  return std::make_shared<FunctionDef>(name, std::move(args), std::move(body), std::vector<ExprPtr>{},
                                       nullptr, r_);
}

}  // namespace graphd::compiler::autograph
