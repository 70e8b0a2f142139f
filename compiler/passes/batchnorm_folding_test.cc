// Golden tests for BatchNorm folding into ConvND / MatMul weights.
#include "compiler/passes/batchnorm_folding.h"

#include <limits>

#include "compiler/passes/conv_activation_fusion.h"
#include "compiler/passes/conv_add_fusion.h"
#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::RunPass;
using test::Text;
using test::Value;

Tensor Floats(std::vector<int64_t> dims, std::vector<float> values) {
  auto t = Tensor::FromVector<float>(Shape(std::move(dims)), values);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// The importer's BatchNormalization after constant folding: ((c - mean) * s) + beta,
// with s = scale / sqrt(var + eps) already one constant.
TEST(BatchNormFoldingTest, FoldsTheImportersBatchNormIntoTheConvAndKeepsTheRelu) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({-1, 2, 3, 3}))
                          .Node("w", "Const", {}, Value(Floats({2, 2, 1, 1}, {1, 2, 3, 4})))
                          .Node("b", "Const", {}, Value(Floats({2}, {1, -1})))
                          .Node("mean", "Const", {}, Value(Floats({2, 1, 1}, {0.5, 2})))
                          .Node("s", "Const", {}, Value(Floats({2, 1, 1}, {2, 0.25})))
                          .Node("beta", "Const", {}, Value(Floats({1, 2, 1, 1}, {10, 20})))
                          .Node("c", "ConvND", {"x", "w", "b"})
                          .Node("centered", "Sub", {"c", "mean"})
                          .Node("scaled", "Mul", {"centered", "s"})
                          .Node("bn", "Add", {"beta", "scaled"})
                          .Node("r", "Relu", {"bn"})
                          .Return({"r"});
  BatchNormFolding pass;
  EXPECT_TRUE(RunPass(pass, body));
  // weights: rows * {2, 0.25}; bias: (b - mean) * s + beta = {(1-0.5)*2+10, (-1-2)/4+20}.
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[?,2,3,3]]() : float32[?,2,3,3]\n"
            "c_batchnorm_folding/weights = Const[value=float32[2,2,1,1]{2, 4, 0.75, 1}]() : float32[2,2,1,1]\n"
            "c_batchnorm_folding/bias = Const[value=float32[2]{11, 19.25}]() : float32[2]\n"
            "c_batchnorm_folding = ConvND(x, c_batchnorm_folding/weights, c_batchnorm_folding/bias) : "
            "float32[?,2,3,3]\n"
            "r = Relu(c_batchnorm_folding) : float32[?,2,3,3]\n"
            "return r\n");
  EXPECT_FALSE(RunPass(pass, body));
}

// In the pipeline's order the folded conv then takes its residual Add and its Relu.
TEST(BatchNormFoldingTest, TheFoldedConvStillFusesItsResidualAndRelu) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 3, 3}))
                          .Arg("r", DType::kFloat32, Dims({1, 2, 3, 3}))
                          .Node("w", "Const", {}, Value(Floats({2, 2, 1, 1}, {1, 2, 3, 4})))
                          .Node("s", "Const", {}, Value(Floats({2, 1, 1}, {2, 4})))
                          .Node("beta", "Const", {}, Value(Floats({2, 1, 1}, {1, -1})))
                          .Node("c", "ConvND", {"x", "w"})
                          .Node("scaled", "Mul", {"c", "s"})
                          .Node("bn", "Add", {"scaled", "beta"})
                          .Node("sum", "Add", {"bn", "r"})
                          .Node("y", "Relu", {"sum"})
                          .Return({"y"});
  EXPECT_TRUE(RunPass(BatchNormFolding(), body));
  EXPECT_TRUE(RunPass(ConvAddFusion(), body));
  EXPECT_TRUE(RunPass(ConvActivationFusion(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,2,3,3]]() : float32[1,2,3,3]\n"
            "r = Arg[dtype=float32, shape=[1,2,3,3]]() : float32[1,2,3,3]\n"
            "c_batchnorm_folding/weights = Const[value=float32[2,2,1,1]{2, 4, 12, 16}]() : float32[2,2,1,1]\n"
            "c_batchnorm_folding/bias = Const[value=float32[2]{1, -1}]() : float32[2]\n"
            "c_batchnorm_folding_conv_add_fusion_conv_activation_fusion = ConvND[activation=\"Relu\", residual=true]"
            "(x, c_batchnorm_folding/weights, c_batchnorm_folding/bias, r) : float32[1,2,3,3]\n"
            "return c_batchnorm_folding_conv_add_fusion_conv_activation_fusion\n");
}

