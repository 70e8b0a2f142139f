// AST shapes: contexts, operators, nesting and ranges as the parser builds them.
#include "compiler/frontend/parser.h"

#include <string>

#include "compiler/frontend/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler {
namespace {

using ast::Ctx;
using testing::File;

ast::Module Parse(const std::string& src) {
  auto m = ParseModule(File(src));
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : ast::Module{};
}

// The parsed tree stays alive until the end of the test program, so tests may hold
// references into it.
ast::ExprPtr ParseExpr(const std::string& src) {
  static auto* keep_alive = new std::vector<ast::ExprPtr>;
  auto e = ParseExpression(File(src));
  EXPECT_TRUE(e.ok()) << e.status();
  if (!e.ok()) return nullptr;
  keep_alive->push_back(*e);
  return *e;
}

template <typename T>
const T& As(const ast::ExprPtr& e) {
  EXPECT_NE(e, nullptr);
  const T* t = e->As<T>();
  EXPECT_NE(t, nullptr) << "kind " << static_cast<int>(e->kind);
  return *t;
}

template <typename T>
const T& As(const ast::StmtPtr& s) {
  const T* t = s->As<T>();
  EXPECT_NE(t, nullptr) << "kind " << static_cast<int>(s->kind);
  return *t;
}

TEST(ParserTest, AssignmentTargetsAreStore) {
  ast::Module m = Parse("a, [b, c.d] = e[0] = x\n");
  ASSERT_EQ(m.body.size(), 1u);
  const auto& assign = As<ast::Assign>(m.body[0]);
  ASSERT_EQ(assign.targets.size(), 2u);
  const auto& tuple = As<ast::Tuple>(assign.targets[0]);
  EXPECT_EQ(tuple.ctx, Ctx::kStore);
  EXPECT_EQ(As<ast::Name>(tuple.elts[0]).ctx, Ctx::kStore);
  const auto& list = As<ast::List>(tuple.elts[1]);
  EXPECT_EQ(list.ctx, Ctx::kStore);
  EXPECT_EQ(As<ast::Attribute>(list.elts[1]).ctx, Ctx::kStore);
  EXPECT_EQ(As<ast::Name>(As<ast::Attribute>(list.elts[1]).value).ctx, Ctx::kLoad);
  EXPECT_EQ(As<ast::Subscript>(assign.targets[1]).ctx, Ctx::kStore);
  EXPECT_EQ(As<ast::Name>(assign.value).ctx, Ctx::kLoad);
}

TEST(ParserTest, OtherTargetContexts) {
  ast::Module m = Parse(
      "del x[0], y\n"
      "for i, j in z:\n  pass\n"
      "with open(f) as g, h:\n  pass\n"
      "n += 1\n"
      "q = [k for k, v in items]\n");
  const auto& del = As<ast::Delete>(m.body[0]);
  ASSERT_EQ(del.targets.size(), 2u);
  EXPECT_EQ(As<ast::Subscript>(del.targets[0]).ctx, Ctx::kDel);
  EXPECT_EQ(As<ast::Name>(del.targets[1]).ctx, Ctx::kDel);
  const auto& loop = As<ast::For>(m.body[1]);
  EXPECT_EQ(As<ast::Tuple>(loop.target).ctx, Ctx::kStore);
  EXPECT_EQ(As<ast::Name>(As<ast::Tuple>(loop.target).elts[1]).ctx, Ctx::kStore);
  const auto& with = As<ast::With>(m.body[2]);
  ASSERT_EQ(with.items.size(), 2u);
  EXPECT_EQ(As<ast::Name>(with.items[0].optional_vars).ctx, Ctx::kStore);
  EXPECT_EQ(with.items[1].optional_vars, nullptr);
  const auto& aug = As<ast::AugAssign>(m.body[3]);
  EXPECT_EQ(aug.op, ast::BinOpKind::kAdd);
  EXPECT_EQ(As<ast::Name>(aug.target).ctx, Ctx::kStore);
  const auto& comp = As<ast::ListComp>(As<ast::Assign>(m.body[4]).value);
  EXPECT_EQ(As<ast::Tuple>(comp.generators[0].target).ctx, Ctx::kStore);
  EXPECT_EQ(As<ast::Name>(comp.generators[0].iter).ctx, Ctx::kLoad);
}

TEST(ParserTest, ChainedComparisons) {
  const auto& c = As<ast::Compare>(ParseExpr("a < b <= c is not d not in e"));
  EXPECT_EQ(As<ast::Name>(c.left).id, "a");
  EXPECT_THAT(c.ops, ::testing::ElementsAre(ast::CmpOpKind::kLt, ast::CmpOpKind::kLtE, ast::CmpOpKind::kIsNot,
                                            ast::CmpOpKind::kNotIn));
  ASSERT_EQ(c.comparators.size(), 4u);
  EXPECT_EQ(As<ast::Name>(c.comparators[3]).id, "e");
}

TEST(ParserTest, Precedence) {
  // not a == b  ->  not (a == b)
  const auto& n = As<ast::UnaryOp>(ParseExpr("not a == b"));
  EXPECT_EQ(n.op, ast::UnaryOpKind::kNot);
  EXPECT_NE(n.operand->As<ast::Compare>(), nullptr);
  // a or b and c  ->  a or (b and c)
  const auto& o = As<ast::BoolOp>(ParseExpr("a or b and c"));
  EXPECT_EQ(o.op, ast::BoolOpKind::kOr);
  EXPECT_EQ(As<ast::BoolOp>(o.values[1]).op, ast::BoolOpKind::kAnd);
  // -2 ** 2  ->  -(2 ** 2)
  const auto& neg = As<ast::UnaryOp>(ParseExpr("-2 ** 2"));
  EXPECT_EQ(As<ast::BinOp>(neg.operand).op, ast::BinOpKind::kPow);
  // a ** b ** c  ->  a ** (b ** c);  a - b - c  ->  (a - b) - c
  EXPECT_NE(As<ast::BinOp>(ParseExpr("a ** b ** c")).right->As<ast::BinOp>(), nullptr);
  EXPECT_NE(As<ast::BinOp>(ParseExpr("a - b - c")).left->As<ast::BinOp>(), nullptr);
  // x @ w + b  ->  (x @ w) + b
  const auto& add = As<ast::BinOp>(ParseExpr("x @ w + b"));
  EXPECT_EQ(add.op, ast::BinOpKind::kAdd);
  EXPECT_EQ(As<ast::BinOp>(add.left).op, ast::BinOpKind::kMatMult);
  // a if b else c if d else e  ->  a if b else (c if d else e)
  EXPECT_NE(As<ast::IfExp>(ParseExpr("a if b else c if d else e")).orelse->As<ast::IfExp>(), nullptr);
  // a | b ^ c & d << e
  const auto& bor = As<ast::BinOp>(ParseExpr("a | b ^ c & d << e"));
  EXPECT_EQ(bor.op, ast::BinOpKind::kBitOr);
  EXPECT_EQ(As<ast::BinOp>(bor.right).op, ast::BinOpKind::kBitXor);
}

TEST(ParserTest, ElifNestsInOrelse) {
  ast::Module m = Parse("if a:\n  x\nelif b:\n  y\nelif c:\n  z\nelse:\n  w\n");
  ASSERT_EQ(m.body.size(), 1u);
  const auto& i1 = As<ast::If>(m.body[0]);
  ASSERT_EQ(i1.orelse.size(), 1u);
  const auto& i2 = As<ast::If>(i1.orelse[0]);
  EXPECT_EQ(As<ast::Name>(i2.test).id, "b");
  EXPECT_EQ(i2.range.line(), 3);
  const auto& i3 = As<ast::If>(i2.orelse[0]);
  ASSERT_EQ(i3.orelse.size(), 1u);
  EXPECT_EQ(As<ast::Name>(As<ast::ExprStmt>(i3.orelse[0]).value).id, "w");
}

TEST(ParserTest, CallArguments) {
  const auto& c = As<ast::Call>(ParseExpr("f(a, *b, k=1, **kw)"));
  ASSERT_EQ(c.args.size(), 2u);
  EXPECT_EQ(As<ast::Starred>(c.args[1]).ctx, Ctx::kLoad);
  ASSERT_EQ(c.keywords.size(), 2u);
  EXPECT_EQ(c.keywords[0].arg, "k");
  EXPECT_EQ(c.keywords[1].arg, "");  // **kw
  EXPECT_EQ(As<ast::Name>(c.keywords[1].value).id, "kw");
  // A lone generator argument becomes a list comprehension.
  const auto& s = As<ast::Call>(ParseExpr("sum(x * x for x in xs if x)"));
  ASSERT_EQ(s.args.size(), 1u);
  EXPECT_EQ(As<ast::ListComp>(s.args[0]).generators[0].ifs.size(), 1u);
}

TEST(ParserTest, Subscripts) {
  const auto& s = As<ast::Subscript>(ParseExpr("a[1:2, ::3, ...]"));
  const auto& t = As<ast::Tuple>(s.slice);
  ASSERT_EQ(t.elts.size(), 3u);
  const auto& s0 = As<ast::Slice>(t.elts[0]);
  EXPECT_NE(s0.lower, nullptr);
  EXPECT_EQ(s0.step, nullptr);
  const auto& s1 = As<ast::Slice>(t.elts[1]);
  EXPECT_EQ(s1.lower, nullptr);
  EXPECT_EQ(s1.upper, nullptr);
  EXPECT_EQ(std::get<int64_t>(As<ast::Constant>(s1.step).value), 3);
  EXPECT_TRUE(std::holds_alternative<ast::EllipsisValue>(As<ast::Constant>(t.elts[2]).value));
  const auto& n = As<ast::Tuple>(As<ast::Subscript>(ParseExpr("x[None, :]")).slice);
  EXPECT_TRUE(std::holds_alternative<ast::NoneValue>(As<ast::Constant>(n.elts[0]).value));
  EXPECT_NE(n.elts[1]->As<ast::Slice>(), nullptr);
  // x[i] is a plain index; x[i,] a one-element tuple.
  EXPECT_NE(As<ast::Subscript>(ParseExpr("x[i]")).slice->As<ast::Name>(), nullptr);
  EXPECT_EQ(As<ast::Tuple>(As<ast::Subscript>(ParseExpr("x[i,]")).slice).elts.size(), 1u);
}

TEST(ParserTest, LambdaAndDefParameters) {
  const auto& l = As<ast::Lambda>(ParseExpr("lambda x, *a, k=1, **kw: x"));
  ASSERT_EQ(l.args.args.size(), 1u);
  EXPECT_EQ(l.args.vararg->name, "a");
  ASSERT_EQ(l.args.kwonlyargs.size(), 1u);
  EXPECT_EQ(l.args.kwonlyargs[0].name, "k");
  ASSERT_EQ(l.args.kw_defaults.size(), 1u);
  EXPECT_NE(l.args.kw_defaults[0], nullptr);
  EXPECT_EQ(l.args.kwarg->name, "kw");

  ast::Module m = Parse("def f(a, b: int = 2, *, c, d=4, **e) -> float:\n  return a\n");
  const auto& f = As<ast::FunctionDef>(m.body[0]);
  EXPECT_EQ(f.name, "f");
  ASSERT_EQ(f.args.args.size(), 2u);
  EXPECT_NE(f.args.args[1].annotation, nullptr);
  EXPECT_EQ(f.args.defaults.size(), 1u);
  EXPECT_FALSE(f.args.vararg.has_value());
  ASSERT_EQ(f.args.kw_defaults.size(), 2u);
  EXPECT_EQ(f.args.kw_defaults[0], nullptr);
  EXPECT_NE(f.args.kw_defaults[1], nullptr);
  EXPECT_EQ(f.args.kwarg->name, "e");
  EXPECT_NE(f.returns, nullptr);
}

TEST(ParserTest, FStrings) {
  const auto& j = As<ast::JoinedStr>(ParseExpr("f'a{x!r:>{w}}b' 'c'"));
  ASSERT_EQ(j.values.size(), 3u);
  EXPECT_EQ(std::get<std::string>(As<ast::Constant>(j.values[0]).value), "a");
  const auto& fv = As<ast::FormattedValue>(j.values[1]);
  EXPECT_EQ(fv.conversion, 'r');
  EXPECT_EQ(As<ast::Name>(fv.value).id, "x");
  EXPECT_EQ(fv.value->range.column(), 5);  // ranges point into the source
  const auto& spec = As<ast::JoinedStr>(fv.format_spec);
  ASSERT_EQ(spec.values.size(), 2u);
  EXPECT_EQ(std::get<std::string>(As<ast::Constant>(spec.values[0]).value), ">");
  EXPECT_EQ(As<ast::Name>(As<ast::FormattedValue>(spec.values[1]).value).id, "w");
  EXPECT_EQ(std::get<std::string>(As<ast::Constant>(j.values[2]).value), "bc");

  const auto& d = As<ast::JoinedStr>(ParseExpr("f'{x = }{{}}'"));
  ASSERT_EQ(d.values.size(), 3u);
  EXPECT_EQ(std::get<std::string>(As<ast::Constant>(d.values[0]).value), "x = ");
  EXPECT_EQ(As<ast::FormattedValue>(d.values[1]).conversion, 'r');
  EXPECT_EQ(std::get<std::string>(As<ast::Constant>(d.values[2]).value), "{}");
  // Escapes are decoded in literal parts, not in raw f-strings.
  const auto& e = As<ast::JoinedStr>(ParseExpr("f'\\t{1}' rf'\\t'"));
  EXPECT_EQ(std::get<std::string>(As<ast::Constant>(e.values[0]).value), "\t");
  EXPECT_EQ(std::get<std::string>(As<ast::Constant>(e.values[2]).value), "\\t");
}

TEST(ParserTest, Literals) {
  EXPECT_EQ(std::get<std::string>(As<ast::Constant>(ParseExpr("'a' \"b\" '''c'''")).value), "abc");
  EXPECT_EQ(std::get<ast::Bytes>(As<ast::Constant>(ParseExpr("b'a' rb'\\n'")).value).data, "a\\n");
  EXPECT_EQ(std::get<bool>(As<ast::Constant>(ParseExpr("True")).value), true);
  EXPECT_EQ(std::get<double>(As<ast::Constant>(ParseExpr("1.5")).value), 1.5);
  const auto& d = As<ast::Dict>(ParseExpr("{'a': 1, **m}"));
  ASSERT_EQ(d.keys.size(), 2u);
  EXPECT_EQ(d.keys[1], nullptr);
  EXPECT_EQ(As<ast::Name>(d.values[1]).id, "m");
  EXPECT_EQ(As<ast::Tuple>(ParseExpr("()")).elts.size(), 0u);
  EXPECT_EQ(As<ast::Tuple>(ParseExpr("1, 2,")).elts.size(), 2u);
  EXPECT_EQ(As<ast::Tuple>(ParseExpr("(*a, b)")).elts.size(), 2u);
  EXPECT_EQ(As<ast::DictComp>(ParseExpr("{k: v for k, v in x if k}")).generators[0].ifs.size(), 1u);
}

TEST(ParserTest, Statements) {
  ast::Module m = Parse(
      "import tensorflow.compat.v2 as tf, numpy\n"
      "from a.b import (c as d, e,)\n"
      "x: int = 5; y = 6;\n"
      "@tf.function(autograph=True)\n"
      "@other\n"
      "def f(x):\n"
      "  global g\n"
      "  def h():\n"
      "    nonlocal x\n"
      "  assert x, 'msg'\n"
      "class C(Base, mod.Mixin):\n"
      "  v = None\n"
      "  def m(self): return self.v\n");
  ASSERT_EQ(m.body.size(), 6u);
  const auto& imp = As<ast::Import>(m.body[0]);
  ASSERT_EQ(imp.names.size(), 2u);
  EXPECT_EQ(imp.names[0].name, "tensorflow.compat.v2");
  EXPECT_EQ(imp.names[0].asname, "tf");
  EXPECT_EQ(imp.names[1].asname, "");
  const auto& from = As<ast::ImportFrom>(m.body[1]);
  EXPECT_EQ(from.module, "a.b");
  ASSERT_EQ(from.names.size(), 2u);
  EXPECT_EQ(from.names[0].asname, "d");
  EXPECT_EQ(As<ast::Assign>(m.body[2]).targets.size(), 1u);  // x: int = 5 is x = 5
  EXPECT_NE(m.body[3]->As<ast::Assign>(), nullptr);
  const auto& f = As<ast::FunctionDef>(m.body[4]);
  ASSERT_EQ(f.decorator_list.size(), 2u);
  EXPECT_NE(f.decorator_list[0]->As<ast::Call>(), nullptr);
  EXPECT_EQ(f.range.line(), 6);  // the def line, not the decorators'
  ASSERT_EQ(f.body.size(), 3u);
  EXPECT_NE(f.body[0]->As<ast::Global>(), nullptr);
  EXPECT_NE(As<ast::FunctionDef>(f.body[1]).body[0]->As<ast::Nonlocal>(), nullptr);
  EXPECT_NE(As<ast::Assert>(f.body[2]).msg, nullptr);
  const auto& c = As<ast::ClassDef>(m.body[5]);
  ASSERT_EQ(c.bases.size(), 2u);
  EXPECT_EQ(c.body.size(), 2u);
}

TEST(ParserTest, Ranges) {
  ast::Module m = Parse("x = 1\nif x:\n    y = foo(a, b) + 2\n");
  const auto& assign = As<ast::Assign>(As<ast::If>(m.body[1]).body[0]);
  EXPECT_EQ(assign.range.line(), 3);
  EXPECT_EQ(assign.range.column(), 5);
  const auto& add = As<ast::BinOp>(assign.value);
  EXPECT_EQ(add.range.column(), 9);
  EXPECT_EQ(add.range.end - add.range.begin, std::string("foo(a, b) + 2").size());
  const auto& call = As<ast::Call>(add.left);
  EXPECT_EQ(call.range.end - call.range.begin, std::string("foo(a, b)").size());
  EXPECT_EQ(As<ast::If>(m.body[1]).range.end, static_cast<int>(m.file->text().size()) - 1);
  // A compound statement ends with its last token, not where the next one starts.
  ast::Module n = Parse("while a:\n  b = 1\n\nc = 2\n");
  EXPECT_EQ(n.body[0]->range.end, static_cast<int>(n.file->text().find("1")) + 1);
}

TEST(ParserTest, WithParenthesisedItems) {
  ast::Module m = Parse("with (a as b, c as d,):\n  pass\nwith (a, b):\n  pass\nwith (a) as b:\n  pass\n");
  EXPECT_EQ(As<ast::With>(m.body[0]).items.size(), 2u);
  EXPECT_EQ(As<ast::With>(m.body[1]).items.size(), 2u);  // as in Python 3.10+
  EXPECT_EQ(As<ast::With>(m.body[2]).items.size(), 1u);
}

TEST(ParserTest, LimitsAreErrorsNotCrashes) {
  // Long flat chains are fine up to the height limit...
  std::string sum = "x = 1";
  for (int i = 0; i < 900; ++i) sum += " + 1";
  EXPECT_TRUE(ParseModule(File(sum + "\n")).ok());
  // ...and beyond it are a RecursionError, not a stack overflow.
  std::string longer = "x = 1";
  for (int i = 0; i < 200000; ++i) longer += "+1";
  auto s = ParseModule(File(longer + "\n"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(errors::PythonClassOf(s.status()).value_or(""), "RecursionError");
  std::string calls = "x = f";
  for (int i = 0; i < 5000; ++i) calls += "()";
  EXPECT_EQ(errors::PythonClassOf(ParseModule(File(calls + "\n")).status()).value_or(""), "RecursionError");
  // Unary operators recurse; the guard stops them.
  EXPECT_TRUE(ParseModule(File("x = " + std::string(200, '-') + "1\n")).ok());
  for (const std::string& deep : {"x = " + std::string(5000, '-') + "1\n",
                                  "x = " + std::string(5000, '~') + "1\n"}) {
    auto d = ParseModule(File(deep));
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(errors::PythonClassOf(d.status()).value_or(""), "RecursionError");
  }
  std::string nots = "x = ";
  for (int i = 0; i < 5000; ++i) nots += "not ";
  EXPECT_EQ(errors::PythonClassOf(ParseModule(File(nots + "y\n")).status()).value_or(""), "RecursionError");
  std::string lambdas = "x = ";
  for (int i = 0; i < 5000; ++i) lambdas += "lambda: ";
  EXPECT_EQ(errors::PythonClassOf(ParseModule(File(lambdas + "y\n")).status()).value_or(""), "RecursionError");
  std::string powers = "x = 2";
  for (int i = 0; i < 5000; ++i) powers += " ** 2";
  EXPECT_EQ(errors::PythonClassOf(ParseModule(File(powers + "\n")).status()).value_or(""), "RecursionError");
  // 100 nested brackets parse.
  EXPECT_TRUE(ParseModule(File("x = " + std::string(100, '[') + std::string(100, ']') + "\n")).ok());
  std::string nested = "x = ";
  for (int i = 0; i < 100; ++i) nested += "-(";
  EXPECT_TRUE(ParseModule(File(nested + "1" + std::string(100, ')') + "\n")).ok());
}

}  // namespace
}  // namespace graphd::compiler
