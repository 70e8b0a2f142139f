// Every parser error: its status code, Python class, message and location.
#include <string>
#include <vector>

#include "compiler/frontend/parser.h"
#include "compiler/frontend/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler {
namespace {

using testing::ExpectedError;
using testing::ExpectError;
using testing::File;
using Code = absl::StatusCode;

struct Case {
  std::string source;
  ExpectedError want;
};

void Check(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    ExpectError(ParseModule(File(c.source)).status(), c.want);
  }
}

ExpectedError Syntax(std::string message, int line, int column) {
  return {Code::kInvalidArgument, "SyntaxError", std::move(message), line, column};
}
ExpectedError Indentation(std::string message, int line, int column) {
  return {Code::kInvalidArgument, "IndentationError", std::move(message), line, column};
}
ExpectedError Unsupported(std::string message, int line, int column) {
  return {Code::kUnimplemented, "NotImplementedError", std::move(message), line, column};
}

TEST(ParseErrorsTest, Grammar) {
  Check({
      {"x = \n", Syntax("invalid syntax", 1, 4)},
      {"x = 1 +\n", Syntax("invalid syntax", 1, 8)},
      {"a b\n", Syntax("invalid syntax", 1, 3)},
      {"print 'hello'\n", Syntax("invalid syntax", 1, 7)},
      {"x = a.if\n", Syntax("invalid syntax", 1, 7)},
      {"if x\n  pass\n", Syntax("expected ':'", 1, 5)},
      {"def f(x)\n  pass\n", Syntax("expected ':'", 1, 9)},
      {"for x in y\n  pass\n", Syntax("expected ':'", 1, 11)},
      {"for x y:\n  pass\n", Syntax("expected 'in'", 1, 7)},
      {"x = f(a b)\n", Syntax("expected ')'", 1, 9)},
      {"x = a if b\n", Syntax("expected 'else' after 'if' expression", 1, 11)},
      {"x = 'a' b'b'\n", Syntax("cannot mix bytes and nonbytes literals", 1, 9)},
      {"x = *a\n", Syntax("can't use starred expression here", 1, 5)},
      {"x = (*a)\n", Syntax("cannot use starred expression here", 1, 6)},
  });
}

TEST(ParseErrorsTest, AssignmentTargets) {
  Check({
      {"f() = 1\n", Syntax("cannot assign to function call", 1, 1)},
      {"x = f() = 1\n", Syntax("cannot assign to function call", 1, 5)},
      {"1 = x\n", Syntax("cannot assign to literal", 1, 1)},
      {"a + b = c\n", Syntax("cannot assign to expression", 1, 1)},
      {"None = 1\n", Syntax("cannot assign to None", 1, 1)},
      {"a, b < c = d\n", Syntax("cannot assign to comparison", 1, 4)},
      {"for f() in x: pass\n", Syntax("cannot assign to function call", 1, 5)},
      {"[x for 1 in y]\n", Syntax("cannot assign to literal", 1, 8)},
      {"with a as b(): pass\n", Syntax("cannot assign to function call", 1, 11)},
      {"del f()\n", Syntax("cannot delete function call", 1, 5)},
      {"del *a\n", Syntax("cannot delete starred", 1, 5)},
      {"(a, b) += 1\n", Syntax("'tuple' is an illegal expression for augmented assignment", 1, 1)},
      {"(a, b): int = 1\n", Syntax("only single target (not tuple) can be annotated", 1, 1)},
  });
}

