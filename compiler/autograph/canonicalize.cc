#include "compiler/autograph/canonicalize.h"

#include "compiler/autograph/builder.h"
#include "compiler/autograph/transform.h"

namespace graphd::compiler::autograph {
namespace {

using ast::Body;
using ast::StmtKind;

// How one kind of exit statement is rewritten.
struct Exit {
  StmtKind kind;
  std::string flag;    // set to True where the exit was
  std::string retval;  // return only: receives the returned value
  bool into_loops;     // return only: exits from nested loops too
};

bool MayExit(const ast::Stmt& s, const Exit& exit) {
  Body single{std::shared_ptr<const ast::Stmt>(std::shared_ptr<const ast::Stmt>(), &s)};
  if (exit.kind == StmtKind::kReturn) return ContainsReturn(single);
  return ContainsLoopExit(single, exit.kind);
}

ast::ExprPtr AndNotFlag(const Builder& b, const std::string& flag, ast::ExprPtr test) {
  ast::ExprPtr not_flag = b.Not(b.Load(flag));
  if (test == nullptr) return not_flag;
  return std::make_shared<ast::BoolOp>(ast::BoolOpKind::kAnd, std::vector<ast::ExprPtr>{not_flag, test},
                                       test->range);
}

Body Guard(const Body& body, const Exit& exit);

ast::StmtPtr Rewrite(const ast::Stmt& s, const Exit& exit) {
  switch (s.kind) {
    case StmtKind::kIf:
      return WithBlocks(s, Guard(s.As<ast::If>()->body, exit), Guard(s.As<ast::If>()->orelse, exit));
    case StmtKind::kWith: return WithBlocks(s, Guard(s.As<ast::With>()->body, exit), {});
    case StmtKind::kWhile:
    case StmtKind::kFor: {
      // Only returns reach here: the loop also stops once the flag is set.
      Builder b(s.range);
      const bool is_while = s.kind == StmtKind::kWhile;
      const Body& body = is_while ? s.As<ast::While>()->body : s.As<ast::For>()->body;
      const Body& orelse = is_while ? s.As<ast::While>()->orelse : s.As<ast::For>()->orelse;
      ast::ExprPtr test = is_while ? s.As<ast::While>()->test : s.As<ast::For>()->extra_test;
      return WithLoopTests(s, AndNotFlag(b, exit.flag, test), Guard(body, exit), Guard(orelse, exit));
    }
    default: return nullptr;
  }
}

Body Guard(const Body& body, const Exit& exit) {
  Body out;
  for (size_t i = 0; i < body.size(); ++i) {
    const ast::Stmt& s = *body[i];
    Builder b(s.range);
    if (s.kind == exit.kind) {
      out.push_back(b.Assign(exit.flag, b.Bool(true)));
      if (exit.kind == StmtKind::kReturn) {
        ast::ExprPtr value = s.As<ast::Return>()->value;
        out.push_back(b.Assign(exit.retval, value ? value : b.None()));
      }
      return out;  // the rest is unreachable
    }
    if (!MayExit(s, exit)) {
      out.push_back(body[i]);
      continue;
    }
    out.push_back(Rewrite(s, exit));
    Body rest(body.begin() + static_cast<long>(i) + 1, body.end());
    if (!rest.empty()) out.push_back(b.If(b.Not(b.Load(exit.flag)), Guard(rest, exit)));
    return out;
  }
  return out;
}

// Canonicalises one loop whose nested loops are already done.
Body CanonicalizeLoop(const ast::Stmt& loop, Namer& namer) {
  Builder b(loop.range);
  const bool is_while = loop.kind == StmtKind::kWhile;
  Body body = is_while ? loop.As<ast::While>()->body : loop.As<ast::For>()->body;
  Body orelse = is_while ? loop.As<ast::While>()->orelse : loop.As<ast::For>()->orelse;
  ast::ExprPtr test = is_while ? loop.As<ast::While>()->test : loop.As<ast::For>()->extra_test;
  Body before, after;
  if (ContainsLoopExit(body, StmtKind::kContinue)) {
    std::string flag = namer.New("continue_");
    Body guarded = Guard(body, {StmtKind::kContinue, flag, "", false});
    body = {b.Assign(flag, b.Bool(false))};
    body.insert(body.end(), guarded.begin(), guarded.end());
  }
  if (ContainsLoopExit(body, StmtKind::kBreak)) {
    std::string flag = namer.New("break_");
    body = Guard(body, {StmtKind::kBreak, flag, "", false});
    before.push_back(b.Assign(flag, b.Bool(false)));
    test = AndNotFlag(b, flag, test);
    // `else` runs only when the loop was not broken out of.
    if (!orelse.empty()) after.push_back(b.If(b.Not(b.Load(flag)), orelse));
    orelse.clear();
  }
  Body out = before;
  out.push_back(WithLoopTests(loop, is_while ? (test ? test : loop.As<ast::While>()->test) : test,
                              std::move(body), std::move(orelse)));
  out.insert(out.end(), after.begin(), after.end());
  return out;
}

}  // namespace

Body CanonicalizeReturns(const Body& body, Namer& namer) {
  bool nested = false;
  for (const auto& s : body) {
    if (s->kind != StmtKind::kReturn && MayExit(*s, {StmtKind::kReturn, "", "", true})) nested = true;
  }
  if (!nested) return body;
  Builder b(body.front()->range);
  Exit exit{StmtKind::kReturn, namer.New("do_return"), namer.New("retval_"), true};
  Body out = {b.Assign(exit.flag, b.Bool(false)),
              b.Assign(exit.retval, b.Call("ag__.UndefinedReturnValue", {}))};
  Body guarded = Guard(body, exit);
  out.insert(out.end(), guarded.begin(), guarded.end());
  out.push_back(Builder(body.back()->range).Return(b.Call("ag__.retval", {b.Load(exit.retval)})));
  return out;
}

Body CanonicalizeLoopExits(const Body& body, Namer& namer) {
  Body out;
  for (const auto& s : body) {
    switch (s->kind) {
      case StmtKind::kIf:
        out.push_back(WithBlocks(*s, CanonicalizeLoopExits(s->As<ast::If>()->body, namer),
                                 CanonicalizeLoopExits(s->As<ast::If>()->orelse, namer)));
        break;
      case StmtKind::kWith:
        out.push_back(WithBlocks(*s, CanonicalizeLoopExits(s->As<ast::With>()->body, namer), {}));
        break;
      case StmtKind::kWhile:
      case StmtKind::kFor: {
        const bool is_while = s->kind == StmtKind::kWhile;
        Body inner = CanonicalizeLoopExits(is_while ? s->As<ast::While>()->body : s->As<ast::For>()->body, namer);
        Body orelse = CanonicalizeLoopExits(is_while ? s->As<ast::While>()->orelse : s->As<ast::For>()->orelse, namer);
        ast::StmtPtr rebuilt = WithBlocks(*s, std::move(inner), std::move(orelse));
        Body loop = CanonicalizeLoop(*rebuilt, namer);
        out.insert(out.end(), loop.begin(), loop.end());
        break;
      }
      default: out.push_back(s);
    }
  }
  return out;
}

}  // namespace graphd::compiler::autograph