TEST(BatchNormFoldingTest, FoldsIntoAMatMulByColumnAndAddsABias) {
  FunctionBody body = BodyBuilder()
                          .Arg("a", DType::kFloat32, Dims({4, 2}))
                          .Node("w", "Const", {}, Value(Floats({2, 3}, {1, 2, 3, 4, 5, 6})))
                          .Node("wt", "Const", {}, Value(Floats({3, 2}, {1, 2, 3, 4, 5, 6})))
                          .Node("k", "Const", {}, Value(Floats({3}, {2, 4, 8})))
                          .Node("half", "Const", {}, Value(Floats({}, {0.5})))
                          .Node("mm", "MatMul", {"a", "w"})
                          .Node("d", "Div", {"mm", "k"})
                          .Node("sh", "Add", {"d", "half"})
                          .Node("mt", "MatMul", {"a", "wt"}, {{"transpose_b", true}})
                          .Node("mk", "Mul", {"k", "mt"})
                          .Node("also", "Neg", {"k"})  // keeps k alive
                          .Return({"sh", "mk", "also"});
  BatchNormFolding pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "a = Arg[dtype=float32, shape=[4,2]]() : float32[4,2]\n"
            "k = Const[value=float32[3]{2, 4, 8}]() : float32[3]\n"
            "mm_batchnorm_folding/weights = Const[value=float32[2,3]{0.5, 0.5, 0.375, 2, 1.25, 0.75}]() : "
            "float32[2,3]\n"
            "mm_batchnorm_folding/bias = Const[value=float32[3]{0.5, 0.5, 0.5}]() : float32[3]\n"
            "mm_batchnorm_folding = MatMul(a, mm_batchnorm_folding/weights, mm_batchnorm_folding/bias) : "
            "float32[4,3]\n"
            "mt_batchnorm_folding/weights = Const[value=float32[3,2]{2, 4, 12, 16, 40, 48}]() : float32[3,2]\n"
            "mt_batchnorm_folding/bias = Const[value=float32[3]{0, 0, 0}]() : float32[3]\n"
            "mt_batchnorm_folding = MatMul[transpose_b=true](a, mt_batchnorm_folding/weights, "
            "mt_batchnorm_folding/bias) : float32[4,3]\n"
            "also = Neg(k) : float32[3]\n"
            "return mm_batchnorm_folding, mt_batchnorm_folding, also\n");
}

TEST(BatchNormFoldingTest, AnAddAloneBecomesTheBiasAndTheWeightsStay) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 3, 3}))
                          .Node("w", "Const", {}, Value(Floats({2, 2, 1, 1}, {1, 2, 3, 4})))
                          .Node("beta", "Const", {}, Value(Floats({2, 1, 1}, {1, 2})))
                          .Node("c", "ConvND", {"x", "w"}, {{"group", int64_t{1}}})
                          .Node("y", "Add", {"c", "beta"})
                          .Return({"y"});
  EXPECT_TRUE(RunPass(BatchNormFolding(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,2,3,3]]() : float32[1,2,3,3]\n"
            "w = Const[value=float32[2,2,1,1]{1, 2, 3, 4}]() : float32[2,2,1,1]\n"
            "c_batchnorm_folding/bias = Const[value=float32[2]{1, 2}]() : float32[2]\n"
            "c_batchnorm_folding = ConvND[group=1](x, w, c_batchnorm_folding/bias) : float32[1,2,3,3]\n"
            "return c_batchnorm_folding\n");
}

