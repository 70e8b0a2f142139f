// Golden tests for the MatMul bias / activation fusion and constant-weight marking.
#include "compiler/passes/matmul_fusion.h"

#include "compiler/passes/pass_test_util.h"
#include "gmock/gmock.h"

namespace graphd::compiler::passes {
namespace {

using test::BodyBuilder;
using test::Dims;
using test::Filled;
using test::RunPass;
using test::Text;

TEST(MatMulFusionTest, FusesBiasAndActivationsAndMarksConstantWeights) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({-1, 4}))
                          .Node("w1", "Const", {}, {{"value", Filled(DType::kFloat32, {3, 4}, 0.5f)}})
                          .Node("b1", "Const", {}, {{"value", Filled(DType::kFloat32, {3}, 1.f)}})
                          .Node("w2", "Const", {}, {{"value", Filled(DType::kFloat32, {3, 2}, 0.25f)}})
                          .Arg("b2", DType::kFloat32, Dims({1, 2}))
                          .Const("lo", 0.0f)
                          .Const("hi", 6.0f)
                          .Node("mm1", "MatMul", {"x", "w1"}, {{"transpose_b", true}})
                          .Node("add1", "Add", {"mm1", "b1"})
                          .Node("relu", "Relu", {"add1"})
                          .Node("mm2", "MatMul", {"relu", "w2"})
                          .Node("add2", "Add", {"b2", "mm2"})  // bias first, a runtime value
                          .Node("mx", "Maximum", {"add2", "lo"})
                          .Node("mn", "Minimum", {"mx", "hi"})
                          .Node("out", "Neg", {"mn"})
                          .Return({"out"});
  MatMulFusion pass;
  EXPECT_TRUE(RunPass(pass, body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[?,4]]() : float32[?,4]\n"
            "w1 = Const[value=float32[3,4]{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, ...}]() : "
            "float32[3,4]\n"
            "b1 = Const[value=float32[3]{1, 1, 1}]() : float32[3]\n"
            "w2 = Const[value=float32[3,2]{0.25, 0.25, 0.25, 0.25, 0.25, 0.25}]() : float32[3,2]\n"
            "b2 = Arg[dtype=float32, shape=[1,2]]() : float32[1,2]\n"
            "lo = Const[value=float32[]{0}]() : float32[]\n"
            "hi = Const[value=float32[]{6}]() : float32[]\n"
            "mm1_matmul_fusion = MatMul[activation=\"Relu\", constant_weights=true, transpose_b=true](x, w1, b1) : "
            "float32[?,3]\n"
            "mm2_matmul_fusion = MatMul[activation=\"Clip\", clip_max=6, clip_min=0, constant_weights=true]"
            "(mm1_matmul_fusion, w2, b2) : float32[?,2]\n"
            "out = Neg(mm2_matmul_fusion) : float32[?,2]\n"
            "return out\n");
  EXPECT_FALSE(RunPass(pass, body));
}

TEST(MatMulFusionTest, FusesAnActivationWithoutBiasAndLeavesRuntimeWeightsUnmarked) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Arg("w", DType::kFloat32, Dims({3, 4}))
                          .Node("mm", "MatMul", {"x", "w"})
                          .Node("r", "Relu", {"mm"})
                          .Return({"r"});
  EXPECT_TRUE(RunPass(MatMulFusion(), body));
  EXPECT_EQ(Text(body),
            "x = Arg[dtype=float32, shape=[2,3]]() : float32[2,3]\n"
            "w = Arg[dtype=float32, shape=[3,4]]() : float32[3,4]\n"
            "mm_matmul_fusion = MatMul[activation=\"Relu\"](x, w) : float32[2,4]\n"
            "return mm_matmul_fusion\n");
}

