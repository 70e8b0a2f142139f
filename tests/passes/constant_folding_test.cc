// Golden tests for constant folding: IR text in (built node by node), IR text out.
#include "compiler/passes/constant_folding.h"

#include "compiler/passes/pass_test_util.h"
#include "executor/cpu/cpu_device.h"
#include "gmock/gmock.h"
#include "server/constant_evaluator.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::RunPass;
using test::Text;

const ConstantEvaluator& Evaluator() {
  static const executor::cpu::CpuDevice* device = new executor::cpu::CpuDevice();
  static const server::ExecutorConstantEvaluator* evaluator = new server::ExecutorConstantEvaluator(*device);
  return *evaluator;
}

TEST(ConstantFoldingTest, FoldsAnExpressionOfConstants) {
  // x * (2.0 + 3.0)
  FunctionBody body = BodyBuilder()
                          .Arg("x")
                          .Const("c2", 2.0f)
                          .Const("c3", 3.0f)
                          .Node("add", "Add", {"c2", "c3"})
                          .Node("mul", "Mul", {"x", "add"})
                          .Return({"mul"});
  ConstantFolding fold(Evaluator());
  EXPECT_TRUE(RunPass(fold, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[]]() : float32[]\n"
            "c2 = Const[value=float32[]{2}]() : float32[]\n"
            "c3 = Const[value=float32[]{3}]() : float32[]\n"
            "add/folded = Const[value=float32[]{5}]() : float32[]\n"
            "mul = Mul(x, add/folded) : float32[]\n"
            "return mul\n");
  // Nothing left to fold.
  EXPECT_FALSE(RunPass(fold, body));
}

TEST(ConstantFoldingTest, FoldsChainsAndResultsInOnePass) {
  // r = (2 + 3) * 4, returned directly; the folded constant keeps the node's range.
  FunctionBody body = BodyBuilder()
                          .Const("c2", int32_t{2})
                          .Const("c3", int32_t{3})
                          .Const("c4", int32_t{4})
                          .Node("add", "Add", {"c2", "c3"})
                          .Node("r", "Mul", {"add", "c4"})
                          .Return({"r", "add"});
  ConstantFolding fold(Evaluator());
  EXPECT_TRUE(RunPass(fold, body));
  EXPECT_EQ(Text(body),
            "c2 = Const[value=int32[]{2}]() : int32[]\n"
            "c3 = Const[value=int32[]{3}]() : int32[]\n"
            "c4 = Const[value=int32[]{4}]() : int32[]\n"
            "add/folded = Const[value=int32[]{5}]() : int32[]\n"
            "r/folded = Const[value=int32[]{20}]() : int32[]\n"
            "return r/folded, add/folded\n");
}

TEST(ConstantFoldingTest, FoldsEveryOutputOfAMultiOutputNode) {
  Tensor v = Tensor::FromVector<float>(Shape({2, 2}), std::vector<float>{1, 2, 3, 4}).value();
  FunctionBody body = BodyBuilder()
                          .Node("v", "Const", {}, {{"value", v}})
                          .Node("u", "Unpack", {"v"}, {{"num", int64_t{2}}})
                          .Node("s", "Add", {"u", "u:1"})
                          .Return({"s"});
  EXPECT_TRUE(RunPass(ConstantFolding(Evaluator()), body));
  EXPECT_EQ(Text(body),
            "v = Const[value=float32[2,2]{1, 2, 3, 4}]() : float32[2,2]\n"
            "u/folded_0 = Const[value=float32[2]{1, 2}]() : float32[2]\n"
            "u/folded_1 = Const[value=float32[2]{3, 4}]() : float32[2]\n"
            "s/folded = Const[value=float32[2]{4, 6}]() : float32[2]\n"
            "return s/folded\n");
}

TEST(ConstantFoldingTest, LeavesPinnedUnusedAndNonConstantNodes) {
  FunctionBody body = BodyBuilder()
                          .Arg("x")
                          .Const("c", 1.0f)
                          .Node("from_arg", "Add", {"x", "c"})            // reads an argument
                          .Node("unused", "Neg", {"c"})                     // nobody reads it
                          .Node("print", "PrintV2", {"c"}, {{"template", std::string("{}")}})  // stateful
                          .Node("after", "Neg", {"c", "^print"})             // has a control input
                          .Node("r", "Add", {"from_arg", "after"})
                          .Return({"r"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(ConstantFolding(Evaluator()), body));
  EXPECT_EQ(Text(body), before);
}

TEST(ConstantFoldingTest, BoundsTheSizeOfFoldedValues) {
  // Fill of 1024x1024 float32 (4 MiB) stays a node; of 2x2, it folds.
  FunctionBody body = BodyBuilder()
                          .Const("one", 1.0f)
                          .Node("big", "Fill", {"one"}, {{"shape", IntList{1024, 1024}}})
                          .Node("small", "Fill", {"one"}, {{"shape", IntList{2, 2}}})
                          .Return({"big", "small"});
  EXPECT_TRUE(RunPass(ConstantFolding(Evaluator()), body));
  EXPECT_EQ(Text(body),
            "one = Const[value=float32[]{1}]() : float32[]\n"
            "big = Fill[shape=[1024, 1024]](one) : float32[1024,1024]\n"
            "small/folded = Const[value=float32[2,2]{1, 1, 1, 1}]() : float32[2,2]\n"
            "return big, small/folded\n");
  // A lower limit keeps the small one too.
  FunctionBody again = BodyBuilder()
                           .Const("one", 1.0f)
                           .Node("small", "Fill", {"one"}, {{"shape", IntList{2, 2}}})
                           .Return({"small"});
  EXPECT_FALSE(RunPass(ConstantFolding(Evaluator(), /*max_output_bytes=*/8), again));
}

TEST(ConstantFoldingTest, LeavesANodeWhoseKernelFails) {
  // Gathering index 5 of a 3-vector fails at run time: the error stays there.
  Tensor params = Tensor::FromVector<float>(Shape({3}), std::vector<float>{1, 2, 3}).value();
  FunctionBody body = BodyBuilder()
                          .Node("p", "Const", {}, {{"value", params}})
                          .Const("i", int32_t{5})
                          .Node("g", "GatherV2", {"p", "i"})
                          .Return({"g"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(ConstantFolding(Evaluator()), body));
  EXPECT_EQ(Text(body), before);
}

TEST(ConstantFoldingTest, FoldsStrings) {
  FunctionBody body = BodyBuilder()
                          .Const("a", std::string("ab"))
                          .Const("b", std::string("cd"))
                          .Node("j", "StringJoin", {"a", "b"})
                          .Return({"j"});
  EXPECT_TRUE(RunPass(ConstantFolding(Evaluator()), body));
  EXPECT_THAT(Text(body), ::testing::HasSubstr("j/folded = Const[value=string[]{\"abcd\"}]() : string[]\n"));
}

}  // namespace
}  // namespace graphd::compiler::passes
