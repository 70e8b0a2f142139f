#include "compiler/autograph/control_flow.h"

#include <algorithm>
#include <vector>

#include "compiler/autograph/builder.h"
#include "compiler/autograph/transform.h"
#include "compiler/frontend/printer.h"

namespace graphd::compiler::autograph {
namespace {

using ast::Body;
using ast::StmtKind;

bool Subset(const NameSet& a, const NameSet& b) {
  return std::all_of(a.begin(), a.end(), [&](const std::string& n) { return b.contains(n); });
}

// The state symbols of a statement, sorted by key (names before their composites).
// `modified`: names it binds; `blocks`: its bodies; `live_in` / `live_out`: the names
// live before and after it.
std::vector<Symbol> StateOf(const NameSet& modified, const std::vector<const Body*>& blocks, const NameSet& live_in,
                            const NameSet& live_out, const FunctionScope& fn) {
  std::vector<Symbol> state;
  for (const std::string& n : modified) {
    if (live_in.contains(n) || live_out.contains(n) || fn.declared.nonlocals.contains(n)) {
      state.push_back(Symbol{.key = n});
    }
  }
  std::vector<Symbol> composites;
  for (const Body* block : blocks) {
    for (Symbol& c : AssignedComposites(*block)) {
      // A composite of an object made in the block is the block's own business.
      if (!Subset(c.support, live_in)) continue;
      bool seen = std::any_of(composites.begin(), composites.end(), [&](const Symbol& s) { return s.key == c.key; });
      if (!seen) composites.push_back(std::move(c));
    }
  }
  state.insert(state.end(), composites.begin(), composites.end());
  std::sort(state.begin(), state.end(), [](const Symbol& a, const Symbol& b) { return a.key < b.key; });
  return state;
}

std::vector<std::string> Keys(const std::vector<Symbol>& state) {
  std::vector<std::string> out;
  for (const Symbol& s : state) out.push_back(s.key);
  return out;
}

// `global` and `nonlocal` statements for a nested function that binds `names`.
Body Declarations(const Builder& b, const NameSet& names, const FunctionScope& fn) {
  std::vector<std::string> globals, nonlocals;
  for (const std::string& n : names) (fn.declared.globals.contains(n) ? globals : nonlocals).push_back(n);
  Body out;
  if (!globals.empty()) out.push_back(b.Global(std::move(globals)));
  if (!nonlocals.empty()) out.push_back(b.Nonlocal(std::move(nonlocals)));
  return out;
}

NameSet SimpleNames(const std::vector<Symbol>& state) {
  NameSet out;
  for (const Symbol& s : state) {
    if (!s.composite()) out.insert(s.key);
  }
  return out;
}

// The nested functions every converted statement shares: get_state/set_state over
// `state`, and `x = ag__.Undefined('x')` for simple state names maybe not bound yet.
struct StateFunctions {
  std::string get, set;
};

StateFunctions MakeState(const Builder& b, const std::vector<Symbol>& state, const NameSet& defined,
                         FunctionScope& fn, Body& out) {
  StateFunctions f{fn.namer->New("get_state"), fn.namer->New("set_state")};
  // get_state may run before a state symbol is bound: ag__.ldu gives Undefined then.
  std::vector<ast::ExprPtr> loads, targets;
  for (const Symbol& s : state) {
    ast::ExprPtr load = s.composite() ? s.expr : b.Load(s.key);
    loads.push_back(b.Call("ag__.ldu", {b.Lambda(load), b.Str(s.key)}));
    targets.push_back(s.composite() ? WithCtx(s.expr, ast::Ctx::kStore) : b.Store(s.key));
  }
  out.push_back(b.Def(f.get, {}, {b.Return(b.Tuple(std::move(loads)))}));
  Body set_body = Declarations(b, SimpleNames(state), fn);
  if (state.empty()) {
    set_body.push_back(b.Pass());
  } else {
    set_body.push_back(b.Assign(b.Tuple(std::move(targets), ast::Ctx::kStore), b.Load("vars_")));
  }
  out.push_back(b.Def(f.set, {"vars_"}, std::move(set_body)));
  for (const Symbol& s : state) {
    if (s.composite() || defined.contains(s.key) || fn.declared.globals.contains(s.key) ||
        fn.declared.nonlocals.contains(s.key)) {
      continue;
    }
    out.push_back(b.Assign(s.key, b.Call("ag__.Undefined", {b.Str(s.key)})));
  }
  return f;
}

// def name(params): global/nonlocal ...; prefix; body  (pass when empty). The block
// rebinds the state's names and the function's globals and nonlocals it assigns.
ast::StmtPtr BodyFunction(const Builder& b, const std::string& name, std::vector<std::string> params,
                          const std::vector<Symbol>& state, const NameSet& assigned, const FunctionScope& fn,
                          Body prefix, const Body& body) {
  NameSet rebound = SimpleNames(state);
  for (const std::string& n : assigned) {
    if (fn.declared.globals.contains(n) || fn.declared.nonlocals.contains(n)) rebound.insert(n);
  }
  Body fn_body = Declarations(b, rebound, fn);
  fn_body.insert(fn_body.end(), prefix.begin(), prefix.end());
  fn_body.insert(fn_body.end(), body.begin(), body.end());
  if (fn_body.empty()) fn_body.push_back(b.Pass());
  return b.Def(name, std::move(params), std::move(fn_body));
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

// `opts` (a dict literal, or null for none) with `key: value` added.
ast::ExprPtr WithOption(const Builder& b, const ast::ExprPtr& opts, const std::string& key, ast::ExprPtr value) {
  std::vector<ast::ExprPtr> keys, values;
  if (opts != nullptr) {
    keys = opts->As<ast::Dict>()->keys;
    values = opts->As<ast::Dict>()->values;
  }
  keys.push_back(b.Str(key));
  values.push_back(std::move(value));
  return std::make_shared<ast::Dict>(std::move(keys), std::move(values), b.range());
}

// Names that may be bound once `stmt` ran, given those that may be bound before.
NameSet MayBeDefinedAfter(const ast::Stmt& stmt, const NameSet& before) {
  NameSet out = before;
  if (stmt.kind == StmtKind::kDelete) {
    // Only an unconditional del unbinds for sure.
    for (const auto& t : stmt.As<ast::Delete>()->targets) {
      if (auto* n = t->As<ast::Name>()) out.erase(n->id);
    }
    return out;
  }
  NameSet assigned = AssignedNames(stmt);
  out.insert(assigned.begin(), assigned.end());
  return out;
}

std::vector<Symbol> ConvertIf(const ast::If& s, const NameSet& live_out, const NameSet& defined, FunctionScope& fn,
                              Body& out) {
  Builder b(s.range);
  NameSet modified = AssignedNames(s.body);
  NameSet modified_else = AssignedNames(s.orelse);
  modified.insert(modified_else.begin(), modified_else.end());
  std::vector<Symbol> state = StateOf(modified, {&s.body, &s.orelse}, LiveIn(s, live_out), live_out, fn);
  Body body = ConvertControlFlow(s.body, live_out, defined, fn);
  Body orelse = ConvertControlFlow(s.orelse, live_out, defined, fn);
  StateFunctions sf = MakeState(b, state, defined, fn, out);
  std::string if_body = fn.namer->New("if_body"), else_body = fn.namer->New("else_body");
  out.push_back(BodyFunction(b, if_body, {}, state, AssignedNames(s.body), fn, {}, body));
  out.push_back(BodyFunction(b, else_body, {}, state, AssignedNames(s.orelse), fn, {}, orelse));
  out.push_back(b.Expr(b.Call("ag__.if_stmt", {s.test, b.Load(if_body), b.Load(else_body), b.Load(sf.get),
                                              b.Load(sf.set), b.NameStrings(Keys(state)),
                                              b.Int(static_cast<int64_t>(state.size()))})));
  return state;
}

std::vector<Symbol> ConvertLoop(const ast::Stmt& s, const NameSet& live_out, const NameSet& defined,
                                FunctionScope& fn, Body& out) {
  Builder b(s.range);
  const bool is_while = s.kind == StmtKind::kWhile;
  const Body& body = is_while ? s.As<ast::While>()->body : s.As<ast::For>()->body;
  const Body& orelse = is_while ? s.As<ast::While>()->orelse : s.As<ast::For>()->orelse;
  const bool had_else = !orelse.empty() || (is_while ? s.As<ast::While>()->had_else : s.As<ast::For>()->had_else);
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
  Body target_block;
  if (!is_while) target_block.push_back(b.Assign(s.As<ast::For>()->target, b.None()));
  std::vector<Symbol> state = StateOf(modified, {&body, &target_block}, head_state, live_out, fn);
  // Through the loop's back edge, whatever the body binds may be bound in it.
  NameSet in_body = defined;
  in_body.insert(modified.begin(), modified.end());
  Body converted = ConvertControlFlow(body, head, in_body, fn);
  StateFunctions sf = MakeState(b, state, defined, fn, out);
  std::string loop_body = fn.namer->New("loop_body");
  NameSet assigned = AssignedNames(body);
  if (is_while) {
    std::string loop_test = fn.namer->New("loop_test");
    out.push_back(b.Def(loop_test, {}, {b.Return(s.As<ast::While>()->test)}));
    out.push_back(BodyFunction(b, loop_body, {}, state, assigned, fn, {}, converted));
    std::vector<ast::ExprPtr> args = {b.Load(loop_test), b.Load(loop_body), b.Load(sf.get), b.Load(sf.set),
                                      b.NameStrings(Keys(state))};
    ast::ExprPtr opts = LoopOptions(b, body);
    if (had_else) opts = WithOption(b, opts, "else_clause", b.Bool(true));
    if (opts) args.push_back(opts);
    out.push_back(b.Expr(b.Call("ag__.while_stmt", std::move(args))));
  } else {
    auto* f = s.As<ast::For>();
    std::string itr = fn.namer->New("itr");
    assigned.insert(target.begin(), target.end());
    out.push_back(
        BodyFunction(b, loop_body, {itr}, state, assigned, fn, {b.Assign(f->target, b.Load(itr))}, converted));
    ast::ExprPtr extra = b.None();
    if (f->extra_test) {
      std::string extra_test = fn.namer->New("extra_test");
      out.push_back(b.Def(extra_test, {}, {b.Return(f->extra_test)}));
      extra = b.Load(extra_test);
    }
    std::vector<ast::ExprPtr> args = {f->iter, extra, b.Load(loop_body), b.Load(sf.get), b.Load(sf.set),
                                      b.NameStrings(Keys(state))};
    // As TensorFlow's converter: the options name the loop's target.
    ast::ExprPtr opts = WithOption(b, LoopOptions(b, body), "iterate_names", b.Str(PrintExpr(*f->target)));
    if (had_else) opts = WithOption(b, opts, "else_clause", b.Bool(true));
    args.push_back(opts);
    out.push_back(b.Expr(b.Call("ag__.for_stmt", std::move(args))));
  }
  // A loop's else clause (without break) runs once the loop is done.
  Body after = ConvertControlFlow(orelse, live_out, in_body, fn);
  out.insert(out.end(), after.begin(), after.end());
  return state;
}

}  // namespace

Body ConvertControlFlow(const Body& body, const NameSet& live_out, const NameSet& defined_in, FunctionScope& fn) {
  std::vector<NameSet> outs = LiveOuts(body, live_out);
  NameSet defined = defined_in;
  Body out;
  for (size_t i = 0; i < body.size(); ++i) {
    const ast::Stmt& s = *body[i];
    switch (s.kind) {
      case StmtKind::kIf: ConvertIf(*s.As<ast::If>(), outs[i], defined, fn, out); break;
      case StmtKind::kWhile:
      case StmtKind::kFor: ConvertLoop(s, outs[i], defined, fn, out); break;
      case StmtKind::kWith:
        out.push_back(WithBlocks(s, ConvertControlFlow(s.As<ast::With>()->body, outs[i], defined, fn), {}));
        break;
      case StmtKind::kTry: {
        // Each block as code of its own (exceptions are Python's business, at trace
        // time); anything the try binds may be bound in its handlers and finally.
        std::vector<NameSet> block_outs = TryLiveOuts(*s.As<ast::Try>(), outs[i]);
        NameSet may_be_defined = MayBeDefinedAfter(s, defined);
        size_t k = 0;
        out.push_back(MapBlocks(s, [&](const Body& block) {
          const size_t index = k++;
          return ConvertControlFlow(block, block_outs[index], index == 0 ? defined : may_be_defined, fn);
        }));
        break;
      }
      default: out.push_back(body[i]);
    }
    defined = MayBeDefinedAfter(s, defined);
  }
  return out;
}

}  // namespace graphd::compiler::autograph
