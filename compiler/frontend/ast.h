// The AST of graphd's Python subset. Node kinds and field names follow CPython's `ast`
// module, so AutoGraph's conversions read as TensorFlow's do and the printer emits
// ordinary Python.
//
// Grammar accepted by the parser (a subset of Python 3; anything else is rejected with
// a located error naming the construct):
//
//   module      := (NEWLINE | stmt)* ENDMARKER
//   stmt        := simple_stmt (';' simple_stmt)* [';'] NEWLINE | compound_stmt
//   simple_stmt := expr_stmt | 'pass' | 'break' | 'continue' | 'return' [exprlist]
//                | 'assert' test [',' test] | 'del' targets | 'global' NAME (',' NAME)*
//                | 'nonlocal' NAME (',' NAME)* | import_stmt | 'raise' [test ['from' test]]
//   expr_stmt   := exprlist (('=' exprlist)* | augop exprlist)
//   augop       := '+=' | '-=' | '*=' | '/=' | '//=' | '%=' | '**=' | '@=' | '&=' | '|='
//                | '^=' | '<<=' | '>>='
//   import_stmt := 'import' dotted ['as' NAME] (',' dotted ['as' NAME])*
//                | 'from' dotted 'import' NAME ['as' NAME] (',' NAME ['as' NAME])*
//   compound    := if | while | for | with | try | funcdef | classdef | decorated
//   if          := 'if' test ':' suite ('elif' test ':' suite)* ['else' ':' suite]
//   while       := 'while' test ':' suite ['else' ':' suite]
//   for         := 'for' targets 'in' exprlist ':' suite ['else' ':' suite]
//   with        := 'with' test ['as' target] (',' test ['as' target])* ':' suite
//   try         := 'try' ':' suite (('except' [test ['as' NAME]] ':' suite)+
//                  ['else' ':' suite] ['finally' ':' suite] | 'finally' ':' suite)
//   funcdef     := 'def' NAME '(' [params] ')' ['->' test] ':' suite
//   params      := param (',' param)* [','] ; param := NAME [':' test] ['=' test]
//                | '*' [NAME] | '**' NAME   (keyword-only after '*')
//   classdef    := 'class' NAME ['(' [args] ')'] ':' suite
//   decorated   := ('@' test NEWLINE)+ (funcdef | classdef)
//   suite       := simple_stmt-line | NEWLINE INDENT stmt+ DEDENT
//   test        := or_test ['if' or_test 'else' test] | lambda
//   lambda      := 'lambda' [params without annotations] ':' test
//   or_test     := and_test ('or' and_test)* ; and_test := not_test ('and' not_test)*
//   not_test    := 'not' not_test | comparison
//   comparison  := bitor (compop bitor)*   compop: < > == >= <= != in, not in, is, is not
//   bitor := bitxor ('|' bitxor)* ; bitxor := bitand ('^' bitand)* ;
//   bitand := shift ('&' shift)* ; shift := arith (('<<'|'>>') arith)*
//   arith  := term (('+'|'-') term)* ; term := factor (('*'|'@'|'/'|'//'|'%') factor)*
//   factor := ('+'|'-'|'~') factor | power ; power := primary ['**' factor]
//   primary := atom trailer* ; trailer := '(' [args] ')' | '[' subscript ']' | '.' NAME
//   args    := arg (',' arg)* [','] ; arg := test | test comp_for | NAME '=' test
//            | '*' test | '**' test
//   subscript := slice (',' slice)* [','] ; slice := test | [test] ':' [test] [':' [test]]
//   atom    := NAME | NUMBER | STRING+ | '...' | 'None' | 'True' | 'False'
//            | '(' [test | testlist | test comp_for] ')' | '[' [testlist | test comp_for] ']'
//            | '{' [dict entries | test ':' test comp_for] '}'
//   comp_for := ('for' targets 'in' or_test ('if' or_test)*)+
//   STRING  := str/bytes literals with prefixes r, b, rb, f, rf (f-strings parsed into
//              JoinedStr/FormattedValue); adjacent literals concatenate.
//
// Ownership: nodes are immutable once built and shared (shared_ptr<const>), so passes
// build new trees that reuse unchanged subtrees. Every node carries its SourceRange.
#ifndef GRAPHD_COMPILER_FRONTEND_AST_H_
#define GRAPHD_COMPILER_FRONTEND_AST_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/source.h"

