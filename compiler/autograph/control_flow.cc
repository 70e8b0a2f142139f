#include "compiler/autograph/control_flow.h"

#include <vector>

#include "compiler/autograph/builder.h"
#include "compiler/autograph/transform.h"

namespace graphd::compiler::autograph {
namespace {

using ast::Body;
using ast::StmtKind;

std::vector<std::string> Sorted(const NameSet& s) { return {s.begin(), s.end()}; }

NameSet Intersect(const NameSet& a, const NameSet& b) {
  NameSet out;
  for (const auto& n : a) {
    if (b.contains(n)) out.insert(n);
  }
  return out;
}

// The nested functions every converted statement shares: get_state/set_state over
// `state`, and `x = ag__.Undefined('x')` for state not certainly bound yet.
struct StateFunctions {
  std::string get, set;
  Body defs;
};

StateFunctions MakeState(const Builder& b, const std::vector<std::string>& state, const NameSet& defined,
                         Namer& namer, Body& out) {
  StateFunctions f{namer.New("get_state"), namer.New("set_state"), {}};
  // get_state may run before a state name is bound: ag__.ldu gives Undefined then.
  std::vector<ast::ExprPtr> loads;
  for (const auto& n : state) loads.push_back(b.Call("ag__.ldu", {b.Lambda(b.Load(n)), b.Str(n)}));
  out.push_back(b.Def(f.get, {}, {b.Return(b.Tuple(std::move(loads)))}));
  Body set_body;
  if (state.empty()) {
    set_body.push_back(b.Pass());
  } else {
    set_body.push_back(b.Nonlocal(state));
    std::vector<ast::ExprPtr> targets;
    for (const auto& n : state) targets.push_back(b.Store(n));
    set_body.push_back(b.Assign(b.Tuple(std::move(targets), ast::Ctx::kStore), b.Load("vars_")));
  }
  out.push_back(b.Def(f.set, {"vars_"}, std::move(set_body)));
  for (const auto& n : state) {
    if (!defined.contains(n)) out.push_back(b.Assign(n, b.Call("ag__.Undefined", {b.Str(n)})));
  }
  return f;
}

// def name(params): nonlocal state; body  (pass when empty)
ast::StmtPtr BodyFunction(const Builder& b, const std::string& name, std::vector<std::string> params,
                          const std::vector<std::string>& state, Body prefix, const Body& body) {
  Body fn_body;
  if (!state.empty()) fn_body.push_back(b.Nonlocal(state));
  fn_body.insert(fn_body.end(), prefix.begin(), prefix.end());
  fn_body.insert(fn_body.end(), body.begin(), body.end());
  if (fn_body.empty()) fn_body.push_back(b.Pass());
  return b.Def(name, std::move(params), std::move(fn_body));
}

// Names modified by the statement that later code reads or that its blocks read
// before writing them (`bound_first`: names each block binds before it starts, the
// for loop's target).
NameSet StateOf(const NameSet& modified, const NameSet& live, const std::vector<const Body*>& blocks,
                const NameSet& bound_first = {}) {
  NameSet wanted = live;
  for (const Body* block : blocks) {
    for (const std::string& n : LiveIn(*block, {})) {
      if (!bound_first.contains(n)) wanted.insert(n);
    }
  }
  return Intersect(modified, wanted);
}

// The options of `tf.autograph.experimental.set_loop_options(...)` called at the top
// level of a loop body, as TensorFlow's AutoGraph extracts them: a dict literal of its
// keyword arguments, evaluated before the loop (so `shape_invariants=[(x, shape)]`
// names the loop variables' values before the loop). Null when the body has none.
ast::ExprPtr LoopOptions(const Builder& b, const Body& body) {
  for (const ast::StmtPtr& st : body) {
    if (st->kind != StmtKind::kExpr) continue;
    const auto* call = st->As<ast::ExprStmt>()->value->As<ast::Call>();
    if (call == nullptr) continue;
    const auto* attr = call->func->As<ast::Attribute>();
    const auto* name = call->func->As<ast::Name>();
    if (!(attr != nullptr && attr->attr == "set_loop_options") && !(name != nullptr && name->id == "set_loop_options")) {
      continue;
    }
    std::vector<ast::ExprPtr> keys, values;
    for (const ast::Keyword& kw : call->keywords) {
      if (kw.arg.empty()) continue;
      keys.push_back(b.Str(kw.arg));
      values.push_back(kw.value);
    }
    return std::make_shared<ast::Dict>(std::move(keys), std::move(values), b.range());
  }
  return nullptr;
}

// Returns the state names (all bound once the statement has run, if only to Undefined).
std::vector<std::string> ConvertIf(const ast::If& s, const NameSet& live_out, const NameSet& defined, Namer& namer,
                                   Body& out) {
  Builder b(s.range);
  NameSet modified = AssignedNames(s.body);
  NameSet modified_else = AssignedNames(s.orelse);
  modified.insert(modified_else.begin(), modified_else.end());
  std::vector<std::string> state = Sorted(StateOf(modified, live_out, {&s.body, &s.orelse}));
  Body body = ConvertControlFlow(s.body, live_out, defined, namer);
  Body orelse = ConvertControlFlow(s.orelse, live_out, defined, namer);
  StateFunctions sf = MakeState(b, state, defined, namer, out);
  std::string if_body = namer.New("if_body"), else_body = namer.New("else_body");
  out.push_back(BodyFunction(b, if_body, {}, state, {}, body));
  out.push_back(BodyFunction(b, else_body, {}, state, {}, orelse));
  out.push_back(b.Expr(b.Call("ag__.if_stmt", {s.test, b.Load(if_body), b.Load(else_body), b.Load(sf.get),
                                              b.Load(sf.set), b.NameStrings(state),
                                              b.Int(static_cast<int64_t>(state.size()))})));
  return state;
}

std::vector<std::string> ConvertLoop(const ast::Stmt& s, const NameSet& live_out, const NameSet& defined,
                                     Namer& namer, Body& out) {
  Builder b(s.range);
  const bool is_while = s.kind == StmtKind::kWhile;
  const Body& body = is_while ? s.As<ast::While>()->body : s.As<ast::For>()->body;
  const Body& orelse = is_while ? s.As<ast::While>()->orelse : s.As<ast::For>()->orelse;
  NameSet head = LoopHeadLive(s, live_out);
  NameSet modified = AssignedNames(body);
  NameSet target;
  if (!is_while) AddTargetNames(*s.As<ast::For>()->target, target);
  modified.insert(target.begin(), target.end());
  // The target is live at the head only through the code after the loop.
  NameSet head_state = head;
  for (const std::string& n : target) {
    if (!live_out.contains(n)) head_state.erase(n);
  }
  std::vector<std::string> state = Sorted(StateOf(modified, head_state, {&body}, target));
  Body converted = ConvertControlFlow(body, head, defined, namer);
  StateFunctions sf = MakeState(b, state, defined, namer, out);
  std::string loop_body = namer.New("loop_body");
  if (is_while) {
    std::string loop_test = namer.New("loop_test");
    out.push_back(b.Def(loop_test, {}, {b.Return(s.As<ast::While>()->test)}));
    out.push_back(BodyFunction(b, loop_body, {}, state, {}, converted));
    std::vector<ast::ExprPtr> args = {b.Load(loop_test), b.Load(loop_body), b.Load(sf.get), b.Load(sf.set),
                                      b.NameStrings(state)};
    if (ast::ExprPtr opts = LoopOptions(b, body)) args.push_back(opts);
    out.push_back(b.Expr(b.Call("ag__.while_stmt", std::move(args))));
  } else {
    auto* f = s.As<ast::For>();
    std::string itr = namer.New("itr");
    out.push_back(BodyFunction(b, loop_body, {itr}, state, {b.Assign(f->target, b.Load(itr))}, converted));
    ast::ExprPtr extra = b.None();
    if (f->extra_test) {
      std::string extra_test = namer.New("extra_test");
      out.push_back(b.Def(extra_test, {}, {b.Return(f->extra_test)}));
      extra = b.Load(extra_test);
    }
    std::vector<ast::ExprPtr> args = {f->iter, extra, b.Load(loop_body), b.Load(sf.get), b.Load(sf.set),
                                      b.NameStrings(state)};
    if (ast::ExprPtr opts = LoopOptions(b, body)) args.push_back(opts);
    out.push_back(b.Expr(b.Call("ag__.for_stmt", std::move(args))));
  }
  // A loop's else clause (without break) runs once the loop is done.
  NameSet bound = defined;
  bound.insert(state.begin(), state.end());
  Body after = ConvertControlFlow(orelse, live_out, bound, namer);
  out.insert(out.end(), after.begin(), after.end());
  return state;
}

}  // namespace

Body ConvertControlFlow(const Body& body, const NameSet& live_out, const NameSet& defined_in, Namer& namer) {
  std::vector<NameSet> outs = LiveOuts(body, live_out);
  NameSet defined = defined_in;
  Body out;
  for (size_t i = 0; i < body.size(); ++i) {
    const ast::Stmt& s = *body[i];
    std::vector<std::string> state;
    switch (s.kind) {
      case StmtKind::kIf: state = ConvertIf(*s.As<ast::If>(), outs[i], defined, namer, out); break;
      case StmtKind::kWhile:
      case StmtKind::kFor: state = ConvertLoop(s, outs[i], defined, namer, out); break;
      case StmtKind::kWith:
        out.push_back(WithBlocks(s, ConvertControlFlow(s.As<ast::With>()->body, outs[i], defined, namer), {}));
        break;
      default: out.push_back(body[i]);
    }
    defined = DefinedAfter(s, defined);
    defined.insert(state.begin(), state.end());
  }
  return out;
}

}  // namespace graphd::compiler::autograph
