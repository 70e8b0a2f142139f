// Golden tests for the layer normalisation fusion.
#include "compiler/passes/layernorm_fusion.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::Filled;
using test::RunPass;
using test::Text;

// x [2, 4] through the decomposed layer norm, up to `n` (the Div); `axis` of the means.
BodyBuilder Decomposed(AttrValue axis, float eps = 1e-5f) {
  BodyBuilder b;
  b.Arg("x", DType::kFloat32, Dims({-1, 4}))
      .Const("eps", eps)
      .Node("m1", "Mean", {"x"}, {{"axis", axis}, {"keep_dims", true}})
      .Node("d", "Sub", {"x", "m1"})
      .Node("sq", "Square", {"d"})
      .Node("m2", "Mean", {"sq"}, {{"axis", axis}, {"keep_dims", true}})
      .Node("a", "Add", {"m2", "eps"})
      .Node("s", "Sqrt", {"a"})
      .Node("n", "Div", {"d", "s"});
  return b;
}

TEST(LayerNormFusionTest, FusesTheNormAndItsAffineTerms) {
  FunctionBody body = Decomposed(IntList{-1})
                          .Node("g", "Const", {}, {{"value", Filled(DType::kFloat32, {4}, 2.f)}})
                          .Node("b", "Const", {}, {{"value", Filled(DType::kFloat32, {4}, 0.5f)}})
                          .Node("mul", "Mul", {"g", "n"})  // gamma first
                          .Node("add", "Add", {"mul", "b"})
                          .Node("out", "Neg", {"add"})
                          .Return({"out"});
  LayerNormFusion pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[?,4]]() : float32[?,4]\n"
            "g = Const[value=float32[4]{2, 2, 2, 2}]() : float32[4]\n"
            "b = Const[value=float32[4]{0.5, 0.5, 0.5, 0.5}]() : float32[4]\n"
            "add_layernorm_fusion = LayerNormalization[axis=-1, epsilon=1e-05](x, g, b) : "
            "(float32[?,4], float32[?,1], float32[?,1])\n"
            "out = Neg(add_layernorm_fusion) : float32[?,4]\n"
            "return out\n");
  EXPECT_FALSE(RunPass(pass, body));
}

TEST(LayerNormFusionTest, WithoutAffineTermsTheScaleIsOnes) {
  FunctionBody body = Decomposed(int64_t{1}).Return({"n"});
  LayerNormFusion pass;
  EXPECT_TRUE(RunPass(pass, body));
  const std::string text = Text(body);
  EXPECT_THAT(text, testing::HasSubstr("n/ones = Const[value=float32[4]{1, 1, 1, 1}]()"));
  EXPECT_THAT(text, testing::HasSubstr("= LayerNormalization[axis=-1, epsilon=1e-05](x, n/ones)"));
  EXPECT_THAT(text, testing::Not(testing::HasSubstr("Sqrt")));
}

TEST(LayerNormFusionTest, LeavesOtherShapesOfTheComputationAlone) {
  LayerNormFusion pass;
  {  // over the first axis
    FunctionBody body = Decomposed(IntList{0}).Return({"n"});
    EXPECT_FALSE(RunPass(pass, body));
  }
  {  // the centred value is also read elsewhere
    FunctionBody body = Decomposed(IntList{-1}).Node("other", "Neg", {"d"}).Return({"n", "other"});
    EXPECT_FALSE(RunPass(pass, body));
  }
  {  // the variance is a result too
    FunctionBody body = Decomposed(IntList{-1}).Return({"n", "m2"});
    EXPECT_FALSE(RunPass(pass, body));
  }
  {  // a runtime epsilon
    FunctionBody body = BodyBuilder()
                            .Arg("x", DType::kFloat32, Dims({2, 4}))
                            .Arg("eps", DType::kFloat32, Dims({}))
                            .Node("m1", "Mean", {"x"}, {{"axis", IntList{-1}}, {"keep_dims", true}})
                            .Node("d", "Sub", {"x", "m1"})
                            .Node("sq", "Square", {"d"})
                            .Node("m2", "Mean", {"sq"}, {{"axis", IntList{-1}}, {"keep_dims", true}})
                            .Node("a", "Add", {"m2", "eps"})
                            .Node("s", "Sqrt", {"a"})
                            .Node("n", "Div", {"d", "s"})
                            .Return({"n"});
    EXPECT_FALSE(RunPass(pass, body));
  }
}

}  // namespace
}  // namespace graphd::compiler::passes
