// Golden tests for the elementwise fusion pass.
#include "compiler/passes/elementwise_fusion.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::RunPass;
using test::Text;

TEST(ElementwiseFusionTest, FusesAChainWithScalarConstantsAndRuntimeScalars) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Arg("y", DType::kFloat32, Dims({2, 3}))
                          .Arg("s", DType::kFloat32, Dims({}))
                          .Const("one", 1.0f)
                          .Const("half", 0.5f)
                          .Node("m", "Mul", {"x", "y"})
                          .Node("a", "Add", {"m", "one"})
                          .Node("t", "Tanh", {"a"})
                          .Node("h", "Mul", {"half", "t"})
                          .Node("d", "Div", {"h", "s"})
                          .Return({"d"});
  EXPECT_TRUE(RunPass(ElementwiseFusion(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[2,3]]() : float32[2,3]\n"
            "y = Arg[dtype=float32, shape=[2,3]]() : float32[2,3]\n"
            "s = Arg[dtype=float32, shape=[]]() : float32[]\n"
            "one = Const[value=float32[]{1}]() : float32[]\n"
            "half = Const[value=float32[]{0.5}]() : float32[]\n"
            "d_elementwise_fusion = FusedElementwise[program=\"Mul x0 x1; Add t0 #1; Tanh t1; Mul #0.5 t2; "
            "Div t3 x2\"](x, y, s) : float32[2,3]\n"
            "return d_elementwise_fusion\n");
  EXPECT_FALSE(RunPass(ElementwiseFusion(), body));
}

TEST(ElementwiseFusionTest, FusesADagWhoseInnerValuesStayInside) {
  // x * sigmoid(x) with x = a + b used twice, then a second use of an outside input.
  FunctionBody body = BodyBuilder()
                          .Arg("a", DType::kFloat32, Dims({-1, 4}))
                          .Node("x", "Neg", {"a"})
                          .Node("sg", "Sigmoid", {"x"})
                          .Node("sw", "Mul", {"x", "sg"})
                          .Node("r", "Relu", {"sw"})
                          .Return({"r"});
  EXPECT_TRUE(RunPass(ElementwiseFusion(), body));
  EXPECT_EQ(Text(body),
            "a = Arg[dtype=float32, shape=[?,4]]() : float32[?,4]\n"
            "r_elementwise_fusion = FusedElementwise[program=\"Neg x0; Sigmoid t0; Mul t0 t1; Relu t2\"](a) : "
            "float32[?,4]\n"
            "return r_elementwise_fusion\n");
}

TEST(ElementwiseFusionTest, StopsAtValuesUsedOutsideAndAtReturnedValues) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({8}))
                          .Node("e", "Exp", {"x"})
                          .Node("l", "Log", {"e"})         // e is also returned: l's group starts here
                          .Node("q", "Sqrt", {"l"})
                          .Node("n", "Neg", {"q"})
                          .Node("sh", "Shape", {"q"})     // q read by a non-elementwise op
                          .Return({"e", "n", "sh"});
  EXPECT_TRUE(RunPass(ElementwiseFusion(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[8]]() : float32[8]\n"
            "e = Exp(x) : float32[8]\n"
            "q_elementwise_fusion = FusedElementwise[program=\"Log x0; Sqrt t0\"](e) : float32[8]\n"
            "n = Neg(q_elementwise_fusion) : float32[8]\n"
            "sh = Shape(q_elementwise_fusion) : int32[1]\n"
            "return e, n, sh\n");
}

TEST(ElementwiseFusionTest, LeavesBroadcastsOtherDTypesSingleOpsAndPinnedNodes) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Arg("col", DType::kFloat32, Dims({2, 1}))
                          .Arg("row", DType::kFloat32, Dims({1, 3}))
                          .Arg("u", DType::kFloat32, Dims({-1, 3}))
                          .Arg("v", DType::kFloat32, Dims({-1, 3}))
                          .Arg("d", DType::kFloat64, Dims({2}))
                          .Arg("i", DType::kInt32, Dims({2}))
                          .Node("b1", "Add", {"col", "row"})    // [2,1] + [1,3]: neither has the output's shape
                          .Node("b2", "Exp", {"b1"})
                          .Node("u1", "Mul", {"u", "v"})        // [?,3] * [?,3] may broadcast
                          .Node("u2", "Tanh", {"u1"})
                          .Node("d1", "Exp", {"d"})             // float64
                          .Node("d2", "Neg", {"d1"})
                          .Node("i1", "Abs", {"i"})             // int32
                          .Node("i2", "Neg", {"i1"})
                          .Node("one", "Relu", {"x"})           // a single op
                          .Node("p1", "Exp", {"x"})
                          .Node("p2", "Neg", {"p1", "^one"})    // pinned by a control input
                          .Const("k1", 1.0f)
                          .Const("k2", 2.0f)
                          .Node("kk", "Add", {"k1", "k2"})      // constants only: for folding
                          .Node("kn", "Neg", {"kk"})
                          .Return({"b2", "u2", "d2", "i2", "p2", "kn"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(ElementwiseFusion(), body));
  EXPECT_EQ(Text(body), before);
}

