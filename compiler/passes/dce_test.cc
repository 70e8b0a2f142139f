// Golden tests for dead-code elimination.
#include "compiler/passes/dce.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::RunPass;
using test::Text;

TEST(DceTest, RemovesWhatNoResultOrSideEffectNeeds) {
  AttrMap print = {{"template", std::string("{}")}};
  FunctionBody body = BodyBuilder()
                          .Arg("x")
                          .Arg("unused_arg")                    // arguments always stay
                          .Const("c", 2.0f)
                          .Node("dead", "Mul", {"x", "c"})
                          .Node("dead2", "Tanh", {"dead"})
                          .Node("printed", "Neg", {"x"})        // feeds a side effect
                          .Node("p", "PrintV2", {"printed"}, print)
                          .Node("ordered", "Exp", {"x", "^p"})   // has a control input
                          .Node("r", "Add", {"x", "c"})
                          .Return({"r"});
  DeadCodeElimination dce;
  EXPECT_TRUE(RunPass(dce, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[]]() : float32[]\n"
            "unused_arg = Arg[dtype=float32, shape=[]]() : float32[]\n"
            "c = Const[value=float32[]{2}]() : float32[]\n"
            "printed = Neg(x) : float32[]\n"
            "p = PrintV2[template=\"{}\"](printed)\n"
            "ordered = Exp(x, ^p) : float32[]\n"
            "r = Add(x, c) : float32[]\n"
            "return r\n");
  EXPECT_FALSE(RunPass(dce, body));
}

TEST(DceTest, KeepsControlInputsOfKeptNodes) {
  FunctionBody body = BodyBuilder()
                          .Arg("x")
                          .Node("before", "Neg", {"x"})
                          .Node("gate", "NoOp", {"^before"})
                          .Node("r", "Exp", {"x"})
                          .Return({"r"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(DeadCodeElimination(), body));
  EXPECT_EQ(Text(body), before);
}

}  // namespace
}  // namespace graphd::compiler::passes