TEST(ParseErrorsTest, Arguments) {
  Check({
      {"f(a=1, b)\n", Syntax("positional argument follows keyword argument", 1, 8)},
      {"f(**k, a)\n", Syntax("positional argument follows keyword argument unpacking", 1, 8)},
      {"f(**k, *a)\n", Syntax("iterable argument unpacking follows keyword argument unpacking", 1, 8)},
      {"f(a=1, a=2)\n", Syntax("keyword argument repeated: a", 1, 8)},
      {"f(a.b=1)\n", Syntax("expression cannot contain assignment", 1, 3)},
      {"f(x for x in y, 1)\n", Syntax("Generator expression must be parenthesized", 1, 3)},
      {"def f(a=1, b): pass\n", Syntax("non-default argument follows default argument", 1, 12)},
      {"def f(a, a): pass\n", Syntax("duplicate argument 'a' in function definition", 1, 10)},
      {"g = lambda a, *, b, a: 0\n", Syntax("duplicate argument 'a' in function definition", 1, 21)},
      {"def f(*): pass\n", Syntax("named arguments must follow bare *", 1, 7)},
      {"def f(*a, *b): pass\n", Syntax("* argument may appear only once", 1, 11)},
      {"def f(**k, a): pass\n", Syntax("arguments cannot follow var-keyword argument", 1, 12)},
  });
}

TEST(ParseErrorsTest, Placement) {
  Check({
      {"return 1\n", Syntax("'return' outside function", 1, 1)},
      {"class C:\n  return 1\n", Syntax("'return' outside function", 2, 3)},
      {"break\n", Syntax("'break' outside loop", 1, 1)},
      {"def f():\n  continue\n", Syntax("'continue' not properly in loop", 2, 3)},
      {"while x:\n  def f():\n    break\n", Syntax("'break' outside loop", 3, 5)},
      {"nonlocal x\n", Syntax("nonlocal declaration not allowed at module level", 1, 1)},
  });
}

TEST(ParseErrorsTest, FStrings) {
  Check({
      {"f'{}'\n", Syntax("f-string: empty expression not allowed", 1, 3)},
      {"f'{x!z}'\n", Syntax("f-string: invalid conversion character", 1, 5)},
      {"f'}'\n", Syntax("f-string: single '}' is not allowed", 1, 3)},
      {"f'{x'\n", Syntax("f-string: expecting '}'", 1, 3)},
      {"f'{a\\n}'\n", Syntax("f-string expression part cannot include a backslash", 1, 5)},
      {"f'{a#}'\n", Syntax("f-string expression part cannot include '#'", 1, 5)},
      {"f'{a:{b:{c}}}'\n", Syntax("f-string: expressions nested too deeply", 1, 9)},
      {"x = 1\ny = f'{a +}'\n", Syntax("invalid syntax", 2, 11)},
  });
}

TEST(ParseErrorsTest, Indentation) {
  Check({
      {"  x = 1\n", Indentation("unexpected indent", 1, 3)},
      {"x = 1\n    y = 2\n", Indentation("unexpected indent", 2, 5)},
      {"if a:\n  x\n    y\n", Indentation("unexpected indent", 3, 5)},
      {"if x:\npass\n", Indentation("expected an indented block after 'if' statement on line 1", 2, 1)},
      {"def f():\n\n# c\n", Indentation("expected an indented block after function definition on line 1", 3, 4)},
      {"while x:\nx = 1\n", Indentation("expected an indented block after 'while' statement on line 1", 2, 1)},
      {"class C:\n\nx = 1\n", Indentation("expected an indented block after class definition on line 1", 3, 1)},
      {"if a:\n  pass\nelse:\nb\n", Indentation("expected an indented block after 'else' statement on line 3", 4, 1)},
      {"for a in b:\n  for c in d:\n  pass\n", Indentation("expected an indented block after 'for' statement on line 2", 3, 3)},
  });
}