// A batch norm after a concat, and a squeeze-excite scale computed by a fusable node.
FunctionBody ChannelBody() {
  return BodyBuilder()
      .Arg("x", DType::kFloat32, Dims({1, 4, 3, 3}))
      .Arg("mean", DType::kFloat32, Dims({4, 1, 1}))
      .Arg("scale", DType::kFloat32, Dims({1, 4, 1, 1}))
      .Arg("pooled", DType::kFloat32, Dims({1, 4, 1, 1}))
      .Node("c", "Sub", {"x", "mean"})
      .Node("s", "Mul", {"scale", "c"})
      .Node("r", "Relu", {"s"})
      .Node("g", "Sigmoid", {"pooled"})  // taken per channel: stays out of r's group
      .Node("e", "Mul", {"r", "g"})
      .Node("o", "Exp", {"e"})
      .Return({"o"});
}

TEST(ElementwiseFusionTest, TakesOperandsBroadcastPerChannelAsInputs) {
  FunctionBody body = ChannelBody();
  EXPECT_TRUE(RunPass(ElementwiseFusion(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,4,3,3]]() : float32[1,4,3,3]\n"
            "mean = Arg[dtype=float32, shape=[4,1,1]]() : float32[4,1,1]\n"
            "scale = Arg[dtype=float32, shape=[1,4,1,1]]() : float32[1,4,1,1]\n"
            "pooled = Arg[dtype=float32, shape=[1,4,1,1]]() : float32[1,4,1,1]\n"
            "g = Sigmoid(pooled) : float32[1,4,1,1]\n"
            "o_elementwise_fusion = FusedElementwise[program=\"Sub x0 x1; Mul x2 t0; Relu t1; Mul t2 x3; "
            "Exp t3\"](x, mean, scale, g) : float32[1,4,3,3]\n"
            "return o_elementwise_fusion\n");
}

TEST(ElementwiseFusionTest, WithoutChannelOperandsLeavesPerChannelBroadcasts) {
  FunctionBody body = ChannelBody();
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(ElementwiseFusion(/*channel_operands=*/false), body));  // no two fusable neighbours
  EXPECT_EQ(Text(body), before);
}

TEST(ElementwiseFusionTest, SplitsLongChainsIntoGroupsOfAtMostMaxInstructions) {
  BodyBuilder b;
  b.Arg("x", DType::kFloat32, Dims({4}));
  std::string prev = "x";
  for (int i = 0; i < 40; ++i) {
    const std::string name = absl::StrCat("n", i);
    b.Node(name, i % 2 == 0 ? "Neg" : "Abs", {prev});
    prev = name;
  }
  FunctionBody body = b.Return({prev});
  EXPECT_TRUE(RunPass(ElementwiseFusion(), body));
  const std::string text = Text(body);
  // The last 32 nodes form one group, the first 8 another.
  EXPECT_THAT(text, ::testing::HasSubstr("n7_elementwise_fusion = FusedElementwise[program=\"Neg x0; Abs t0; Neg t1; "
                                         "Abs t2; Neg t3; Abs t4; Neg t5; Abs t6\"](x)"));
  EXPECT_THAT(text, ::testing::HasSubstr("n39_elementwise_fusion = FusedElementwise[program=\"Neg x0; Abs t0;"));
  EXPECT_THAT(text, ::testing::HasSubstr("; Abs t30\"](n7_elementwise_fusion)"));
  EXPECT_EQ(body.graph->num_nodes(), 3);
}

}  // namespace
}  // namespace graphd::compiler::passes
