// Golden tests (source in, printed source out) and the round-trip property
// Print(Parse(Print(Parse(src)))) == Print(Parse(src)).
#include "compiler/frontend/printer.h"

#include <cmath>
#include <random>
#include <limits>
#include <string>
#include <vector>

#include "compiler/frontend/parser.h"
#include "compiler/frontend/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler {
namespace {

using testing::File;
using testing::Reprint;

// Parses an expression and prints it back.
std::string Expr(const std::string& src) {
  auto e = ParseExpression(File(src));
  if (!e.ok()) return "ERROR: " + e.status().ToString();
  return PrintExpr(**e);
}

// ---- the seed examples, verbatim

constexpr char kHuberLoss[] = R"(def huber_loss(a):
  if tf.abs(a) <= delta:
    loss = a * a / 2
  else:
    loss = delta * (tf.abs(a) - delta / 2)
  return loss
)";

constexpr char kCollatz[] = R"(def collatz(a):
    counter = 0
    while a != 1:
        if a % 2 == 0:
            a = a // 2
        else:
            a = 3 * a + 1
        counter = counter + 1
    return counter
)";

constexpr char kAssert[] = R"(@tf.function
def f(x):
  assert x != 0, 'Do not pass zero!'
  return x * x
)";

constexpr char kStack[] = R"(def f(n):
  z = []
  autograph.set_element_type(z, tf.int32)
  for i in range(n):
    z.append(i)
  return autograph.stack(z)
)";

TEST(PrinterTest, SeedExamples) {
  EXPECT_EQ(Reprint(kHuberLoss),
            "def huber_loss(a):\n"
            "    if tf.abs(a) <= delta:\n"
            "        loss = a * a / 2\n"
            "    else:\n"
            "        loss = delta * (tf.abs(a) - delta / 2)\n"
            "    return loss\n");
  EXPECT_EQ(Reprint(kCollatz), kCollatz);  // already in the printer's style
  EXPECT_EQ(Reprint(kAssert),
            "@tf.function\n"
            "def f(x):\n"
            "    assert x != 0, 'Do not pass zero!'\n"
            "    return x * x\n");
  EXPECT_EQ(Reprint(kStack),
            "def f(n):\n"
            "    z = []\n"
            "    autograph.set_element_type(z, tf.int32)\n"
            "    for i in range(n):\n"
            "        z.append(i)\n"
            "    return autograph.stack(z)\n");
  // Top-level definitions are separated by one blank line.
  EXPECT_EQ(Reprint("import tensorflow as tf\ndef a():\n  pass\ndef b():\n  pass\nx = a()\n"),
            "import tensorflow as tf\n\ndef a():\n    pass\n\ndef b():\n    pass\n\nx = a()\n");
}

TEST(PrinterTest, PrecedenceAndAssociativity) {
  const std::vector<std::string> unchanged = {
      "not a == b", "a or b and c", "(a or b) and c", "not (a and b)", "(not a) == b",
      "-2 ** 2", "(-2) ** 2", "a - (b - c)", "(a ** b) ** c", "a ** b ** c", "-x ** 2",
      "(-x) ** 2", "2 ** -1", "a[1:2, ::3, ...]", "x[None, :]", "x[:, 0]", "x[::2]", "x[i,]",
      "x[()]", "lambda x, *a, k=1, **kw: x", "lambda: 0", "lambda *, k: k",
      "[y for x in xs if x for y in x if y > 0]", "[[c for c in r] for r in m if r]",
      "{k: v for k, v in d.items() if v}", "{**m, 'a': 1}", "{'a': 1, **m}",
      "f'{x!r:>{w}}'", "a < b < c", "(a < b) < c", "a is not b", "a not in b", "x @ w + b",
      "x @ (w + b)", "f(a if b else c, k=d if e else g)", "(a if b else c) if d else e",
      "a if b else lambda: c", "(lambda: 1)()", "(a + b)(c)", "(a + b)[0]", "(a + b).c",
      "(1).real", "1.5.hex()", "a + (b if c else d)", "[*a, *b]", "print(*args, sep='')",
      "f(**{'a': 1})", "(a, b)", "(a,)", "()", "a & b | c ^ d", "(a | b) & c", "a << b >> c",
      "a // b % c * d / e", "a * (b // c)", "~a + -b", "x[-1]", "not not a",
      "f(x)[1:2].t(*a, **k)", "'a' 'b'",
  };
  for (const std::string& src : unchanged) {
    std::string want = src;
    if (src == "'a' 'b'") want = "'ab'";
    EXPECT_EQ(Expr(src), want) << src;
  }
  // Redundant parentheses go away.
  EXPECT_EQ(Expr("(a - b) - c"), "a - b - c");
  EXPECT_EQ(Expr("a ** (b ** c)"), "a ** b ** c");
  EXPECT_EQ(Expr("-(x ** 2)"), "-x ** 2");
  EXPECT_EQ(Expr("((a)) + (b * c)"), "a + b * c");
  EXPECT_EQ(Expr("(a and b) and c"), "(a and b) and c");  // nested BoolOps stay nested
  EXPECT_EQ(Expr("a if (b if c else d) else e"), "a if (b if c else d) else e");
  EXPECT_EQ(Expr("sum(x for x in y)"), "sum([x for x in y])");
  EXPECT_EQ(Expr("--x"), "- -x");
  EXPECT_EQ(Expr("-+x"), "- +x");
  EXPECT_EQ(Expr("-~x"), "-~x");
}

