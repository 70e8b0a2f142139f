// Statements and modules.
#include "compiler/frontend/printer.h"

#include "absl/strings/str_cat.h"
#include "compiler/frontend/print_internal.h"

namespace graphd::compiler {
namespace {

using namespace print_internal;  // NOLINT(build/namespaces): the printer's own internals

const char* AugOpText(ast::BinOpKind op) {
  switch (op) {
    case ast::BinOpKind::kAdd: return "+=";
    case ast::BinOpKind::kSub: return "-=";
    case ast::BinOpKind::kMult: return "*=";
    case ast::BinOpKind::kMatMult: return "@=";
    case ast::BinOpKind::kDiv: return "/=";
    case ast::BinOpKind::kFloorDiv: return "//=";
    case ast::BinOpKind::kMod: return "%=";
    case ast::BinOpKind::kPow: return "**=";
    case ast::BinOpKind::kLShift: return "<<=";
    case ast::BinOpKind::kRShift: return ">>=";
    case ast::BinOpKind::kBitOr: return "|=";
    case ast::BinOpKind::kBitXor: return "^=";
    case ast::BinOpKind::kBitAnd: return "&=";
  }
  return "?=";
}

bool IsDefinition(const ast::Stmt& s) {
  return s.kind == ast::StmtKind::kFunctionDef || s.kind == ast::StmtKind::kClassDef;
}

std::string Expr(const ast::Expr& e, int min_prec) {
  std::string out;
  AppendExpr(e, min_prec, &out);
  return out;
}

void AppendStmt(const ast::Stmt& s, int indent, std::string* out);

// A block; `spaced` puts a blank line around definitions (module and class bodies).
void AppendBody(const ast::Body& body, int indent, bool spaced, std::string* out) {
  if (body.empty()) {
    absl::StrAppend(out, std::string(4 * indent, ' '), "pass\n");
    return;
  }
  for (size_t i = 0; i < body.size(); ++i) {
    if (spaced && i > 0 && (IsDefinition(*body[i]) || IsDefinition(*body[i - 1]))) *out += "\n";
    AppendStmt(*body[i], indent, out);
  }
}

void AppendDecorators(const std::vector<ast::ExprPtr>& decorators, const std::string& pad, std::string* out) {
  for (const ast::ExprPtr& d : decorators) absl::StrAppend(out, pad, "@", Expr(*d, kTest), "\n");
}

void AppendAliases(const std::vector<ast::Alias>& names, std::string* out) {
  for (size_t i = 0; i < names.size(); ++i) {
    absl::StrAppend(out, i > 0 ? ", " : "", names[i].name);
    if (!names[i].asname.empty()) absl::StrAppend(out, " as ", names[i].asname);
  }
}

void AppendStmt(const ast::Stmt& s, int indent, std::string* out) {
  const std::string pad(4 * indent, ' ');
  switch (s.kind) {
    case ast::StmtKind::kExpr: {
      const ast::Expr& value = *s.As<ast::ExprStmt>()->value;
      // Multi-line string statements (docstrings) keep their lines.
      const auto* c = value.As<ast::Constant>();
      const auto* str = c != nullptr ? std::get_if<std::string>(&c->value) : nullptr;
      const std::optional<std::string> doc = str != nullptr ? TripleQuoted(*str) : std::nullopt;
      absl::StrAppend(out, pad, doc ? *doc : Expr(value, kTuple), "\n");
      return;
    }
    case ast::StmtKind::kAssign: {
      const auto* a = s.As<ast::Assign>();
      *out += pad;
      for (const ast::ExprPtr& t : a->targets) absl::StrAppend(out, Expr(*t, kTuple), " = ");
      absl::StrAppend(out, Expr(*a->value, kTuple), "\n");
      return;
    }
    case ast::StmtKind::kAugAssign: {
      const auto* a = s.As<ast::AugAssign>();
      absl::StrAppend(out, pad, Expr(*a->target, kTuple), " ", AugOpText(a->op), " ", Expr(*a->value, kTuple), "\n");
      return;
    }
    case ast::StmtKind::kIf: {
      const auto* i = s.As<ast::If>();
      absl::StrAppend(out, pad, "if ", Expr(*i->test, kTest), ":\n");
      AppendBody(i->body, indent + 1, false, out);
      // An else block holding only an If prints as elif.
      while (i->orelse.size() == 1 && i->orelse[0]->kind == ast::StmtKind::kIf) {
        i = i->orelse[0]->As<ast::If>();
        absl::StrAppend(out, pad, "elif ", Expr(*i->test, kTest), ":\n");
        AppendBody(i->body, indent + 1, false, out);
      }
      if (!i->orelse.empty()) {
        absl::StrAppend(out, pad, "else:\n");
        AppendBody(i->orelse, indent + 1, false, out);
      }
      return;
    }
    case ast::StmtKind::kWhile: {
      const auto* w = s.As<ast::While>();
      absl::StrAppend(out, pad, "while ", Expr(*w->test, kTest), ":\n");
      AppendBody(w->body, indent + 1, false, out);
      if (!w->orelse.empty()) {
        absl::StrAppend(out, pad, "else:\n");
        AppendBody(w->orelse, indent + 1, false, out);
      }
      return;
    }
    case ast::StmtKind::kFor: {
      const auto* f = s.As<ast::For>();
      absl::StrAppend(out, pad, "for ", Expr(*f->target, kTuple), " in ", Expr(*f->iter, kTest), ":\n");
      AppendBody(f->body, indent + 1, false, out);
      if (!f->orelse.empty()) {
        absl::StrAppend(out, pad, "else:\n");
        AppendBody(f->orelse, indent + 1, false, out);
      }
      return;
    }
    case ast::StmtKind::kBreak:
      absl::StrAppend(out, pad, "break\n");
      return;
    case ast::StmtKind::kContinue:
      absl::StrAppend(out, pad, "continue\n");
      return;
    case ast::StmtKind::kPass:
      absl::StrAppend(out, pad, "pass\n");
      return;
    case ast::StmtKind::kReturn: {
      const auto* r = s.As<ast::Return>();
      absl::StrAppend(out, pad, "return", r->value ? absl::StrCat(" ", Expr(*r->value, kTuple)) : "", "\n");
      return;
    }
    case ast::StmtKind::kAssert: {
      const auto* a = s.As<ast::Assert>();
      absl::StrAppend(out, pad, "assert ", Expr(*a->test, kTest), a->msg ? absl::StrCat(", ", Expr(*a->msg, kTest)) : "", "\n");
      return;
    }
    case ast::StmtKind::kDelete: {
      const auto* d = s.As<ast::Delete>();
      absl::StrAppend(out, pad, "del ");
      for (size_t i = 0; i < d->targets.size(); ++i) {
        absl::StrAppend(out, i > 0 ? ", " : "", Expr(*d->targets[i], kTest));
      }
      *out += "\n";
      return;
    }
    case ast::StmtKind::kWith: {
      const auto* w = s.As<ast::With>();
      absl::StrAppend(out, pad, "with ");
      for (size_t i = 0; i < w->items.size(); ++i) {
        absl::StrAppend(out, i > 0 ? ", " : "", Expr(*w->items[i].context_expr, kTest));
        if (w->items[i].optional_vars) absl::StrAppend(out, " as ", Expr(*w->items[i].optional_vars, kTest));
      }
      *out += ":\n";
      AppendBody(w->body, indent + 1, false, out);
      return;
    }
    case ast::StmtKind::kTry: {
      const auto* t = s.As<ast::Try>();
      absl::StrAppend(out, pad, "try:\n");
      AppendBody(t->body, indent + 1, false, out);
      for (const ast::ExceptHandler& h : t->handlers) {
        absl::StrAppend(out, pad, "except");
        if (h.type) absl::StrAppend(out, " ", Expr(*h.type, kTest));
        if (!h.name.empty()) absl::StrAppend(out, " as ", h.name);
        *out += ":\n";
        AppendBody(h.body, indent + 1, false, out);
      }
      if (!t->orelse.empty()) {
        absl::StrAppend(out, pad, "else:\n");
        AppendBody(t->orelse, indent + 1, false, out);
      }
      if (!t->finalbody.empty()) {
        absl::StrAppend(out, pad, "finally:\n");
        AppendBody(t->finalbody, indent + 1, false, out);
      }
      return;
    }
    case ast::StmtKind::kRaise: {
      const auto* r = s.As<ast::Raise>();
      absl::StrAppend(out, pad, "raise");
      if (r->exc) absl::StrAppend(out, " ", Expr(*r->exc, kTest));
      if (r->cause) absl::StrAppend(out, " from ", Expr(*r->cause, kTest));
      *out += "\n";
      return;
    }
    case ast::StmtKind::kFunctionDef: {
      const auto* f = s.As<ast::FunctionDef>();
      AppendDecorators(f->decorator_list, pad, out);
      std::string args;
      AppendArguments(f->args, &args);
      absl::StrAppend(out, pad, "def ", f->name, "(", args, ")");
      if (f->returns) absl::StrAppend(out, " -> ", Expr(*f->returns, kTest));
      *out += ":\n";
      AppendBody(f->body, indent + 1, false, out);
      return;
    }
    case ast::StmtKind::kClassDef: {
      const auto* c = s.As<ast::ClassDef>();
      AppendDecorators(c->decorator_list, pad, out);
      absl::StrAppend(out, pad, "class ", c->name);
      if (!c->bases.empty()) {
        *out += "(";
        for (size_t i = 0; i < c->bases.size(); ++i) absl::StrAppend(out, i > 0 ? ", " : "", Expr(*c->bases[i], kTest));
        *out += ")";
      }
      *out += ":\n";
      AppendBody(c->body, indent + 1, true, out);
      return;
    }
    case ast::StmtKind::kImport:
      absl::StrAppend(out, pad, "import ");
      AppendAliases(s.As<ast::Import>()->names, out);
      *out += "\n";
      return;
    case ast::StmtKind::kImportFrom: {
      const auto* i = s.As<ast::ImportFrom>();
      absl::StrAppend(out, pad, "from ", i->module, " import ");
      AppendAliases(i->names, out);
      *out += "\n";
      return;
    }
    case ast::StmtKind::kGlobal:
    case ast::StmtKind::kNonlocal: {
      const auto& names = s.kind == ast::StmtKind::kGlobal ? s.As<ast::Global>()->names : s.As<ast::Nonlocal>()->names;
      absl::StrAppend(out, pad, s.kind == ast::StmtKind::kGlobal ? "global " : "nonlocal ");
      for (size_t i = 0; i < names.size(); ++i) absl::StrAppend(out, i > 0 ? ", " : "", names[i]);
      *out += "\n";
      return;
    }
  }
}

}  // namespace

std::string PrintModule(const ast::Module& module) {
  std::string out;
  if (!module.body.empty()) AppendBody(module.body, 0, /*spaced=*/true, &out);
  return out;
}

std::string PrintStmt(const ast::Stmt& stmt, int indent) {
  std::string out;
  AppendStmt(stmt, indent, &out);
  return out;
}

}  // namespace graphd::compiler
