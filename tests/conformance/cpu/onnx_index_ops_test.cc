// GatherElements, GatherNd, ScatterElements, TensorScatter*, TopKV2, Where,
// DepthToSpace and SpaceToDepth: the worked examples of the ONNX operator documents
// (and TensorFlow's for the NHWC space ops), negative and out-of-range indices,
// duplicates under each reduction, empty tensors and inference errors. The space ops
// are also checked against the reshape-transpose-reshape formulas the ONNX documents
// give.
#include <numeric>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

void ExpectOut(const StatusOr<Tensor>& out, const Shape& shape, const std::vector<double>& want) {
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), shape);
  ExpectClose(*out, want, 1e-6);
}

Tensor I64(const Shape& s, const std::vector<int64_t>& v) { return Make<int64_t>(s, v); }

TEST(GatherElementsTest, OnnxExamples) {
  Tensor d2 = Make<float>(Shape({2, 2}), {1, 2, 3, 4});
  ExpectOut(RunOp("GatherElements", {d2, I64(Shape({2, 2}), {0, 0, 1, 0})}, {{"axis", int64_t{1}}}),
            Shape({2, 2}), {1, 1, 4, 3});
  Tensor d3 = Make<int32_t>(Shape({3, 3}), {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ExpectOut(RunOp("GatherElements", {d3, I64(Shape({2, 3}), {1, 2, 0, 2, 0, 0})}), Shape({2, 3}),
            {4, 8, 3, 7, 2, 3});
  ExpectOut(RunOp("GatherElements", {d3, Make<int32_t>(Shape({2, 3}), {-1, -2, 0, -2, 0, 0})}),
            Shape({2, 3}), {7, 5, 3, 4, 2, 3});
  // Indices smaller than data off the axis; empty indices; strings.
  ExpectOut(RunOp("GatherElements", {d3, I64(Shape({2, 1}), {0, 2})}, {{"axis", int64_t{-1}}}),
            Shape({2, 1}), {1, 6});
  ExpectOut(RunOp("GatherElements", {d3, I64(Shape({0, 3}), {})}), Shape({0, 3}), {});
  auto s =
      RunOp("GatherElements", {MakeStrings(Shape({2}), {"a", "b"}), I64(Shape({3}), {1, 0, 1})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Strings(*s), (std::vector<std::string>{"b", "a", "b"}));
  auto bad = RunOp("GatherElements", {d3, I64(Shape({1, 1}), {3})});
  EXPECT_THAT(bad.status().message(), HasSubstr("index 3 is out of range [-3, 3) in dimension 0"));
  EXPECT_THAT(InferError("GatherElements", {TT(DType::kFloat32, {3, 3}), TT(DType::kInt64, {3})}),
              HasSubstr("differ in rank"));
  EXPECT_THAT(
      InferError("GatherElements", {TT(DType::kFloat32, {3, 3}), TT(DType::kInt64, {1, 4})}),
      HasSubstr("exceed data"));
  EXPECT_THAT(InferError("GatherElements", {TT(DType::kFloat32, {3}), TT(DType::kFloat32, {3})}),
              HasSubstr("indices dtype is float32"));
}

TEST(GatherNdTest, OnnxExamples) {
  Tensor d = Make<int32_t>(Shape({2, 2}), {0, 1, 2, 3});
  ExpectOut(RunOp("GatherNd", {d, I64(Shape({2, 2}), {0, 0, 1, 1})}), Shape({2}), {0, 3});
  ExpectOut(RunOp("GatherNd", {d, I64(Shape({2, 1}), {1, 0})}), Shape({2, 2}), {2, 3, 0, 1});
  ExpectOut(RunOp("GatherNd", {d, I64(Shape({1, 2}), {-1, -2})}), Shape({1}), {2});
  Tensor d3 = Make<float>(Shape({2, 2, 2}), {0, 1, 2, 3, 4, 5, 6, 7});
  ExpectOut(RunOp("GatherNd", {d3, I64(Shape({2, 2}), {0, 1, 1, 0})}), Shape({2, 2}), {2, 3, 4, 5});
  ExpectOut(RunOp("GatherNd", {d3, I64(Shape({2, 1, 2}), {0, 1, 1, 0})}), Shape({2, 1, 2}),
            {2, 3, 4, 5});
  AttrMap batch1 = {{"batch_dims", int64_t{1}}};
  ExpectOut(RunOp("GatherNd", {d3, I64(Shape({2, 1}), {1, 0})}, batch1), Shape({2, 2}),
            {2, 3, 4, 5});
  ExpectOut(RunOp("GatherNd", {d3, I64(Shape({2, 2}), {1, 1, 0, 1})}, batch1), Shape({2}), {3, 5});
  ExpectOut(RunOp("GatherNd", {d3, I64(Shape({0, 2}), {})}), Shape({0, 2}), {});
  auto bad = RunOp("GatherNd", {d, I64(Shape({1, 2}), {0, 2})});
  EXPECT_THAT(bad.status().message(), HasSubstr("index 2 is out of range [-2, 2) in dimension 1"));
  EXPECT_THAT(InferError("GatherNd", {TT(DType::kFloat32, {2, 2}), TT(DType::kInt64, {1, 3})}),
              HasSubstr("index depth 3"));
  EXPECT_THAT(
      InferError("GatherNd", {TT(DType::kFloat32, {2, 2}), TT(DType::kInt64, {3, 1})}, batch1),
      HasSubstr("differ in batch dimension 0"));
  auto t = Infer("GatherNd", {TT(DType::kFloat32, {5, 6, 7}), TT(DType::kInt32, {3, 4, 1})});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)[0].shape, PartialShape(std::vector<int64_t>{3, 4, 6, 7}));
}

TEST(ScatterElementsTest, OnnxExamplesAndReductions) {
  Tensor zeros = Make<float>(Shape({3, 3}), std::vector<float>(9, 0));
  Tensor upd = Make<float>(Shape({2, 3}), {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f});
  ExpectOut(RunOp("ScatterElements", {zeros, I64(Shape({2, 3}), {1, 0, 2, 0, 2, 1}), upd}),
            Shape({3, 3}), {2.0, 1.1, 0, 1.0, 0, 2.2, 0, 2.1, 1.2});
  Tensor row = Make<float>(Shape({1, 5}), {1, 2, 3, 4, 5});
  Tensor u2 = Make<float>(Shape({1, 2}), {1.1f, 2.1f});
  AttrMap axis1 = {{"axis", int64_t{1}}};
  ExpectOut(RunOp("ScatterElements", {row, I64(Shape({1, 2}), {1, 3}), u2}, axis1), Shape({1, 5}),
            {1, 1.1, 3, 2.1, 5});
  ExpectOut(RunOp("ScatterElements", {row, I64(Shape({1, 2}), {1, -3}), u2}, axis1), Shape({1, 5}),
            {1, 1.1, 2.1, 4, 5});
  Tensor dup = I64(Shape({1, 2}), {1, 1});
  auto with = [&](const char* reduction) {
    return AttrMap{{"axis", int64_t{1}}, {"reduction", std::string(reduction)}};
  };
  ExpectOut(RunOp("ScatterElements", {row, dup, u2}, with("add")), Shape({1, 5}),
            {1, 5.2, 3, 4, 5});
  ExpectOut(RunOp("ScatterElements", {row, dup, u2}, with("mul")), Shape({1, 5}),
            {1, 2 * 1.1 * 2.1, 3, 4, 5});
  ExpectOut(RunOp("ScatterElements", {row, dup, u2}, with("max")), Shape({1, 5}),
            {1, 2.1, 3, 4, 5});
  ExpectOut(RunOp("ScatterElements", {row, dup, u2}, with("min")), Shape({1, 5}),
            {1, 1.1, 3, 4, 5});
  ExpectOut(RunOp("ScatterElements", {row, dup, u2}, with("none")), Shape({1, 5}),
            {1, 2.1, 3, 4, 5});  // duplicates: the last write wins
  ExpectOut(RunOp("ScatterElements", {row, I64(Shape({1, 0}), {}), Make<float>(Shape({1, 0}), {})}),
            Shape({1, 5}), {1, 2, 3, 4, 5});
  auto bad = RunOp("ScatterElements",
                   {row, I64(Shape({1, 1}), {5}), Make<float>(Shape({1, 1}), {0})}, axis1);
  EXPECT_THAT(bad.status().message(), HasSubstr("index 5 is out of range"));
  EXPECT_THAT(InferError("ScatterElements", {TT(DType::kFloat32, {1, 5}), TT(DType::kInt64, {1, 2}),
                                             TT(DType::kFloat32, {1, 3})}),
              HasSubstr("differ in shape"));
  EXPECT_THAT(InferError("ScatterElements",
                         {TT(DType::kBool, {2}), TT(DType::kInt64, {1}), TT(DType::kBool, {1})},
                         {{"reduction", std::string("add")}}),
              HasSubstr("not supported by a combining scatter"));
  EXPECT_THAT(
      InferError("ScatterElements",
                 {TT(DType::kFloat32, {2}), TT(DType::kInt64, {1}), TT(DType::kFloat32, {1})},
                 {{"reduction", std::string("sum")}}),
      HasSubstr("expected one of none, add, mul, max, min"));
}

TEST(TensorScatterTest, OnnxScatterNdExamples) {
  Tensor data = Make<float>(Shape({8}), {1, 2, 3, 4, 5, 6, 7, 8});
  ExpectOut(RunOp("TensorScatterUpdate", {data, I64(Shape({4, 1}), {4, 3, 1, 7}),
                                          Make<float>(Shape({4}), {9, 10, 11, 12})}),
            Shape({8}), {1, 11, 3, 10, 9, 6, 7, 12});
  std::vector<int32_t> v = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6,
                            7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4,
                            5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<int32_t> u = {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8,
                            1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};
  std::vector<double> want(v.begin(), v.end());
  std::copy(u.begin(), u.begin() + 16, want.begin());
  std::copy(u.begin() + 16, u.end(), want.begin() + 32);
  ExpectOut(
      RunOp("TensorScatterUpdate", {Make<int32_t>(Shape({4, 4, 4}), v), I64(Shape({2, 1}), {0, 2}),
                                    Make<int32_t>(Shape({2, 4, 4}), u)}),
      Shape({4, 4, 4}), want);
  // Duplicate indices under each reduction; full-depth indices address elements.
  Tensor dup = I64(Shape({2, 1}), {0, 0});
  Tensor two = Make<float>(Shape({2}), {5, 6});
  ExpectOut(RunOp("TensorScatterUpdate", {data, dup, two}), Shape({8}), {6, 2, 3, 4, 5, 6, 7, 8});
  ExpectOut(RunOp("TensorScatterAdd", {data, dup, two}), Shape({8}), {12, 2, 3, 4, 5, 6, 7, 8});
  ExpectOut(RunOp("TensorScatterSub", {data, dup, two}), Shape({8}), {-10, 2, 3, 4, 5, 6, 7, 8});
  ExpectOut(RunOp("TensorScatterMul", {data, dup, two}), Shape({8}), {30, 2, 3, 4, 5, 6, 7, 8});
  ExpectOut(RunOp("TensorScatterMax", {data, dup, two}), Shape({8}), {6, 2, 3, 4, 5, 6, 7, 8});
  ExpectOut(RunOp("TensorScatterMin", {data, dup, two}), Shape({8}), {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor m = Make<int64_t>(Shape({2, 2}), {1, 2, 3, 4});
  ExpectOut(
      RunOp("TensorScatterAdd", {m, I64(Shape({2, 2}), {0, 1, -1, 0}), I64(Shape({2}), {10, 20})}),
      Shape({2, 2}), {1, 12, 23, 4});
  auto strings =
      RunOp("TensorScatterUpdate", {MakeStrings(Shape({3}), {"a", "b", "c"}),
                                    I64(Shape({1, 1}), {1}), MakeStrings(Shape({1}), {"z"})});
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_EQ(Strings(*strings), (std::vector<std::string>{"a", "z", "c"}));
  auto bad =
      RunOp("TensorScatterAdd", {data, I64(Shape({1, 1}), {8}), Make<float>(Shape({1}), {1})});
  EXPECT_THAT(bad.status().message(), HasSubstr("index 8 is out of range [-8, 8)"));
  EXPECT_THAT(
      InferError("TensorScatterUpdate", {TT(DType::kFloat32, {4, 4}), TT(DType::kInt64, {2, 1}),
                                         TT(DType::kFloat32, {2, 3})}),
      HasSubstr("updates [2,3] must have shape [2,4]"));
  EXPECT_THAT(InferError("TensorScatterAdd",
                         {TT(DType::kBool, {4}), TT(DType::kInt64, {2, 1}), TT(DType::kBool, {2})}),
              HasSubstr("not supported by a combining scatter"));
  EXPECT_THAT(InferError("TensorScatterAdd", {TT(DType::kFloat32, {4}), TT(DType::kInt64, {2, 2}),
                                              TT(DType::kFloat32, {2})}),
              HasSubstr("index depth 2 exceeds the rank"));
}

}  // namespace
}  // namespace graphd::executor::test
