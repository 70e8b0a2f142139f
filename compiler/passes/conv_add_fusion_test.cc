// Golden tests for the conv + residual Add fusion.
#include "compiler/passes/conv_add_fusion.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::RunPass;
using test::Text;

TEST(ConvAddFusionTest, FusesTheResidualAddIntoItsConv) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 4, 4}))
                          .Arg("w", DType::kFloat32, Dims({2, 2, 1, 1}))
                          .Arg("b", DType::kFloat32, Dims({2}))
                          .Node("c1", "ConvND", {"x", "w", "b"})
                          .Node("a1", "Add", {"c1", "x"})   // conv first
                          .Node("r1", "Relu", {"a1"})
                          .Node("c2", "ConvND", {"r1", "w"})
                          .Node("a2", "Add", {"r1", "c2"})  // conv second
                          .Return({"a2"});
  ConvAddFusion pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,2,4,4]]() : float32[1,2,4,4]\n"
            "w = Arg[dtype=float32, shape=[2,2,1,1]]() : float32[2,2,1,1]\n"
            "b = Arg[dtype=float32, shape=[2]]() : float32[2]\n"
            "c1_conv_add_fusion = ConvND[residual=true](x, w, b, x) : float32[1,2,4,4]\n"
            "r1 = Relu(c1_conv_add_fusion) : float32[1,2,4,4]\n"
            "c2_conv_add_fusion = ConvND[residual=true](r1, w, r1) : float32[1,2,4,4]\n"
            "return c2_conv_add_fusion\n");
  EXPECT_FALSE(RunPass(pass, body));
}

TEST(ConvAddFusionTest, ChainsOfResidualBlocksReadAnEarlierFusedConv) {
  // EfficientNet's and MobileNetV3's `block(x) + x`: a2's second operand becomes the
  // conv fused for a1 during the same run, a node the pass's use counts predate.
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 4, 4}))
                          .Arg("w", DType::kFloat32, Dims({2, 2, 1, 1}))
                          .Node("c1", "ConvND", {"x", "w"})
                          .Node("a1", "Add", {"c1", "x"})
                          .Node("c2", "ConvND", {"a1", "w"})
                          .Node("a2", "Add", {"c2", "a1"})
                          .Return({"a2"});
  EXPECT_TRUE(RunPass(ConvAddFusion(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,2,4,4]]() : float32[1,2,4,4]\n"
            "w = Arg[dtype=float32, shape=[2,2,1,1]]() : float32[2,2,1,1]\n"
            "c1_conv_add_fusion = ConvND[residual=true](x, w, x) : float32[1,2,4,4]\n"
            "c2_conv_add_fusion = ConvND[residual=true](c1_conv_add_fusion, w, c1_conv_add_fusion) : "
            "float32[1,2,4,4]\n"
            "return c2_conv_add_fusion\n");
}

TEST(ConvAddFusionTest, LeavesSharedActivatedBroadcastAndUnknownShapes) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 4, 4}))
                          .Arg("u", DType::kFloat32, Dims({-1, 2, 4, 4}))
                          .Arg("w", DType::kFloat32, Dims({2, 2, 1, 1}))
                          .Arg("s", DType::kFloat32, Dims({2, 1, 1}))
                          .Node("shared", "ConvND", {"x", "w"})
                          .Node("a1", "Add", {"shared", "x"})
                          .Node("n1", "Neg", {"shared"})  // a second use
                          .Node("act", "ConvND", {"x", "w"}, {{"activation", std::string("Relu")}})
                          .Node("a2", "Add", {"act", "x"})
                          .Node("bc", "ConvND", {"x", "w"})
                          .Node("a3", "Add", {"bc", "s"})  // broadcasts
                          .Node("unk", "ConvND", {"u", "w"})
                          .Node("a4", "Add", {"unk", "u"})  // batch unknown
                          .Return({"a1", "n1", "a2", "a3", "a4"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(ConvAddFusion(), body));
  EXPECT_EQ(Text(body), before);
}

}  // namespace
}  // namespace graphd::compiler::passes