TEST(PrinterTest, Literals) {
  EXPECT_EQ(Reprint("x = 0.1\ny = 1e-5\nz = 1.\nw = 1e16\nv = 123456789.123\nu = 1e400\nt = 1_000.5e-3\n"
                    "s = 0.0001\nr = 1e22\nq = 2.5e-300\np = 0x10\n"),
            "x = 0.1\ny = 1e-05\nz = 1.0\nw = 1e+16\nv = 123456789.123\nu = float('inf')\nt = 1.0005\n"
            "s = 0.0001\nr = 1e+22\nq = 2.5e-300\np = 16\n");
  EXPECT_EQ(Expr("'it\\'s'"), "\"it's\"");
  EXPECT_EQ(Expr("\"say \\\"hi\\\"\""), "'say \"hi\"'");
  EXPECT_EQ(Expr("'both \\' and \"'"), "'both \\' and \"'");
  EXPECT_EQ(Expr("'\\x01\\n\\t\\r\\\\ \\x7f'"), "'\\x01\\n\\t\\r\\\\ \\x7f'");
  EXPECT_EQ(Expr("'caf\xC3\xA9 \\xa0 \\u200b \\U0001F600'"), "'caf\xC3\xA9 \\xa0 \\u200b \xF0\x9F\x98\x80'");
  EXPECT_EQ(Expr("b'\\x00\\xff\\'a\"'"), "b'\\x00\\xff\\'a\"'");
  EXPECT_EQ(Expr("b\"it's\""), "b\"it's\"");
  EXPECT_EQ(Expr("r'\\d+'"), "'\\\\d+'");
  EXPECT_EQ(Expr("'''two\nlines'''"), "'two\\nlines'");
  EXPECT_EQ(Expr("(None, True, False, ...)"), "(None, True, False, ...)");
  EXPECT_EQ(Expr("9223372036854775807"), "9223372036854775807");
}

TEST(PrinterTest, FStrings) {
  EXPECT_EQ(Expr("f'{x!r:>{w}}'"), "f'{x!r:>{w}}'");
  EXPECT_EQ(Expr("f\"{d['k']}: {v:.3f}\""), "f\"{d['k']}: {v:.3f}\"");
  EXPECT_EQ(Expr("f'a{{b}}\\n{c}'"), "f'a{{b}}\\n{c}'");
  EXPECT_EQ(Expr("f'{x=}'"), "f'x={x!r}'");
  EXPECT_EQ(Expr("f'{ {1: 2}[1] }'"), "f'{ {1: 2}[1]}'");
  EXPECT_EQ(Expr("f'{(lambda: 1)()}{(lambda: 2)}'"), "f'{(lambda: 1)()}{(lambda: 2)}'");
  EXPECT_EQ(Expr("'a' f'{b}' 'c'"), "f'a{b}c'");
  EXPECT_EQ(Expr("f''"), "f''");
  EXPECT_EQ(Expr("f\"it's {x}\""), "f'it\\'s {x}'");
}