TEST(BatchNormFoldingTest, StopsWhereTheChainIsNotPerChannelOrNotItsOwn) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 3, 3}))
                          .Arg("wa", DType::kFloat32, Dims({2, 2, 1, 1}))
                          .Node("w", "Const", {}, Value(Floats({2, 2, 1, 1}, {1, 2, 3, 4})))
                          .Node("s", "Const", {}, Value(Floats({2, 1, 1}, {2, 3})))
                          .Node("row", "Const", {}, Value(Floats({3}, {1, 2, 3})))  // along W, not C
                          .Node("inf", "Const", {}, Value(Floats({}, {std::numeric_limits<float>::infinity()})))
                          .Node("c1", "ConvND", {"x", "w"})
                          .Node("m1", "Mul", {"c1", "row"})
                          .Node("c2", "ConvND", {"x", "w"})
                          .Node("m2", "Mul", {"c2", "s"})
                          .Node("other", "Neg", {"c2"})               // c2 has a second use
                          .Node("c3", "ConvND", {"x", "wa"})          // filter not a constant
                          .Node("m3", "Mul", {"c3", "s"})
                          .Node("c4", "ConvND", {"x", "w"})
                          .Node("m4", "Sub", {"s", "c4"})             // s - y is not y - s
                          .Node("c5", "ConvND", {"x", "w"}, {{"activation", std::string("Relu")}})
                          .Node("m5", "Mul", {"c5", "s"})             // after the activation
                          .Node("c6", "ConvND", {"x", "w"})
                          .Node("m6", "Mul", {"c6", "inf"})           // not finite
                          .Node("c7", "ConvND", {"x", "w"})
                          .Node("m7", "Mul", {"c7", "s", "^m6"})      // pinned by a control edge
                          .Arg("a", DType::kFloat32, Dims({4, 2}))
                          .Node("wm", "Const", {}, Value(Floats({2, 2}, {1, 2, 3, 4})))
                          .Node("brow", "Const", {}, Value(Floats({2}, {1, 2})))
                          .Node("mm", "MatMul", {"a", "wm"})
                          .Node("bias", "Add", {"mm", "brow"})         // matmul_fusion's
                          .Return({"m1", "m2", "other", "m3", "m4", "m5", "m6", "m7", "bias"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(BatchNormFolding(), body));
  EXPECT_EQ(Text(body), before);
}

TEST(BatchNormFoldingTest, AResultInTheMiddleEndsTheChainThere) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({1, 2, 3, 3}))
                          .Node("w", "Const", {}, Value(Floats({2, 2, 1, 1}, {1, 2, 3, 4})))
                          .Node("s", "Const", {}, Value(Floats({2, 1, 1}, {2, 3})))
                          .Node("c", "ConvND", {"x", "w"})
                          .Node("m", "Mul", {"c", "s"})
                          .Node("a", "Add", {"m", "s"})
                          .Return({"m", "a"});
  EXPECT_TRUE(RunPass(BatchNormFolding(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[1,2,3,3]]() : float32[1,2,3,3]\n"
            "s = Const[value=float32[2,1,1]{2, 3}]() : float32[2,1,1]\n"
            "c_batchnorm_folding/weights = Const[value=float32[2,2,1,1]{2, 4, 9, 12}]() : float32[2,2,1,1]\n"
            "c_batchnorm_folding/bias = Const[value=float32[2]{0, 0}]() : float32[2]\n"
            "c_batchnorm_folding = ConvND(x, c_batchnorm_folding/weights, c_batchnorm_folding/bias) : "
            "float32[1,2,3,3]\n"
            "a = Add(c_batchnorm_folding, s) : float32[1,2,3,3]\n"
            "return c_batchnorm_folding, a\n");
}

}  // namespace
}  // namespace graphd::compiler::passes