TEST(MatMulFusionTest, LeavesSharedReturnedBroadcastingAndNonFloatMatMuls) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Arg("w", DType::kFloat32, Dims({3, 4}))
                          .Arg("full", DType::kFloat32, Dims({2, 4}))
                          .Arg("col", DType::kFloat32, Dims({2, 1}))
                          .Arg("t", DType::kFloat32, Dims({}))
                          .Arg("i", DType::kInt32, Dims({2, 2}))
                          .Arg("ib", DType::kInt32, Dims({2}))
                          .Node("shared", "MatMul", {"x", "w"})
                          .Node("a1", "Add", {"shared", "full"})
                          .Node("also", "Neg", {"shared"})          // a second use
                          .Node("returned", "MatMul", {"x", "w"})
                          .Node("r2", "Relu", {"returned"})
                          .Node("m3", "MatMul", {"x", "w"})
                          .Node("a3", "Add", {"m3", "full"})        // not a row vector
                          .Node("m4", "MatMul", {"x", "w"})
                          .Node("a4", "Add", {"m4", "col"})         // a column: broadcasts along rows
                          .Node("m5", "MatMul", {"x", "w"})
                          .Node("x5", "Maximum", {"m5", "t"})       // bound not a constant
                          .Node("m6", "MatMul", {"i", "i"})
                          .Node("a6", "Add", {"m6", "ib"})          // int32
                          .Return({"a1", "also", "returned", "r2", "a3", "a4", "x5", "a6"});
  const std::string before = Text(body);
  EXPECT_FALSE(RunPass(MatMulFusion(), body));
  EXPECT_EQ(Text(body), before);
}

TEST(MatMulFusionTest, TakesTheMinimumOnlyWhenItsBoundIsNotBelowTheMaximum) {
  FunctionBody body = BodyBuilder()
                          .Arg("x", DType::kFloat32, Dims({2, 3}))
                          .Arg("w", DType::kFloat32, Dims({3, 4}))
                          .Const("lo", 1.0f)
                          .Const("hi", 0.5f)
                          .Node("mm", "MatMul", {"x", "w"})
                          .Node("mx", "Maximum", {"mm", "lo"})
                          .Node("mn", "Minimum", {"mx", "hi"})
                          .Return({"mn"});
  EXPECT_TRUE(RunPass(MatMulFusion(), body));
  EXPECT_THAT(Text(body), ::testing::HasSubstr(
                              "mm_matmul_fusion = MatMul[activation=\"Clip\", clip_max=inf, clip_min=1](x, w)"));
  EXPECT_THAT(Text(body), ::testing::HasSubstr("mn = Minimum(mm_matmul_fusion, hi)"));
}