TEST(PrinterTest, Statements) {
  EXPECT_EQ(Reprint("x = 1,\na, b = b, a\nx += 1; y = z = 2;\ndel a, b[0]\nreturn_ = (yield_)\n"),
            "x = (1,)\na, b = b, a\nx += 1\ny = z = 2\ndel a, b[0]\nreturn_ = yield_\n");
  EXPECT_EQ(Reprint("for i, (j, k) in enumerate(zip(a, b)):\n  if i: continue\n  else: break\nelse:\n  pass\n"
                    "while x: x -= 1\nelse: y = 2\n"),
            "for i, (j, k) in enumerate(zip(a, b)):\n    if i:\n        continue\n    else:\n        break\n"
            "else:\n    pass\nwhile x:\n    x -= 1\nelse:\n    y = 2\n");
  EXPECT_EQ(Reprint("if a:\n  pass\nelif b:\n  pass\nelse:\n  if c:\n    pass\n  d\n"),
            "if a:\n    pass\nelif b:\n    pass\nelse:\n    if c:\n        pass\n    d\n");
  EXPECT_EQ(Reprint("with tf.name_scope('s') as s, a:\n  x = (1, 2)\n"),
            "with tf.name_scope('s') as s, a:\n    x = 1, 2\n");
  EXPECT_EQ(Reprint("import tensorflow.compat.v2 as tf, numpy as np\nfrom a.b import (c as d,\n    e)\nglobal g, h\n"),
            "import tensorflow.compat.v2 as tf, numpy as np\nfrom a.b import c as d, e\nglobal g, h\n");
  EXPECT_EQ(Reprint("@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])\n"
                    "@functools.lru_cache()\n"
                    "def f(a, b: int=2, *args, c, d=4, **kw) -> tf.Tensor:\n"
                    "  def g():\n    nonlocal a\n    return a, *args\n"
                    "  return g()\n"),
            "@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])\n"
            "@functools.lru_cache()\n"
            "def f(a, b: int = 2, *args, c, d=4, **kw) -> tf.Tensor:\n"
            "    def g():\n        nonlocal a\n        return a, *args\n"
            "    return g()\n");
  EXPECT_EQ(Reprint("class Model(object):\n"
                    "  v = None\n"
                    "  def __init__(self):\n"
                    "    self.v = None\n"
                    "  def __call__(self, x):\n"
                    "    if self.v is None:\n"
                    "      self.v = tf.Variable(x)\n"
                    "    return self.v\n"
                    "class Empty: pass\n"),
            "class Model(object):\n"
            "    v = None\n"
            "\n"
            "    def __init__(self):\n"
            "        self.v = None\n"
            "\n"
            "    def __call__(self, x):\n"
            "        if self.v is None:\n"
            "            self.v = tf.Variable(x)\n"
            "        return self.v\n"
            "\n"
            "class Empty:\n"
            "    pass\n");
  EXPECT_EQ(Reprint("try:\n  x = d[k]\nexcept (KeyError, IndexError) as e:\n  raise ValueError(e) from e\n"
                    "except:\n  raise\nelse: y = 1\nfinally:\n  z = 2\ntry: pass\nfinally: pass\n"),
            "try:\n    x = d[k]\nexcept (KeyError, IndexError) as e:\n    raise ValueError(e) from e\n"
            "except:\n    raise\nelse:\n    y = 1\nfinally:\n    z = 2\ntry:\n    pass\nfinally:\n    pass\n");
  EXPECT_EQ(Reprint("x: int = 5\n'doc'\n"), "x = 5\n'doc'\n");
  // Multi-line docstrings stay triple-quoted; quotes and backslashes survive.
  constexpr char kDoc[] = R"py(def f():
    """Sums.

    Says "hi" \\ \""""
    return 1
)py";
  EXPECT_EQ(Reprint(kDoc), kDoc);
  EXPECT_EQ(Reprint("x = '''a\nb'''\n'''a\\x01\nb'''\n'''q\"\"\"\nq'''\n"),
            "x = 'a\\nb'\n'a\\x01\\nb'\n\"\"\"q\\\"\"\"\nq\"\"\"\n");
  EXPECT_EQ(Reprint("if a:\r\n  b = 1\r\n"), "if a:\n    b = 1\n");
  EXPECT_EQ(Reprint(""), "");
  EXPECT_EQ(Reprint("# only a comment\n"), "");
}