namespace graphd::compiler::ast {

// ---------------------------------------------------------------- expressions

enum class ExprKind {
  kName, kConstant, kAttribute, kSubscript, kSlice, kCall, kBinOp, kUnaryOp, kBoolOp,
  kCompare, kIfExp, kLambda, kTuple, kList, kDict, kListComp, kDictComp, kStarred,
  kJoinedStr, kFormattedValue,
};

struct Expr {
  explicit Expr(ExprKind k, SourceRange r = {}) : kind(k), range(std::move(r)) {}
  virtual ~Expr() = default;
  const ExprKind kind;
  SourceRange range;

  template <typename T>
  const T* As() const { return kind == T::kKind ? static_cast<const T*>(this) : nullptr; }
};
using ExprPtr = std::shared_ptr<const Expr>;

// Load/Store/Del as in CPython: where a Name, Attribute, Subscript, Tuple, List or
// Starred appears.
enum class Ctx { kLoad, kStore, kDel };

struct Name : Expr {
  static constexpr ExprKind kKind = ExprKind::kName;
  Name(std::string id, Ctx ctx, SourceRange r = {}) : Expr(kKind, std::move(r)), id(std::move(id)), ctx(ctx) {}
  std::string id;
  Ctx ctx;
};

struct NoneValue { bool operator==(const NoneValue&) const = default; };
struct EllipsisValue { bool operator==(const EllipsisValue&) const = default; };
struct Bytes {
  std::string data;
  bool operator==(const Bytes&) const = default;
};
// Python literal values. Integers are limited to int64 (the lexer rejects larger).
using ConstantValue = std::variant<NoneValue, bool, int64_t, double, std::string, Bytes, EllipsisValue>;

struct Constant : Expr {
  static constexpr ExprKind kKind = ExprKind::kConstant;
  Constant(ConstantValue v, SourceRange r = {}) : Expr(kKind, std::move(r)), value(std::move(v)) {}
  ConstantValue value;
};

struct Attribute : Expr {
  static constexpr ExprKind kKind = ExprKind::kAttribute;
  Attribute(ExprPtr value, std::string attr, Ctx ctx, SourceRange r = {})
      : Expr(kKind, std::move(r)), value(std::move(value)), attr(std::move(attr)), ctx(ctx) {}
  ExprPtr value;
  std::string attr;
  Ctx ctx;
};

// value[slice]; `slice` is an expression, a Slice, or a Tuple of those.
struct Subscript : Expr {
  static constexpr ExprKind kKind = ExprKind::kSubscript;
  Subscript(ExprPtr value, ExprPtr slice, Ctx ctx, SourceRange r = {})
      : Expr(kKind, std::move(r)), value(std::move(value)), slice(std::move(slice)), ctx(ctx) {}
  ExprPtr value;
  ExprPtr slice;
  Ctx ctx;
};

// lower:upper:step inside a subscript; each part may be null.
struct Slice : Expr {
  static constexpr ExprKind kKind = ExprKind::kSlice;
  Slice(ExprPtr lower, ExprPtr upper, ExprPtr step, SourceRange r = {})
      : Expr(kKind, std::move(r)), lower(std::move(lower)), upper(std::move(upper)), step(std::move(step)) {}
  ExprPtr lower, upper, step;
};

// `name=value`, or `**value` when `arg` is empty.
struct Keyword {
  std::string arg;
  ExprPtr value;
  SourceRange range;
};

struct Call : Expr {
  static constexpr ExprKind kKind = ExprKind::kCall;
  Call(ExprPtr func, std::vector<ExprPtr> args, std::vector<Keyword> keywords, SourceRange r = {})
      : Expr(kKind, std::move(r)), func(std::move(func)), args(std::move(args)), keywords(std::move(keywords)) {}
  ExprPtr func;
  std::vector<ExprPtr> args;  // may contain Starred (*args)
  std::vector<Keyword> keywords;
};

enum class BinOpKind { kAdd, kSub, kMult, kMatMult, kDiv, kFloorDiv, kMod, kPow, kLShift, kRShift, kBitOr, kBitXor, kBitAnd };
struct BinOp : Expr {
  static constexpr ExprKind kKind = ExprKind::kBinOp;
  BinOp(ExprPtr left, BinOpKind op, ExprPtr right, SourceRange r = {})
      : Expr(kKind, std::move(r)), left(std::move(left)), op(op), right(std::move(right)) {}
  ExprPtr left;
  BinOpKind op;
  ExprPtr right;
};

enum class UnaryOpKind { kUAdd, kUSub, kNot, kInvert };
struct UnaryOp : Expr {
  static constexpr ExprKind kKind = ExprKind::kUnaryOp;
  UnaryOp(UnaryOpKind op, ExprPtr operand, SourceRange r = {})
      : Expr(kKind, std::move(r)), op(op), operand(std::move(operand)) {}
  UnaryOpKind op;
  ExprPtr operand;
};

enum class BoolOpKind { kAnd, kOr };
struct BoolOp : Expr {
  static constexpr ExprKind kKind = ExprKind::kBoolOp;
  BoolOp(BoolOpKind op, std::vector<ExprPtr> values, SourceRange r = {})
      : Expr(kKind, std::move(r)), op(op), values(std::move(values)) {}
  BoolOpKind op;
  std::vector<ExprPtr> values;  // two or more
};

enum class CmpOpKind { kEq, kNotEq, kLt, kLtE, kGt, kGtE, kIs, kIsNot, kIn, kNotIn };
struct Compare : Expr {
  static constexpr ExprKind kKind = ExprKind::kCompare;
  Compare(ExprPtr left, std::vector<CmpOpKind> ops, std::vector<ExprPtr> comparators, SourceRange r = {})
      : Expr(kKind, std::move(r)), left(std::move(left)), ops(std::move(ops)), comparators(std::move(comparators)) {}
  ExprPtr left;
  std::vector<CmpOpKind> ops;
  std::vector<ExprPtr> comparators;
};

struct IfExp : Expr {
  static constexpr ExprKind kKind = ExprKind::kIfExp;
  IfExp(ExprPtr test, ExprPtr body, ExprPtr orelse, SourceRange r = {})
      : Expr(kKind, std::move(r)), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {}
  ExprPtr test, body, orelse;
};

// Parameters of a def or lambda.
struct Arg {
  std::string name;
  ExprPtr annotation;  // may be null; ignored by the tracer
  SourceRange range;
};
struct Arguments {
  std::vector<Arg> args;          // positional-or-keyword
  std::vector<ExprPtr> defaults;  // for the last defaults.size() of `args`
  std::optional<Arg> vararg;      // *args
  std::vector<Arg> kwonlyargs;
  std::vector<ExprPtr> kw_defaults;  // one per kwonlyarg, null when required
  std::optional<Arg> kwarg;       // **kwargs
};

struct Lambda : Expr {
  static constexpr ExprKind kKind = ExprKind::kLambda;
  Lambda(Arguments args, ExprPtr body, SourceRange r = {})
      : Expr(kKind, std::move(r)), args(std::move(args)), body(std::move(body)) {}
  Arguments args;
  ExprPtr body;
};

struct Tuple : Expr {
  static constexpr ExprKind kKind = ExprKind::kTuple;
  Tuple(std::vector<ExprPtr> elts, Ctx ctx, SourceRange r = {})
      : Expr(kKind, std::move(r)), elts(std::move(elts)), ctx(ctx) {}
  std::vector<ExprPtr> elts;
  Ctx ctx;
};

struct List : Expr {
  static constexpr ExprKind kKind = ExprKind::kList;
  List(std::vector<ExprPtr> elts, Ctx ctx, SourceRange r = {})
      : Expr(kKind, std::move(r)), elts(std::move(elts)), ctx(ctx) {}
  std::vector<ExprPtr> elts;
  Ctx ctx;
};

// {k: v, **m}: a null key marks a `**m` entry.
struct Dict : Expr {
  static constexpr ExprKind kKind = ExprKind::kDict;
  Dict(std::vector<ExprPtr> keys, std::vector<ExprPtr> values, SourceRange r = {})
      : Expr(kKind, std::move(r)), keys(std::move(keys)), values(std::move(values)) {}
  std::vector<ExprPtr> keys;
  std::vector<ExprPtr> values;
};

struct Comprehension {
  ExprPtr target;  // Store context
  ExprPtr iter;
  std::vector<ExprPtr> ifs;
};

struct ListComp : Expr {
  static constexpr ExprKind kKind = ExprKind::kListComp;
  ListComp(ExprPtr elt, std::vector<Comprehension> generators, SourceRange r = {})
      : Expr(kKind, std::move(r)), elt(std::move(elt)), generators(std::move(generators)) {}
  ExprPtr elt;
  std::vector<Comprehension> generators;
};

struct DictComp : Expr {
  static constexpr ExprKind kKind = ExprKind::kDictComp;
  DictComp(ExprPtr key, ExprPtr value, std::vector<Comprehension> generators, SourceRange r = {})
      : Expr(kKind, std::move(r)), key(std::move(key)), value(std::move(value)), generators(std::move(generators)) {}
  ExprPtr key, value;
  std::vector<Comprehension> generators;
};

struct Starred : Expr {
  static constexpr ExprKind kKind = ExprKind::kStarred;
  Starred(ExprPtr value, Ctx ctx, SourceRange r = {})
      : Expr(kKind, std::move(r)), value(std::move(value)), ctx(ctx) {}
  ExprPtr value;
  Ctx ctx;
};

// An f-string: Constant(str) and FormattedValue parts.
struct JoinedStr : Expr {
  static constexpr ExprKind kKind = ExprKind::kJoinedStr;
  JoinedStr(std::vector<ExprPtr> values, SourceRange r = {}) : Expr(kKind, std::move(r)), values(std::move(values)) {}
  std::vector<ExprPtr> values;
};

// {value!conversion:format_spec} inside an f-string; conversion is 0, 's', 'r' or 'a'.
struct FormattedValue : Expr {
  static constexpr ExprKind kKind = ExprKind::kFormattedValue;
  FormattedValue(ExprPtr value, char conversion, ExprPtr format_spec, SourceRange r = {})
      : Expr(kKind, std::move(r)), value(std::move(value)), conversion(conversion), format_spec(std::move(format_spec)) {}
  ExprPtr value;
  char conversion;
  ExprPtr format_spec;  // a JoinedStr, or null
};

// ---------------------------------------------------------------- statements

enum class StmtKind {
  kExpr, kAssign, kAugAssign, kIf, kWhile, kFor, kBreak, kContinue, kReturn, kPass,
  kAssert, kDelete, kWith, kFunctionDef, kClassDef, kImport, kImportFrom, kGlobal, kNonlocal,
  kTry, kRaise,
};

struct Stmt {
  explicit Stmt(StmtKind k, SourceRange r = {}) : kind(k), range(std::move(r)) {}
  virtual ~Stmt() = default;
  const StmtKind kind;
  SourceRange range;