TEST(ParseErrorsTest, Unsupported) {
  Check({
      {"try:\n  x\nexcept* E:\n  pass\n", Unsupported("'except*' clauses are not supported by graphd", 3, 7)},
      {"async def f(): pass\n", Unsupported("'async def' functions are not supported", 1, 1)},
      {"def f():\n  async for x in y: pass\n", Unsupported("'async for' loops are not supported", 2, 3)},
      {"def f():\n  await g()\n", Unsupported("'await' expressions are not supported", 2, 3)},
      {"def f():\n  yield 1\n", Unsupported("'yield' expressions are not supported", 2, 3)},
      {"def f():\n  x = yield\n", Unsupported("'yield' expressions are not supported", 2, 7)},
      {"s = {1, 2}\n", Unsupported("set literals are not supported by graphd", 1, 5)},
      {"s = {x for x in y}\n", Unsupported("set comprehensions are not supported by graphd", 1, 5)},
      {"if (n := 10) > 5: pass\n", Unsupported("assignment expressions (':=') are not supported", 1, 7)},
      {"x = [y := 1]\n", Unsupported("assignment expressions (':=') are not supported", 1, 8)},
      {"match x:\n  case 1:\n    pass\n", Unsupported("'match' statements are not supported by graphd", 1, 1)},
      {"from m import *\n", Unsupported("star imports ('from m import *') are not supported", 1, 15)},
      {"from . import x\n", Unsupported("relative imports are not supported", 1, 6)},
      {"@dec\nx = lambda: 1\n", Unsupported("decorators on anything but 'def' and 'class' (such as lambdas)", 2, 1)},
      {"a, *b = c\n", Unsupported("starred assignment targets are not supported by graphd", 1, 4)},
      {"for *a, b in c: pass\n", Unsupported("starred assignment targets are not supported", 1, 5)},
      {"x = (i for i in y)\n", Unsupported("generator expressions are not supported", 1, 5)},
      {"def f(a, /, b): pass\n", Unsupported("positional-only parameters ('/') are not supported", 1, 10)},
      {"x = [a async for a in b]\n", Unsupported("asynchronous comprehensions are not supported", 1, 8)},
      {"class C(metaclass=M): pass\n", Unsupported("class keyword arguments (such as metaclass=)", 1, 9)},
      {"x: int\n", Unsupported("variable annotations without a value are not supported", 1, 1)},
  });
}

TEST(ParseErrorsTest, MalformedTry) {
  Check({
      {"try:\n  x\n", Syntax("expected 'except' or 'finally' block", 2, 4)},
      {"try:\n  x\nexcept:\n  pass\nexcept E:\n  pass\n", Syntax("default 'except:' must be last", 5, 1)},
      {"try:\n  x\nelse:\n  pass\n", Syntax("invalid syntax: 'else' needs an 'except' before it", 3, 1)},
      {"try:\n  x\nexcept E as:\n  pass\n", Syntax("invalid syntax", 3, 12)},
  });
}

TEST(ParseErrorsTest, MatchIsStillAName) {
  EXPECT_TRUE(ParseModule(File("match = re.match(p, s)\nmatch(x)\nmatch.group(1)\nprint(match)\n")).ok());
}

TEST(ParseErrorsTest, ExpressionEntryPoint) {
  ExpectError(ParseExpression(File("a +")).status(), Syntax("invalid syntax", 1, 4));
  ExpectError(ParseExpression(File("a b")).status(), Syntax("invalid syntax", 1, 3));
  ExpectError(ParseExpression(File("(x for x in y)")).status(), Unsupported("generator expressions", 1, 1));
}

TEST(ParseErrorsTest, RendersLikeATraceback) {
  auto file = File("def f(x):\n    foo(x) = 1\n");
  Status s = ParseModule(file).status();
  ExpectError(s, Syntax("cannot assign to function call", 2, 5));
  auto locations = errors::LocationsOf(s);
  ASSERT_EQ(locations.size(), 1u);
  EXPECT_EQ(locations[0].source_line, "    foo(x) = 1");
  // The location's line and column, with the call's width, render as a traceback entry.
  const int begin = file->num_lines() > 1 ? static_cast<int>(file->text().find('\n')) + locations[0].column : 0;
  EXPECT_EQ(RenderLocation(SourceRange{file, begin, begin + 6}),
            "  File \"m.py\", line 2\n"
            "        foo(x) = 1\n"
            "        ^~~~~~\n");
}

}  // namespace
}  // namespace graphd::compiler
