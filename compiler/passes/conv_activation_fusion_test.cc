// Golden tests for the conv + activation fusion.
#include "compiler/passes/conv_activation_fusion.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::RunPass;
using test::Dims;
using test::Text;

TEST(ConvActivationFusionTest, FusesClipAndReluIntoTheirOnlyConv) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 1, 4, 4}))
                          .Arg("w", DType::kFloat32, Dims({1, 1, 3, 3}))
                          .Arg("w1", DType::kFloat32, Dims({1, 1, 1, 1}))
                          .Const("lo", 0.0f)
                          .Const("hi", 6.0f)
                          .Node("c1", "ConvND", {"x", "w"})
                          .Node("mx", "Maximum", {"c1", "lo"})
                          .Node("mn", "Minimum", {"mx", "hi"})
                          .Node("c2", "ConvND", {"mn", "w1"})
                          .Node("r2", "Relu", {"c2"})
                          .Node("out", "Neg", {"r2"})
                          .Return({"out"});
  ConvActivationFusion pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,1,4,4]]() : float32[1,1,4,4]\n"
            "w = Arg[dtype=float32, shape=[1,1,3,3]]() : float32[1,1,3,3]\n"
            "w1 = Arg[dtype=float32, shape=[1,1,1,1]]() : float32[1,1,1,1]\n"
            "lo = Const[value=float32[]{0}]() : float32[]\n"
            "hi = Const[value=float32[]{6}]() : float32[]\n"
            "c1_conv_activation_fusion = ConvND[activation=\"Clip\", clip_max=6, clip_min=0](x, w) : "
            "float32[1,1,2,2]\n"
            "c2_conv_activation_fusion = ConvND[activation=\"Relu\"](c1_conv_activation_fusion, w1) : "
            "float32[1,1,2,2]\n"
            "out = Neg(c2_conv_activation_fusion) : float32[1,1,2,2]\n"
            "return out\n");
  EXPECT_FALSE(RunPass(pass, body));
}

TEST(ConvActivationFusionTest, FusesHardSwishAndSwishWrittenAsGatedMuls) {
  const AttrMap swish{{"alpha", 1.0f / 6}, {"beta", 0.5f}};
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 1, 4, 4}))
                          .Arg("w", DType::kFloat32, Dims({1, 1, 1, 1}))
                          .Node("c1", "ConvND", {"x", "w"})
                          .Node("h1", "HardSigmoid", {"c1"}, swish)
                          .Node("s1", "Mul", {"c1", "h1"})
                          .Node("c2", "ConvND", {"s1", "w"})
                          .Node("h2", "HardSigmoid", {"c2"}, swish)
                          .Node("s2", "Mul", {"h2", "c2"})  // the other operand order
                          .Node("c3", "ConvND", {"s2", "w"})
                          .Node("h3", "HardSigmoid", {"c3"}, {{"alpha", 0.2f}, {"beta", 0.5f}})  // not hard-swish
                          .Node("s3", "Mul", {"c3", "h3"})
                          .Node("c4", "ConvND", {"s3", "w"})
                          .Node("g4", "Sigmoid", {"c4"})
                          .Node("s4", "Mul", {"g4", "c4"})
                          .Node("c5", "ConvND", {"s4", "w"})
                          .Node("g5", "Sigmoid", {"c5"})
                          .Node("s5", "Mul", {"c5", "g5"})
                          .Node("n5", "Neg", {"g5"})  // the gate has another use
                          .Return({"s5", "n5"});
  EXPECT_FALSE(RunPass(ConvActivationFusion(/*gated=*/false), body));
  EXPECT_TRUE(RunPass(ConvActivationFusion(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,1,4,4]]() : float32[1,1,4,4]\n"
            "w = Arg[dtype=float32, shape=[1,1,1,1]]() : float32[1,1,1,1]\n"
            "c1_conv_activation_fusion = ConvND[activation=\"HardSwish\"](x, w) : float32[1,1,4,4]\n"
            "c2_conv_activation_fusion = ConvND[activation=\"HardSwish\"](c1_conv_activation_fusion, w) : "
            "float32[1,1,4,4]\n"
            "c3 = ConvND(c2_conv_activation_fusion, w) : float32[1,1,4,4]\n"
            "h3 = HardSigmoid[alpha=0.2, beta=0.5](c3) : float32[1,1,4,4]\n"
            "s3 = Mul(c3, h3) : float32[1,1,4,4]\n"
            "c4_conv_activation_fusion = ConvND[activation=\"Swish\"](s3, w) : float32[1,1,4,4]\n"
            "c5 = ConvND(c4_conv_activation_fusion, w) : float32[1,1,4,4]\n"
            "g5 = Sigmoid(c5) : float32[1,1,4,4]\n"
            "s5 = Mul(c5, g5) : float32[1,1,4,4]\n"
            "n5 = Neg(g5) : float32[1,1,4,4]\n"
            "return s5, n5\n");
}

TEST(ConvActivationFusionTest, LeavesSharedOrReturnedConvsAndOtherBounds) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 1, 4, 4}))
                          .Arg("w", DType::kFloat32, Dims({1, 1, 1, 1}))
                          .Arg("t", DType::kFloat32, Dims({}))
                          .Node("shared", "ConvND", {"x", "w"})
                          .Node("r1", "Relu", {"shared"})
                          .Node("also", "Neg", {"shared"})          // a second use
                          .Node("returned", "ConvND", {"x", "w"})
                          .Node("r2", "Relu", {"returned"})
                          .Node("c3", "ConvND", {"x", "w"})
                          .Node("m3", "Maximum", {"c3", "t"})       // bound not a constant
                          .Return({"r1", "also", "returned", "r2", "m3"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(ConvActivationFusion(), body));
  EXPECT_EQ(Text(body), before);
}

}  // namespace
}  // namespace graphd::compiler::passes
