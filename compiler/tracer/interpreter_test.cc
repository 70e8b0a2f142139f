// The interpreter running AutoGraph-converted code over Python values: the output
// must be what CPython prints for the same program.
#include "compiler/tracer/interpreter.h"

#include "compiler/autograph/converter.h"
#include "compiler/frontend/parser.h"
#include "compiler/tracer/builtins.h"
#include "compiler/tracer/errors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler::tracer {
namespace {

using ::testing::HasSubstr;

struct RunResult {
  Status status;
  std::string out;
};

RunResult RunModule(const std::string& source, InterpreterLimits limits = {}) {
  auto parsed = ParseModule(std::make_shared<SourceFile>("m.py", source));
  if (!parsed.ok()) return {parsed.status(), ""};
  // The converted module and the interpreter must outlive each other's use here.
  static std::vector<std::shared_ptr<ast::Module>> keep;
  keep.push_back(std::make_shared<ast::Module>(autograph::ConvertModule(*parsed)));
  auto globals = std::make_shared<Namespace>("__main__");
  globals->Set("ag__", Value::Obj(MakeAutographRuntime()));
  Interpreter interp(globals, MakeBuiltins(), limits);
  Status s = interp.ExecModule(*keep.back());
  return {s, interp.out()};
}

std::string Output(const std::string& source) {
  RunResult r = RunModule(source);
  EXPECT_TRUE(r.status.ok()) << r.status;
  return r.out;
}

TEST(InterpreterTest, ConvertedControlFlowOnPythonValues) {
  EXPECT_EQ(Output(R"py(
def collatz(a):
    counter = 0
    while a != 1:
        if a % 2 == 0:
            a = a // 2
        else:
            a = 3 * a + 1
        counter = counter + 1
    return counter

print(collatz(27), collatz(1), collatz(6))

def first_big(xs, limit):
    for i, x in enumerate(xs):
        if x > limit:
            return i
    return -1

print(first_big([1, 5, 9, 12], 8), first_big([1], 8))

def evens(n):
    out = []
    i = 0
    while True:
        i += 1
        if i > n:
            break
        if i % 2:
            continue
        out.append(i)
    return out

print(evens(9))
print((lambda x: 'pos' if x > 0 else 'neg')(-3), 1 < 2 < 3, not [], [] or 'empty', 0 and 1)
)py"),
            "111 0 8\n2 -1\n[2, 4, 6, 8]\nneg True True empty 0\n");
}

TEST(InterpreterTest, ClosuresNonlocalAndClasses) {
  EXPECT_EQ(Output(R"py(
def counter():
    n = 0
    def inc(by=1):
        nonlocal n
        n += by
        return n
    return inc

c = counter()
c(); c(); print(c(10))

class C: pass
obj = C(); obj.v = None
print(obj.v is None)
obj.v = 3
print(obj.v * 2)

class Acc:
    def __init__(self, start):
        self.total = start
    def add(self, x):
        self.total = self.total + x
        return self

print(Acc(1).add(2).add(3).total)
state = []
def fn(x):
    if not state:
        state.append(2.0 * x)
    return state[0] * x
print(fn(1.0), fn(3.0), len(state))
)py"),
            "12\nTrue\n6\n6\n2.0 6.0 1\n");
}

TEST(InterpreterTest, ContainersStringsAndBuiltins) {
  EXPECT_EQ(Output(R"py(
d = {'a': 1, **{'b': 2}}
d['c'] = 3
print(d, list(d.keys()), d.get('z', 0), sorted([3, 1, 2]), sorted('cab', reverse=True))
print([x * x for x in range(5) if x % 2], {k: v for k, v in zip('xy', (1, 2))})
print(min(4, 2, 8), max([1.5, 0.5]), sum(range(4)), abs(-2.5), round(2.5), round(3.5), int('12') + 1)
print(f'{1 + 1} is {"two"!r}', 'a-{}-{}'.format(1, 'b'), ', '.join(['x', 'y']), 'AbC'.lower())
t = (1, 2, 3)
print(t[::-1], t[1:], [0, 1, 2, 3][-2], 'hello'[1:4], isinstance(True, int), isinstance(1.0, (int, str)))
print(0.1 + 0.2, 1e-05, 1e16, 2.0, 7 // -2, -7 % 3, 2 ** 10, 10 / 4)
)py"),
            "{'a': 1, 'b': 2, 'c': 3} ['a', 'b', 'c'] 0 [1, 2, 3] ['c', 'b', 'a']\n"
            "[1, 9] {'x': 1, 'y': 2}\n"
            "2 1.5 6 2.5 2 4 13\n"
            "2 is 'two' a-1-b x, y abc\n"
            "(3, 2, 1) (2, 3) 2 ell True False\n"
            "0.30000000000000004 1e-05 1e+16 2.0 -4 2 1024 2.5\n");
}

TEST(InterpreterTest, ErrorsCarryClassAndUserLocations) {
  RunResult r = RunModule("def f(x):\n    return g(x)\n\ndef g(y):\n    return y + undefined_name\n\nf(1)\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_TRUE(IsPyError(r.status, "NameError")) << r.status;
  EXPECT_THAT(r.status.message(), HasSubstr("name 'undefined_name' is not defined"));
  std::vector<UserLocation> locs = errors::LocationsOf(r.status);
  ASSERT_GE(locs.size(), 3u);
  EXPECT_EQ(locs[0].line, 5);  // innermost first
  EXPECT_EQ(locs[0].source_line, "    return y + undefined_name");
  EXPECT_EQ(locs.back().line, 7);

  RunResult t = RunModule("x = [1, 2]\ny = x + 1\n");
  EXPECT_TRUE(IsPyError(t.status, "TypeError")) << t.status;
  EXPECT_THAT(t.status.message(), HasSubstr("unsupported operand type(s) for +: 'list' and 'int'"));
  EXPECT_EQ(errors::LocationsOf(t.status).at(0).line, 2);

  RunResult a = RunModule("def f(x):\n    assert x != 0, 'Do not pass zero!'\n    return x * x\nf(0)\n");
  EXPECT_TRUE(IsPyError(a.status, "AssertionError")) << a.status;
  EXPECT_EQ(a.status.message(), "Do not pass zero!");

  RunResult u = RunModule("def f(c):\n    if c:\n        x = 1\n    return x\nf(False)\n");
  EXPECT_TRUE(IsPyError(u.status, "UnboundLocalError")) << u.status;
}

TEST(InterpreterTest, SandboxAndBudgets) {
  RunResult imp = RunModule("import os\n");
  EXPECT_TRUE(IsPyError(imp.status, "ImportError")) << imp.status;
  EXPECT_THAT(imp.status.message(), HasSubstr("cannot import 'os'"));
  for (const char* forbidden : {"open('/etc/passwd')", "eval('1')", "exec('x=1')", "__import__('os')"}) {
    RunResult r = RunModule(std::string(forbidden) + "\n");
    EXPECT_TRUE(IsPyError(r.status, "NameError")) << forbidden << ": " << r.status;
  }
  RunResult loop = RunModule("def spin():\n    while True:\n        pass\nspin()\n", {.max_steps = 100000});
  EXPECT_TRUE(IsPyError(loop.status, "RecursionError")) << loop.status;
  RunResult deep = RunModule("def f(n):\n    return f(n + 1)\nf(0)\n", {.max_depth = 50});
  EXPECT_TRUE(IsPyError(deep.status, "RecursionError")) << deep.status;
  EXPECT_THAT(deep.status.message(), HasSubstr("maximum recursion depth"));
}

// Cycles among a module's values are freed when its interpreter goes; what something
// outside still holds (here the test, as a traced function in the cache would) stays
// whole, with everything it reaches.
TEST(InterpreterTest, CyclesAreCollectedWhenTheInterpreterGoes) {
  auto parsed = ParseModule(std::make_shared<SourceFile>("m.py", R"py(
a = []
a.append(a)
d = {}
d['self'] = d
class Node:
    pass
n = Node()
n.me = n
Node.kind = Node
pair = [[], []]
pair[0].append(pair[1])
pair[1].append(pair[0])
def churn():
    for i in range(50):
        x = [i]
        x.append(x)
churn()
kept = [1]
kept.append(kept)
kept.append([kept, (kept, {'k': kept})])
)py"));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::weak_ptr<ListObj> a, pair;
  std::weak_ptr<DictObj> d;
  std::weak_ptr<Object> n, node_class;
  Value kept;
  {
    auto module = std::make_shared<ast::Module>(autograph::ConvertModule(*parsed));
    auto globals = std::make_shared<Namespace>("__main__");
    globals->Set("ag__", Value::Obj(MakeAutographRuntime()));
    Interpreter interp(globals, MakeBuiltins());
    ASSERT_TRUE(interp.ExecModule(*module).ok());
    a = globals->Find("a")->as_list();
    pair = globals->Find("pair")->as_list();
    d = globals->Find("d")->as_dict();
    n = globals->Find("n")->as_object();
    node_class = globals->Find("Node")->as_object();  // Node.kind = Node, and n's class
    kept = *globals->Find("kept");
  }
  EXPECT_TRUE(a.expired());
  EXPECT_TRUE(pair.expired());
  EXPECT_TRUE(d.expired());
  EXPECT_TRUE(n.expired());
  EXPECT_TRUE(node_class.expired());
  ASSERT_TRUE(kept.is(Value::Kind::kList));
  ASSERT_EQ(kept.as_list()->items.size(), 3u);
  EXPECT_TRUE(kept.as_list()->items[1].Is(kept));
  const auto& inner = kept.as_list()->items[2].as_list()->items;
  ASSERT_EQ(inner.size(), 2u);
  EXPECT_EQ(inner[1].as_tuple()[1].as_dict()->items.size(), 1u);  // reached through a tuple: kept
  kept.as_list()->items.clear();  // the test's own cycle: break it
}

TEST(InterpreterTest, CancellationStopsPythonLoops) {
  auto parsed = ParseModule(std::make_shared<SourceFile>("m.py", "while True:\n    pass\n"));
  ASSERT_TRUE(parsed.ok());
  auto globals = std::make_shared<Namespace>("__main__");
  CancellationToken token;
  token.Cancel();
  Interpreter interp(globals, MakeBuiltins(), {}, &token);
  Status s = interp.ExecModule(*parsed);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
}

}  // namespace
}  // namespace graphd::compiler::tracer

namespace graphd::compiler::tracer {
namespace {

TEST(InterpreterTest, IterationBuiltins) {
  EXPECT_EQ(Output(R"py(
xs = [1, 2, 3]
it = iter(xs)
print(next(it), next(it))
print(list(it), next(it, 'done'))
print(any([0, '', 2]), all([1, 0]), any([]), all([]))
print(list(map(lambda a, b: a * b, [1, 2, 3], (4, 5))))
print(list(filter(lambda a: a % 2, range(6))), list(filter(None, [0, 1, ''])))
for v in iter((7, 8)):
    print(v)
)py"),
            "1 2\n[3] done\nTrue False False True\n[4, 10]\n[1, 3, 5] [1]\n7\n8\n");
  RunResult r = RunModule("next(iter([]))\n");
  EXPECT_THAT(r.status.ToString(), HasSubstr("StopIteration"));
}

}  // namespace
}  // namespace graphd::compiler::tracer
