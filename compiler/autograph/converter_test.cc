#include "compiler/autograph/converter.h"

#include "compiler/autograph/golden_cases.h"
#include "compiler/frontend/parser.h"
#include "compiler/frontend/printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace graphd::compiler::autograph {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ast::Module Parse(const std::string& source) {
  auto module = ParseModule(std::make_shared<SourceFile>("test.py", source));
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : ast::Module{};
}

const ast::FunctionDef& OnlyFunction(const ast::Module& m) {
  return *m.body.at(0)->As<ast::FunctionDef>();
}

std::string Convert(const std::string& source) {
  ast::Module m = Parse(source);
  return ToCode(*ConvertFunction(OnlyFunction(m)));
}

class GoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, ConvertedCodeMatches) {
  const GoldenCase& c = GetParam();
  std::string code = Convert(c.source);
  EXPECT_EQ(code, c.converted) << "converted code of " << c.name << ":\n" << code;
  // The output is Python: it parses and prints back the same.
  ast::Module reparsed = Parse(code);
  EXPECT_EQ(PrintModule(reparsed), code);
}

INSTANTIATE_TEST_SUITE_P(AutoGraph, GoldenTest, ::testing::ValuesIn(GoldenCases()),
                         [](const auto& info) { return info.param.name; });

// The seed documents' functions all convert into code that parses.
TEST(ConverterTest, SeedFunctionsConvertToValidPython) {
  const char* kSeeds = R"py(
def buggy_while_py_true_tf_break(x):
  while True:
    if tf.equal(x, 0):
      break
    x -= 1
  return x

def dynamic_rnn(rnn_step, input_data, initial_state):
  input_data = tf.transpose(input_data, [1, 0, 2])
  max_seq_len = input_data.shape[0]
  states = tf.TensorArray(tf.float32, size=max_seq_len)
  state = initial_state
  for i in tf.range(max_seq_len):
    state = rnn_step(input_data[i], state)
    states = states.write(i, state)
  return tf.transpose(states.stack(), [1, 0, 2])

def concat_with_padding():
  x = tf.zeros([5, 10])
  for i in tf.range(5):
    x = tf.concat([x[:i], tf.ones([1, 10]), tf.zeros([4-i, 10])], axis=0)
    x.set_shape([5, 10])
  return x

def g(x):
  if obj.v is None:
    obj.v = tf.Variable(1.0)
  return obj.v.assign_add(x)

def fn(x):
  if not state:
    state.append(tf.Variable(2.0 * x))
    state.append(tf.Variable(state[0] * 3.0))
  return state[0] * x * state[1]

def f(n):
  if n >= 0:
    while n < 5:
      n += 1
      print(n)
  return n

def nested(x):
  def helper(y):
    for i in range(3):
      if y > i:
        return y
    return -y
  return helper(x)
)py";
  ast::Module module = Parse(kSeeds);
  ast::Module converted = ConvertModule(module);
  ASSERT_EQ(converted.body.size(), module.body.size());
  for (const auto& s : converted.body) {
    std::string code = ToCode(*s->As<ast::FunctionDef>());
    ast::Module reparsed = Parse(code);
    EXPECT_EQ(PrintModule(reparsed), code);
    EXPECT_THAT(code, Not(HasSubstr("break\n")));
    EXPECT_THAT(code, Not(HasSubstr("continue\n")));
  }
  // The nested helper is converted too: its return inside a loop became flags.
  std::string nested = ToCode(*converted.body.back()->As<ast::FunctionDef>());
  EXPECT_THAT(nested, HasSubstr("def helper(y):\n        do_return = False"));
  EXPECT_THAT(nested, HasSubstr("ag__.for_stmt(range(3), extra_test"));
}

TEST(ConverterTest, PlainStatementsAreUnchanged) {
  EXPECT_EQ(Convert("def f(a, b=2):\n    c = a + b\n    return c * 2\n"),
            "def tf__f(a, b=2):\n    c = a + b\n    return c * 2\n");
}

TEST(ConverterTest, ModuleLevelCodeIsNotConverted) {
  ast::Module m = Parse("x = 1\nif x:\n    y = 2\n\nclass C:\n    def m(self, v):\n        return v if v else 0\n");
  ast::Module c = ConvertModule(m);
  EXPECT_EQ(c.body[1], m.body[1]);  // the module-level if is left alone
  EXPECT_THAT(PrintModule(c), HasSubstr("return ag__.if_exp(v, lambda: v, lambda: 0, 'v')"));
}

TEST(ConverterTest, ConvertedNodesKeepUserSourceRanges) {
  ast::Module m = Parse("def f(x):\n    if x > 0:\n        x = -x\n    return x\n");
  auto converted = ConvertFunction(OnlyFunction(m));
  for (const auto& s : converted->body) {
    ASSERT_TRUE(s->range.valid());
    EXPECT_GE(s->range.line(), 2) << PrintStmt(*s);
  }
}

}  // namespace
}  // namespace graphd::compiler::autograph
