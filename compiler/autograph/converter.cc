#include "compiler/autograph/converter.h"

#include "compiler/autograph/analysis.h"
#include "compiler/autograph/canonicalize.h"
#include "compiler/autograph/control_flow.h"
#include "compiler/autograph/expressions.h"
#include "compiler/autograph/transform.h"
#include "compiler/frontend/printer.h"

namespace graphd::compiler::autograph {
namespace {

using ast::Body;
using ast::StmtKind;

NameSet Params(const ast::Arguments& args) {
  NameSet out;
  for (const auto& a : args.args) out.insert(a.name);
  for (const auto& a : args.kwonlyargs) out.insert(a.name);
  if (args.vararg) out.insert(args.vararg->name);
  if (args.kwarg) out.insert(args.kwarg->name);
  return out;
}

Body ConvertNestedFunctions(const Body& body);

ast::StmtPtr ConvertNested(const ast::StmtPtr& s) {
  switch (s->kind) {
    case StmtKind::kFunctionDef: return ConvertFunction(*s->As<ast::FunctionDef>());
    case StmtKind::kClassDef: {
      auto* c = s->As<ast::ClassDef>();
      return std::make_shared<ast::ClassDef>(c->name, c->bases, ConvertNestedFunctions(c->body), c->decorator_list,
                                             c->range);
    }
    default: {
      ast::StmtPtr mapped = MapBlocks(*s, ConvertNestedFunctions);
      return mapped ? mapped : s;
    }
  }
}

Body ConvertNestedFunctions(const Body& body) {
  Body out;
  for (const auto& s : body) out.push_back(ConvertNested(s));
  return out;
}

}  // namespace

std::shared_ptr<const ast::FunctionDef> ConvertFunction(const ast::FunctionDef& def) {
  Body body = ConvertNestedFunctions(def.body);
  NameSet used = AssignedNames(def.body);
  NameSet params = Params(def.args);
  used.insert(params.begin(), params.end());
  NameSet free = FreeNames(def.args, def.body);
  used.insert(free.begin(), free.end());
  used.insert("ag__");
  Namer namer(std::move(used));
  body = CanonicalizeReturns(body, namer);
  body = CanonicalizeLoopExits(body, namer);
  NameSet locals = AssignedNames(def.body);
  locals.insert(params.begin(), params.end());
  body = ConvertExpressions(body, locals);
  FunctionScope scope{.declared = DeclaredNames(def.body), .namer = &namer};
  body = ConvertControlFlow(body, /*live_out=*/{}, /*defined=*/params, scope);
  return std::static_pointer_cast<const ast::FunctionDef>(WithFunctionBody(def, std::move(body), def.name));
}

ast::Module ConvertModule(const ast::Module& module) {
  ast::Module out{.file = module.file};
  for (const auto& s : module.body) {
    if (s->kind == StmtKind::kFunctionDef || s->kind == StmtKind::kClassDef) {
      out.body.push_back(ConvertNested(s));
    } else {
      out.body.push_back(s);
    }
  }
  return out;
}

std::string ToCode(const ast::FunctionDef& converted) {
  // Printed without decorators, as TensorFlow's to_code shows the converted function.
  ast::FunctionDef renamed("tf__" + converted.name, converted.args, converted.body, {}, converted.returns,
                           converted.range);
  return PrintStmt(renamed);
}

}  // namespace graphd::compiler::autograph
