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

// `body` with its exits rewritten; `*exits` tells whether it certainly exits (a
// return on every path: the code after it is dead).
Body Guard(const Body& body, const Exit& exit, bool* exits = nullptr);

ast::StmtPtr Rewrite(const ast::Stmt& s, const Exit& exit) {
  switch (s.kind) {
    case StmtKind::kIf:
      return WithBlocks(s, Guard(s.As<ast::If>()->body, exit), Guard(s.As<ast::If>()->orelse, exit));
    case StmtKind::kWith: return WithBlocks(s, Guard(s.As<ast::With>()->body, exit), {});
    case StmtKind::kTry: return MapBlocks(s, [&](const Body& block) { return Guard(block, exit); });
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

Body Concat(const Body& a, const Body& b) {
  Body out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// TensorFlow's special case for returns: after `if c: ... return` the rest of the
// block runs only when `c` is false, so it moves into the else branch (and the
// other way round). Both branches then set the return value, which a tensor `if`
// needs. Null when neither branch certainly returns.
ast::StmtPtr CollapseIf(const ast::If& s, const Body& rest, const Exit& exit, bool* exits) {
  bool body_exits = false, else_exits = false;
  Body body = Guard(s.body, exit, &body_exits);
  Body orelse = Guard(s.orelse, exit, &else_exits);
  if (!body_exits && !else_exits) return nullptr;
  if (body_exits && !else_exits) orelse = Guard(Concat(s.orelse, rest), exit, &else_exits);
  if (else_exits && !body_exits) body = Guard(Concat(s.body, rest), exit, &body_exits);
  *exits = body_exits && else_exits;
  return WithBlocks(s, std::move(body), std::move(orelse));
}

Body Guard(const Body& body, const Exit& exit, bool* exits) {
  bool ignored = false;
  if (exits == nullptr) exits = &ignored;
  *exits = false;
  Body out;
  for (size_t i = 0; i < body.size(); ++i) {
    const ast::Stmt& s = *body[i];
    Builder b(s.range);
    if (s.kind == exit.kind) {
      // The value first: an exception evaluating it (caught by a try around) must
      // leave the flag unset.
      if (exit.kind == StmtKind::kReturn) {
        ast::ExprPtr value = s.As<ast::Return>()->value;
        out.push_back(b.Assign(exit.retval, value ? value : b.None()));
      }
      out.push_back(b.Assign(exit.flag, b.Bool(true)));
      *exits = true;
      return out;  // the rest is unreachable
    }
    if (!MayExit(s, exit)) {
      out.push_back(body[i]);
      continue;
    }
    Body rest(body.begin() + static_cast<long>(i) + 1, body.end());
    if (exit.kind == StmtKind::kReturn && s.kind == StmtKind::kIf) {
      if (ast::StmtPtr collapsed = CollapseIf(*s.As<ast::If>(), rest, exit, exits)) {
        out.push_back(std::move(collapsed));
        return out;
      }
    }
    if (exit.kind == StmtKind::kReturn && s.kind == StmtKind::kWith) {
      bool with_exits = false;
      out.push_back(WithBlocks(s, Guard(s.As<ast::With>()->body, exit, &with_exits), {}));
      if (with_exits) {
        *exits = true;
        return out;
      }
    } else {
      out.push_back(Rewrite(s, exit));
    }
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
  const bool had_else = !after.empty();
  ast::StmtPtr rebuilt = WithLoopTests(loop, is_while ? (test ? test : loop.As<ast::While>()->test) : test,
                                       std::move(body), std::move(orelse));
  if (had_else) {  // remembered for the staged loop, which refuses else clauses as TensorFlow does
    if (is_while) {
      std::const_pointer_cast<ast::While>(std::static_pointer_cast<const ast::While>(rebuilt))->had_else = true;
    } else {
      std::const_pointer_cast<ast::For>(std::static_pointer_cast<const ast::For>(rebuilt))->had_else = true;
    }
  }
  out.push_back(std::move(rebuilt));
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
      case StmtKind::kTry:
        out.push_back(MapBlocks(*s, [&](const Body& block) { return CanonicalizeLoopExits(block, namer); }));
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
