// Golden tests for the GELU fusion.
#include "compiler/passes/gelu_fusion.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::Filled;
using test::RunPass;
using test::Text;

// x [?, 4] and the constants of the pattern; `root2` the divisor.
BodyBuilder Start(float root2 = 1.41421354f) {
  BodyBuilder b;
  b.Arg("x", DType::kFloat32, Dims({-1, 4})).Const("root2", root2).Const("one", 1.0f).Const("half", 0.5f);
  return b;
}

// Mul(Mul(x, Add(Erf(Div(x, divisor)), plus)), half), as torch exports nn.GELU(), ending
// at node "out".
BodyBuilder& TorchGelu(BodyBuilder& b, const char* divisor = "root2", const char* plus = "one",
                       const char* half = "half") {
  return b.Node("div", "Div", {"x", divisor})
      .Node("erf", "Erf", {"div"})
      .Node("plus", "Add", {"erf", plus})
      .Node("mul", "Mul", {"x", "plus"})
      .Node("out", "Mul", {"mul", half});
}

TEST(GeluFusionTest, TorchsExportBecomesOneGelu) {
  BodyBuilder b = Start();
  FunctionBody body = TorchGelu(b).Node("neg", "Neg", {"out"}).Return({"neg"});
  GeluFusion pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[?,4]]() : float32[?,4]\n"
            "out_gelu_fusion = Gelu[approximate=false](x) : float32[?,4]\n"
            "neg = Neg(out_gelu_fusion) : float32[?,4]\n"
            "return neg\n");
  EXPECT_FALSE(RunPass(pass, body));
}

TEST(GeluFusionTest, KerasArrangementWithAMultiplyByOneOverRootTwo) {
  // Mul(Mul(0.5, x), Add(1, Erf(Mul(0.70710678, x)))): constants first everywhere.
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Const("inv", 0.70710678f)
                          .Const("one", 1.0f)
                          .Const("half", 0.5f)
                          .Node("scaled", "Mul", {"inv", "x"})
                          .Node("erf", "Erf", {"scaled"})
                          .Node("plus", "Add", {"one", "erf"})
                          .Node("h", "Mul", {"half", "x"})
                          .Node("out", "Mul", {"h", "plus"})
                          .Return({"out"});
  GeluFusion pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_THAT(Text(body), testing::HasSubstr("out_gelu_fusion = Gelu[approximate=false](x) : float32[2,3]\n"));
  EXPECT_THAT(Text(body), testing::Not(testing::HasSubstr("Erf")));
}

TEST(GeluFusionTest, LeavesLookalikesAlone) {
  GeluFusion pass;
  {  // divides by 1.5, not sqrt 2
    BodyBuilder b = Start(1.5f);
    FunctionBody body = TorchGelu(b).Return({"out"});
    EXPECT_FALSE(RunPass(pass, body));
  }
  {  // adds 2
    BodyBuilder b = Start();
    b.Const("two", 2.0f);
    FunctionBody body = TorchGelu(b, "root2", "two").Return({"out"});
    EXPECT_FALSE(RunPass(pass, body));
  }
  {  // halves by a runtime value
    BodyBuilder b = Start();
    b.Arg("h", DType::kFloat32, Dims({}));
    FunctionBody body = TorchGelu(b, "root2", "one", "h").Return({"out"});
    EXPECT_FALSE(RunPass(pass, body));
  }
  {  // the erf is a result too
    BodyBuilder b = Start();
    FunctionBody body = TorchGelu(b).Return({"out", "erf"});
    EXPECT_FALSE(RunPass(pass, body));
  }
  {  // a [1, 1, 1] "scalar" would broadcast x to rank 3
    BodyBuilder b = Start();
    b.Node("h3", "Const", {}, {{"value", Filled(DType::kFloat32, {1, 1, 1}, 0.5f)}});
    FunctionBody body = TorchGelu(b, "root2", "one", "h3").Return({"out"});
    EXPECT_FALSE(RunPass(pass, body));
  }
  {  // erf of something other than x / sqrt 2 times another value
    FunctionBody body = Start()
                            .Arg("y", DType::kFloat32, Dims({-1, 4}))
                            .Node("div", "Div", {"y", "root2"})
                            .Node("erf", "Erf", {"div"})
                            .Node("plus", "Add", {"erf", "one"})
                            .Node("mul", "Mul", {"x", "plus"})
                            .Node("out", "Mul", {"mul", "half"})
                            .Return({"out"});
    EXPECT_FALSE(RunPass(pass, body));
  }
}

TEST(GeluFusionTest, ConstantsReadElsewhereStay) {
  BodyBuilder b = Start();
  FunctionBody body = TorchGelu(b).Node("other", "Add", {"x", "one"}).Return({"out", "other"});
  GeluFusion pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[?,4]]() : float32[?,4]\n"
            "one = Const[value=float32[]{1}]() : float32[]\n"
            "out_gelu_fusion = Gelu[approximate=false](x) : float32[?,4]\n"
            "other = Add(x, one) : float32[?,4]\n"
            "return out_gelu_fusion, other\n");
}

}  // namespace
}  // namespace graphd::compiler::passes