// The ONNX importer's MatMul of [1, s, k]: Reshape to [s, k], MatMul, Reshape back,
// then the bias Add and GELU on [1, s, n] (a transformer's feed-forward layer).
TEST(MatMulFusionTest, FusesABiasAndGeluBehindAReshapeThatKeepsTheColumns) {
  auto layer = [](const char* bias_name, std::vector<int64_t> bias_shape, std::vector<int64_t> back) {
    return BodyBuilder()
        .Arg("x", DType::kFloat32, Dims({8, 4}))
        .Node("w", "Const", {}, {{"value", Filled(DType::kFloat32, {4, 6}, 0.5f)}})
        .Node(bias_name, "Const", {}, {{"value", Filled(DType::kFloat32, bias_shape, 1.f)}})
        .Node("mm", "MatMul", {"x", "w"})
        .Node("r", "Reshape", {"mm"}, {{"shape", IntList(back.begin(), back.end())}})
        .Node("add", "Add", {"r", bias_name})
        .Node("g", "Gelu", {"add"}, {{"approximate", false}})
        .Return({"g"});
  };
  {
    FunctionBody body = layer("b", {6}, {1, 8, 6});
    MatMulFusion pass;
    EXPECT_TRUE(RunPass(pass, body));
    EXPECT_EQ(Text(body),
              "x = Arg[dtype=float32, shape=[8,4]]() : float32[8,4]\n"
              "w = Const[value=float32[4,6]{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, ...}]() : float32[4,6]\n"
              "b = Const[value=float32[6]{1, 1, 1, 1, 1, 1}]() : float32[6]\n"
              "mm_matmul_fusion = MatMul[activation=\"Gelu\", constant_weights=true](x, w, b) : float32[8,6]\n"
              "r_matmul_fusion = Reshape[shape=[1, 8, 6]](mm_matmul_fusion) : float32[1,8,6]\n"
              "return r_matmul_fusion\n");
  }
  {  // without GELU fusion (a GPU pipeline) the bias still goes in, the Gelu stays
    FunctionBody body = layer("b", {1, 6}, {2, 4, 6});
    MatMulFusion pass(/*gelu=*/false);
    EXPECT_TRUE(RunPass(pass, body));
    EXPECT_THAT(Text(body), ::testing::HasSubstr("mm_matmul_fusion = MatMul[constant_weights=true](x, w, b)"));
    EXPECT_THAT(Text(body), ::testing::HasSubstr("g = Gelu[approximate=false](r_matmul_fusion)"));
  }
  {  // a reshape that changes the last dimension: the bias stays an Add
    FunctionBody body = layer("b", {3}, {1, 16, 3});
    MatMulFusion pass;
    EXPECT_TRUE(RunPass(pass, body));  // constant_weights only
    EXPECT_THAT(Text(body), ::testing::HasSubstr("add = Add(r, b)"));
  }
  {  // no bias (zeros that algebraic simplification removed): the activation still goes in
    FunctionBody body = BodyBuilder()
                            .Arg("x", DType::kFloat32, Dims({8, 4}))
                            .Node("w", "Const", {}, {{"value", Filled(DType::kFloat32, {4, 6}, 0.5f)}})
                            .Node("mm", "MatMul", {"x", "w"})
                            .Node("r", "Reshape", {"mm"}, {{"shape", IntList{1, 8, 6}}})
                            .Node("g", "Gelu", {"r"}, {{"approximate", false}})
                            .Node("r2", "Reshape", {"g"}, {{"shape", IntList{8, 6}}})
                            .Node("relu", "Relu", {"r2"})
                            .Return({"relu"});
    MatMulFusion pass;
    EXPECT_TRUE(RunPass(pass, body));
    EXPECT_EQ(Text(body),
              "x = Arg[dtype=float32, shape=[8,4]]() : float32[8,4]\n"
              "w = Const[value=float32[4,6]{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, ...}]() : float32[4,6]\n"
              "mm_matmul_fusion = MatMul[activation=\"Gelu\", constant_weights=true](x, w) : float32[8,6]\n"
              "r_matmul_fusion = Reshape[shape=[1, 8, 6]](mm_matmul_fusion) : float32[1,8,6]\n"
              "r2 = Reshape[shape=[8, 6]](r_matmul_fusion) : float32[8,6]\n"
              "relu = Relu(r2) : float32[8,6]\n"
              "return relu\n");
  }
  {  // a Reshape with another user keeps the activation out
    FunctionBody body = BodyBuilder()
                            .Arg("x", DType::kFloat32, Dims({8, 4}))
                            .Arg("w", DType::kFloat32, Dims({4, 6}))
                            .Node("mm", "MatMul", {"x", "w"})
                            .Node("r", "Reshape", {"mm"}, {{"shape", IntList{1, 8, 6}}})
                            .Node("g", "Relu", {"r"})
                            .Return({"g", "r"});
    MatMulFusion pass;
    EXPECT_FALSE(RunPass(pass, body));
  }
  {  // a bias of rank 3 ([1, 1, 6]) is not the MatMul's [n] / [1, n]: left as it is
    FunctionBody body = layer("b", {1, 1, 6}, {1, 8, 6});
    MatMulFusion pass;
    EXPECT_TRUE(RunPass(pass, body));
    EXPECT_THAT(Text(body), ::testing::HasSubstr("add = Add(r, b)"));
  }
}

}  // namespace
}  // namespace graphd::compiler::passes