  template <typename T>
  const T* As() const { return kind == T::kKind ? static_cast<const T*>(this) : nullptr; }
};
using StmtPtr = std::shared_ptr<const Stmt>;
using Body = std::vector<StmtPtr>;

struct ExprStmt : Stmt {
  static constexpr StmtKind kKind = StmtKind::kExpr;
  ExprStmt(ExprPtr value, SourceRange r = {}) : Stmt(kKind, std::move(r)), value(std::move(value)) {}
  ExprPtr value;
};

// targets[0] = targets[1] = ... = value
struct Assign : Stmt {
  static constexpr StmtKind kKind = StmtKind::kAssign;
  Assign(std::vector<ExprPtr> targets, ExprPtr value, SourceRange r = {})
      : Stmt(kKind, std::move(r)), targets(std::move(targets)), value(std::move(value)) {}
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

struct AugAssign : Stmt {
  static constexpr StmtKind kKind = StmtKind::kAugAssign;
  AugAssign(ExprPtr target, BinOpKind op, ExprPtr value, SourceRange r = {})
      : Stmt(kKind, std::move(r)), target(std::move(target)), op(op), value(std::move(value)) {}
  ExprPtr target;
  BinOpKind op;
  ExprPtr value;
};

struct If : Stmt {
  static constexpr StmtKind kKind = StmtKind::kIf;
  If(ExprPtr test, Body body, Body orelse, SourceRange r = {})
      : Stmt(kKind, std::move(r)), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {}
  ExprPtr test;
  Body body, orelse;  // elif chains are nested Ifs in orelse
};

struct While : Stmt {
  static constexpr StmtKind kKind = StmtKind::kWhile;
  While(ExprPtr test, Body body, Body orelse, SourceRange r = {})
      : Stmt(kKind, std::move(r)), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {}
  ExprPtr test;
  Body body, orelse;
  // AutoGraph's intermediate form only: the loop had an else clause (moved after it).
  bool had_else = false;
};

struct For : Stmt {
  static constexpr StmtKind kKind = StmtKind::kFor;
  For(ExprPtr target, ExprPtr iter, Body body, Body orelse, SourceRange r = {})
      : Stmt(kKind, std::move(r)), target(std::move(target)), iter(std::move(iter)), body(std::move(body)), orelse(std::move(orelse)) {}
  ExprPtr target, iter;
  Body body, orelse;
  // AutoGraph's intermediate form only (never parsed or printed): an extra condition
  // checked before each iteration, set when break/return were canonicalised into flags;
  // whether the loop had an else clause (moved after it).
  ExprPtr extra_test;
  bool had_else = false;
};

struct Break : Stmt {
  static constexpr StmtKind kKind = StmtKind::kBreak;
  explicit Break(SourceRange r = {}) : Stmt(kKind, std::move(r)) {}
};
struct Continue : Stmt {
  static constexpr StmtKind kKind = StmtKind::kContinue;
  explicit Continue(SourceRange r = {}) : Stmt(kKind, std::move(r)) {}
};
struct Pass : Stmt {
  static constexpr StmtKind kKind = StmtKind::kPass;
  explicit Pass(SourceRange r = {}) : Stmt(kKind, std::move(r)) {}
};

struct Return : Stmt {
  static constexpr StmtKind kKind = StmtKind::kReturn;
  Return(ExprPtr value, SourceRange r = {}) : Stmt(kKind, std::move(r)), value(std::move(value)) {}
  ExprPtr value;  // may be null
};

struct Assert : Stmt {
  static constexpr StmtKind kKind = StmtKind::kAssert;
  Assert(ExprPtr test, ExprPtr msg, SourceRange r = {})
      : Stmt(kKind, std::move(r)), test(std::move(test)), msg(std::move(msg)) {}
  ExprPtr test, msg;  // msg may be null
};

struct Delete : Stmt {
  static constexpr StmtKind kKind = StmtKind::kDelete;
  Delete(std::vector<ExprPtr> targets, SourceRange r = {}) : Stmt(kKind, std::move(r)), targets(std::move(targets)) {}
  std::vector<ExprPtr> targets;
};

struct WithItem {
  ExprPtr context_expr;
  ExprPtr optional_vars;  // may be null
};
struct With : Stmt {
  static constexpr StmtKind kKind = StmtKind::kWith;
  With(std::vector<WithItem> items, Body body, SourceRange r = {})
      : Stmt(kKind, std::move(r)), items(std::move(items)), body(std::move(body)) {}
  std::vector<WithItem> items;
  Body body;
};

// except [type [as name]]: body
struct ExceptHandler {
  ExprPtr type;      // may be null (a bare except)
  std::string name;  // empty when absent
  Body body;
  SourceRange range;
};
// try: body  except...: ...  else: orelse  finally: finalbody
struct Try : Stmt {
  static constexpr StmtKind kKind = StmtKind::kTry;
  Try(Body body, std::vector<ExceptHandler> handlers, Body orelse, Body finalbody, SourceRange r = {})
      : Stmt(kKind, std::move(r)), body(std::move(body)), handlers(std::move(handlers)), orelse(std::move(orelse)),
        finalbody(std::move(finalbody)) {}
  Body body;
  std::vector<ExceptHandler> handlers;
  Body orelse, finalbody;
};

// raise [exc [from cause]]
struct Raise : Stmt {
  static constexpr StmtKind kKind = StmtKind::kRaise;
  Raise(ExprPtr exc, ExprPtr cause, SourceRange r = {})
      : Stmt(kKind, std::move(r)), exc(std::move(exc)), cause(std::move(cause)) {}
  ExprPtr exc, cause;  // each may be null
};

struct FunctionDef : Stmt {
  static constexpr StmtKind kKind = StmtKind::kFunctionDef;
  FunctionDef(std::string name, Arguments args, Body body, std::vector<ExprPtr> decorator_list,
              ExprPtr returns, SourceRange r = {})
      : Stmt(kKind, std::move(r)), name(std::move(name)), args(std::move(args)), body(std::move(body)),
        decorator_list(std::move(decorator_list)), returns(std::move(returns)) {}
  std::string name;
  Arguments args;
  Body body;
  std::vector<ExprPtr> decorator_list;
  ExprPtr returns;  // annotation, may be null
};

struct ClassDef : Stmt {
  static constexpr StmtKind kKind = StmtKind::kClassDef;
  ClassDef(std::string name, std::vector<ExprPtr> bases, Body body, std::vector<ExprPtr> decorator_list,
           SourceRange r = {})
      : Stmt(kKind, std::move(r)), name(std::move(name)), bases(std::move(bases)), body(std::move(body)),
        decorator_list(std::move(decorator_list)) {}
  std::string name;
  std::vector<ExprPtr> bases;
  Body body;
  std::vector<ExprPtr> decorator_list;
};

struct Alias {
  std::string name;    // dotted, e.g. "tensorflow.compat.v2"
  std::string asname;  // empty when absent
  SourceRange range;
};
struct Import : Stmt {
  static constexpr StmtKind kKind = StmtKind::kImport;
  Import(std::vector<Alias> names, SourceRange r = {}) : Stmt(kKind, std::move(r)), names(std::move(names)) {}
  std::vector<Alias> names;
};
struct ImportFrom : Stmt {
  static constexpr StmtKind kKind = StmtKind::kImportFrom;
  ImportFrom(std::string module, std::vector<Alias> names, SourceRange r = {})
      : Stmt(kKind, std::move(r)), module(std::move(module)), names(std::move(names)) {}
  std::string module;
  std::vector<Alias> names;
};

struct Global : Stmt {
  static constexpr StmtKind kKind = StmtKind::kGlobal;
  Global(std::vector<std::string> names, SourceRange r = {}) : Stmt(kKind, std::move(r)), names(std::move(names)) {}
  std::vector<std::string> names;
};
struct Nonlocal : Stmt {
  static constexpr StmtKind kKind = StmtKind::kNonlocal;
  Nonlocal(std::vector<std::string> names, SourceRange r = {}) : Stmt(kKind, std::move(r)), names(std::move(names)) {}
  std::vector<std::string> names;
};

struct Module {
  std::shared_ptr<const SourceFile> file;
  Body body;
};

}  // namespace graphd::compiler::ast

#endif  // GRAPHD_COMPILER_FRONTEND_AST_H_