TEST(PrinterTest, PrintStmtIndents) {
  auto m = ParseModule(File("if a:\n  b = 1\n"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintStmt(*m->body[0], 2), "        if a:\n            b = 1\n");
}

// Trees built by passes (not by the parser) print with the parentheses they need.
TEST(PrinterTest, ConstructedTrees) {
  using namespace ast;  // NOLINT
  auto name = [](const char* id) { return std::make_shared<const Name>(id, Ctx::kLoad); };
  auto num = [](double v) { return std::make_shared<const Constant>(v); };
  auto bin = [](ExprPtr l, BinOpKind op, ExprPtr r) { return std::make_shared<const BinOp>(l, op, r); };
  EXPECT_EQ(PrintExpr(*bin(num(-1.5), BinOpKind::kPow, num(2))), "(-1.5) ** 2.0");
  EXPECT_EQ(PrintExpr(*bin(name("a"), BinOpKind::kSub, bin(name("b"), BinOpKind::kSub, name("c")))), "a - (b - c)");
  EXPECT_EQ(PrintExpr(*bin(bin(name("a"), BinOpKind::kPow, name("b")), BinOpKind::kPow, name("c"))), "(a ** b) ** c");
  EXPECT_EQ(PrintExpr(*num(-std::numeric_limits<double>::infinity())), "-float('inf')");
  EXPECT_EQ(PrintExpr(*num(std::nan(""))), "float('nan')");
  EXPECT_EQ(PrintExpr(*num(-0.0)), "-0.0");
  EXPECT_EQ(PrintExpr(*std::make_shared<const Attribute>(std::make_shared<const Constant>(int64_t{-1}), "real",
                                                         Ctx::kLoad)),
            "(-1).real");
  EXPECT_EQ(PrintExpr(*std::make_shared<const UnaryOp>(UnaryOpKind::kUSub, std::make_shared<const Constant>(int64_t{-1}))),
            "- -1");
  EXPECT_EQ(PrintStmt(FunctionDef("f", Arguments{}, Body{}, {}, nullptr)), "def f():\n    pass\n");
  std::vector<ExprPtr> parts = {std::make_shared<const Constant>(std::string("x: ")),
                                std::make_shared<const FormattedValue>(name("x"), 0, nullptr)};
  EXPECT_EQ(PrintExpr(JoinedStr(parts)), "f'x: {x}'");
}

// ---- round trip over a corpus

const std::vector<std::string>& Corpus() {
  static const auto* corpus = new std::vector<std::string>{
      kHuberLoss,
      kCollatz,
      kAssert,
      kStack,
      "x = not a == b\ny = a or b and c\nz = -2 ** 2\nw = a[1:2, ::3, ...]\nv = x[None, :]\n",
      "f = lambda x, *a, k=1, **kw: x\n",
      "r = [[y * 2 for y in row if y] for row in m if len(row) > 1 if row[0]]\n",
      "d = {'a': 1, **m, 'b': {k: v for k, v in e.items() if v is not None}}\n",
      "s = f'{x!r:>{w}}' + f\"{d['k']:.{p}f}\" + f'{{}}{a}{b!s}{c!a}'\n",
      "ok = a < b < c and a is not b and a not in b\n",
      "y = x @ w + b\nz = tf.matmul(x, w) @ v\n",
      "print(a if b else c, key=d if e else f, *rest, **opts)\n",
      "@tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float32)], autograph=True)\n"
      "def g(x):\n  return x\n",
      "class State:\n  def __init__(self):\n    self.v = None\n  def get(self):\n    if self.v is None:\n"
      "      self.v = tf.Variable(1.0)\n    return self.v\n",
      "import tensorflow as tf\nimport numpy as np\nfrom tensorflow import keras as k\n"
      "@tf.function(autograph=True)\ndef myadd(a,b):\n    for i in tf.range(3):\n        tf.print(i)\n"
      "    print(\"tracing\")\n    return a + b\n",
      "def dynamic_rnn(rnn_step, input_data, initial_state):\n"
      "  # [batch, time, features] -> [time, batch, features]\n"
      "  input_data = tf.transpose(input_data, [1, 0, 2])\n"
      "  max_seq_len = input_data.shape[0]\n"
      "  states = tf.TensorArray(tf.float32, size=max_seq_len)\n"
      "  state = initial_state\n"
      "  for i in tf.range(max_seq_len):\n"
      "    state = rnn_step(input_data[i], state)\n"
      "    states = states.write(i, state)\n"
      "  return tf.transpose(states.stack(), [1, 0, 2])\n",
      "def concat_with_padding():\n  x = tf.zeros([5, 10])\n  for i in tf.range(5):\n"
      "    x = tf.concat([x[:i], tf.ones([1, 10]), tf.zeros([4-i, 10])], axis=0)\n"
      "    x.set_shape([5, 10])\n  return x\n",
      "cond = lambda i: i<tf.constant(3)\nbody = lambda i: (i + 1,)\n",
      "def f(x):\n  while x > 0:\n    x -= 1\n    if x == 5: break\n    elif x == 7: continue\n  else:\n"
      "    x = -x\n  for a, (b, c) in z:\n    del a\n  with tf.name_scope('n'), tf.device('/cpu:0') as d:\n"
      "    pass\n  global q\n  return x,\n",
      "x = (1, (2, 3), [4, (5,)], ())\ny = -(-x) + +x - ~x\nz = (a, b) = c, d\n",
      "v = 1e-05 + 0.1 + 1e+16 + 123.456 + 1e300 * 1e300 + 0x7fffffffffffffff + 0o17 + 0b1\n",
      "s = 'a\\n\\t\\x00\\u00e9\\U0001F600\\\\\\'\"' + b'\\x00\\xff\"\\'' + r'\\d' + u'x'\n",
      "t = '''multi\nline''' \"\"\"and\"\"\" 'adjacent'\n",
      "def k(a, b=1, *, c, d=2, **e):\n  return a(b)(c)[d].e\n",
      "x = a if b else c if d else e\ny = (a if b else c) if d else e\nz = lambda: (yield_)\n",
      "x = [i for i in range(10) if i % 2 if i % 3]\ny = {i: i ** 2 for i in x}\n",
      "a[b][c] = d.e.f = g\na.b += 1\na[1:2] *= 3\n",
      "x = 2 ** -1 ** 2\ny = (-1) ** 0.5\nz = not -x\nw = -(not x)\n",
      "print('%s: %d' % (name, value))\n",
      "if (a and\n    b):\n  pass\n",
      "def doc():\n  '''Doc with \\\\ and \"quotes\"\n  more\"'''\n  return 1\n",
  };
  return *corpus;
}

// Mutated sources never crash the parser, and whatever parses round-trips.
TEST(PrinterTest, MutationsParseOrFailCleanly) {
  std::mt19937 rng(1234);
  const std::string alphabet = "()[]{}:,.=+-*/%@<>!~'\" \n\tabcxyz0123456789_#\\fbrif";
  int parsed = 0;
  for (const std::string& src : Corpus()) {
    for (int round = 0; round < 150; ++round) {
      std::string s = src;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits && !s.empty(); ++e) {
        const size_t at = rng() % s.size();
        switch (rng() % 3) {
          case 0: s.erase(at, 1); break;
          case 1: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
          default: s[at] = alphabet[rng() % alphabet.size()]; break;
        }
      }
      auto m = ParseModule(File(s));
      if (!m.ok()) {
        EXPECT_TRUE(errors::PythonClassOf(m.status()).has_value()) << s << "\n" << m.status();
        EXPECT_EQ(errors::LocationsOf(m.status()).size(), 1u) << s << "\n" << m.status();
        continue;
      }
      ++parsed;
      const std::string once = PrintModule(*m);
      EXPECT_EQ(Reprint(once), once) << "source:\n" << s;
    }
  }
  EXPECT_GT(parsed, 100);
}

TEST(PrinterTest, RoundTrip) {
  for (const std::string& src : Corpus()) {
    const std::string once = Reprint(src);
    ASSERT_EQ(once.rfind("ERROR", 0), std::string::npos) << src << "\n" << once;
    EXPECT_EQ(Reprint(once), once) << "source:\n" << src;
  }
}

}  // namespace
}  // namespace graphd::compiler
