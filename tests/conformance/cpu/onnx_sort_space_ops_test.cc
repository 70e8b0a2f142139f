// TopKV2 and Where (ONNX TopK / NonZero examples, ties, NaN, run-time and constant
// k), DepthToSpace and SpaceToDepth (TensorFlow's NHWC examples and, for NCHW in both
// modes, the reshape-transpose-reshape formulas of the ONNX documents).
#include <cmath>
#include <numeric>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

void ExpectOut(const Tensor& out, const Shape& shape, const std::vector<double>& want) {
  EXPECT_EQ(out.shape(), shape);
  ExpectClose(out, want, 1e-6);
}

TEST(TopKTest, OnnxExamples) {
  std::vector<float> v(12);
  std::iota(v.begin(), v.end(), 0.f);
  Tensor x = Make<float>(Shape({3, 4}), v);
  Tensor k3 = Make<int64_t>(Shape({1}), {3});
  auto top = RunOpAll("TopKV2", {x, k3}, {{"index_type", DType::kInt64}});
  ASSERT_TRUE(top.ok()) << top.status();
  ExpectOut((*top)[0], Shape({3, 3}), {3, 2, 1, 7, 6, 5, 11, 10, 9});
  EXPECT_EQ((*top)[1].dtype(), DType::kInt64);
  ExpectOut((*top)[1], Shape({3, 3}), {3, 2, 1, 3, 2, 1, 3, 2, 1});
  auto small = RunOpAll("TopKV2", {x, k3}, {{"largest", false}});
  ASSERT_TRUE(small.ok()) << small.status();
  ExpectOut((*small)[0], Shape({3, 3}), {0, 1, 2, 4, 5, 6, 8, 9, 10});
  EXPECT_EQ((*small)[1].dtype(), DType::kInt32);  // TensorFlow's default index_type
  ExpectOut((*small)[1], Shape({3, 3}), {0, 1, 2, 0, 1, 2, 0, 1, 2});
  auto axis0 = RunOpAll("TopKV2", {x, Make<int32_t>(Shape({}), {2})}, {{"axis", int64_t{0}}});
  ASSERT_TRUE(axis0.ok()) << axis0.status();
  ExpectOut((*axis0)[0], Shape({2, 4}), {8, 9, 10, 11, 4, 5, 6, 7});
  ExpectOut((*axis0)[1], Shape({2, 4}), {2, 2, 2, 2, 1, 1, 1, 1});
}

TEST(TopKTest, TiesNanAndEdges) {
  auto k = [](int64_t v) { return Make<int64_t>(Shape({}), {v}); };
  auto ties = RunOpAll("TopKV2", {Make<int32_t>(Shape({4}), {1, 3, 3, 2}), k(2)});
  ASSERT_TRUE(ties.ok()) << ties.status();
  ExpectOut((*ties)[0], Shape({2}), {3, 3});
  ExpectOut((*ties)[1], Shape({2}), {1, 2});
  auto low = RunOpAll("TopKV2", {Make<double>(Shape({3}), {2, 1, 1}), k(2)}, {{"largest", false}});
  ASSERT_TRUE(low.ok()) << low.status();
  ExpectOut((*low)[1], Shape({2}), {1, 2});
  auto nan = RunOpAll("TopKV2", {Make<float>(Shape({3}), {1, NAN, 3}), k(2)});
  ASSERT_TRUE(nan.ok()) << nan.status();
  ExpectOut((*nan)[0], Shape({2}), {NAN, 3});
  ExpectOut((*nan)[1], Shape({2}), {1, 2});
  auto zero = RunOpAll("TopKV2", {Make<float>(Shape({2, 3}), {1, 2, 3, 4, 5, 6}), k(0)});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ((*zero)[0].shape(), Shape({2, 0}));
  auto too_big = RunOpAll("TopKV2", {Make<float>(Shape({3}), {1, 2, 3}), k(4)});
  EXPECT_THAT(too_big.status().message(), HasSubstr("k (4) must be in [0, 3]"));
  // A constant k gives the exact output shape at inference; a fed k an unknown dim.
  Graph g;
  const Node* px =
      AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{5, 7}));
  auto kc =
      g.AddNode({.name = "k", .op = "Const", .attrs = {{"value", Tensor::Scalar<int32_t>(3)}}});
  ASSERT_TRUE(kc.ok()) << kc.status();
  auto node = g.AddNode({.name = "top",
                         .op = "TopKV2",
                         .inputs = {{px, 0}, {*kc, 0}},
                         .attrs = {{"axis", int64_t{0}}}});
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_EQ((*node)->output(0).shape, PartialShape(std::vector<int64_t>{3, 7}));
  EXPECT_EQ((*node)->output(1).dtype, DType::kInt32);
  auto fed = Infer("TopKV2", {TT(DType::kFloat32, {5, 7}), TT(DType::kInt64, {})});
  ASSERT_TRUE(fed.ok()) << fed.status();
  EXPECT_EQ((*fed)[0].shape, PartialShape(std::vector<int64_t>{5, kUnknownDim}));
  auto kbig =
      g.AddNode({.name = "k9", .op = "Const", .attrs = {{"value", Tensor::Scalar<int32_t>(9)}}});
  ASSERT_TRUE(kbig.ok());
  auto bad = g.AddNode({.name = "bad", .op = "TopKV2", .inputs = {{px, 0}, {*kbig, 0}}});
  EXPECT_THAT(bad.status().message(), HasSubstr("k (9) exceeds the size 7"));
  EXPECT_THAT(InferError("TopKV2", {TT(DType::kBool, {3}), TT(DType::kInt64, {})}),
              HasSubstr("input dtype is bool"));
  EXPECT_THAT(InferError("TopKV2", {TT(DType::kFloat32, {3}), TT(DType::kInt64, {2})}),
              HasSubstr("k must be a scalar"));
  EXPECT_THAT(InferError("TopKV2", {TT(DType::kFloat32, {3}), TT(DType::kInt64, {})},
                         {{"index_type", DType::kFloat32}}),
              HasSubstr("index_type"));
}

TEST(WhereTest, CoordinatesOfNonzeros) {
  auto b = RunOp("Where", {MakeBool(Shape({2, 2}), {1, 0, 1, 1})});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->dtype(), DType::kInt64);
  ExpectOut(*b, Shape({3, 2}), {0, 0, 1, 0, 1, 1});
  auto f = RunOp("Where", {Make<float>(Shape({4}), {0, 2.5f, 0, -1})});
  ASSERT_TRUE(f.ok()) << f.status();
  ExpectOut(*f, Shape({2, 1}), {1, 3});
  auto none = RunOp("Where", {Make<int32_t>(Shape({2, 3}), {0, 0, 0, 0, 0, 0})});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->shape(), Shape({0, 2}));
  auto scalar = RunOp("Where", {Make<int64_t>(Shape({}), {7})});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->shape(), Shape({1, 0}));
  auto t = Infer("Where", {TT(DType::kFloat32, {2, 3, 4})});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)[0].shape, PartialShape(std::vector<int64_t>{kUnknownDim, 3}));
  EXPECT_THAT(InferError("Where", {TT(DType::kString, {2})}), HasSubstr("not supported"));
}

// The values of `x` (dims `d6`, row-major) transposed by `perm`: numpy's
// x.reshape(d6).transpose(perm).ravel().
std::vector<double> Permuted(const std::vector<double>& x, const std::vector<int64_t>& d6,
                             const std::vector<int>& perm) {
  std::vector<int64_t> out_dims;
  for (int p : perm) out_dims.push_back(d6[p]);
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<int64_t> oi = Unflatten(static_cast<int64_t>(i), out_dims);
    std::vector<int64_t> ii(6);
    for (int k = 0; k < 6; ++k) ii[perm[k]] = oi[k];
    out[i] = x[Flatten(ii, d6)];
  }
  return out;
}

TEST(SpaceDepthTest, TensorFlowNhwcExamples) {
  std::vector<float> v(16);
  std::iota(v.begin(), v.end(), 1.f);
  Tensor x = Make<float>(Shape({1, 2, 2, 4}), v);
  auto d2s = RunOp("DepthToSpace", {x}, {{"block_size", int64_t{2}}});
  ASSERT_TRUE(d2s.ok()) << d2s.status();
  std::vector<double> want = {1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16};
  ExpectOut(*d2s, Shape({1, 4, 4, 1}), want);
  auto s2d = RunOp("SpaceToDepth", {*d2s}, {{"block_size", int64_t{2}}});
  ASSERT_TRUE(s2d.ok()) << s2d.status();
  ExpectOut(*s2d, Shape({1, 2, 2, 4}), std::vector<double>(v.begin(), v.end()));
}

TEST(SpaceDepthTest, OnnxNchwFormulas) {
  const int64_t n = 2, c = 8, h = 2, w = 3, b = 2;
  std::vector<double> xv(n * c * h * w);
  std::iota(xv.begin(), xv.end(), 0.0);
  Tensor x = Make<double>(Shape({n, c, h, w}), xv);
  AttrMap attrs = {{"block_size", b}, {"data_format", std::string("NCHW")}};
  auto dcr = RunOp("DepthToSpace", {x}, attrs);
  ASSERT_TRUE(dcr.ok()) << dcr.status();
  ExpectOut(*dcr, Shape({n, c / 4, h * b, w * b}),
            Permuted(xv, {n, b, b, c / 4, h, w}, {0, 3, 4, 1, 5, 2}));
  attrs["mode"] = std::string("CRD");
  auto crd = RunOp("DepthToSpace", {x}, attrs);
  ASSERT_TRUE(crd.ok()) << crd.status();
  ExpectOut(*crd, Shape({n, c / 4, h * b, w * b}),
            Permuted(xv, {n, c / 4, b, b, h, w}, {0, 1, 4, 2, 5, 3}));
  // SpaceToDepth of [2, 2, 4, 6] (NCHW), block 2.
  Tensor y = Make<double>(Shape({n, 2, 4, 6}), xv);
  auto s2d = RunOp("SpaceToDepth", {y}, {{"block_size", b}, {"data_format", std::string("NCHW")}});
  ASSERT_TRUE(s2d.ok()) << s2d.status();
  ExpectOut(*s2d, Shape({n, 8, 2, 3}), Permuted(xv, {n, 2, 2, b, 3, b}, {0, 3, 5, 1, 2, 4}));
  // Strings and empty batches move like any element.
  auto s = RunOp("DepthToSpace", {MakeStrings(Shape({1, 1, 1, 4}), {"a", "b", "c", "d"})},
                 {{"block_size", int64_t{2}}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Strings(*s), (std::vector<std::string>{"a", "b", "c", "d"}));
  auto e =
      RunOp("SpaceToDepth", {Make<float>(Shape({0, 4, 4, 1}), {})}, {{"block_size", int64_t{2}}});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shape(), Shape({0, 2, 2, 4}));
  AttrMap two = {{"block_size", int64_t{2}}};
  EXPECT_THAT(InferError("DepthToSpace", {TT(DType::kFloat32, {1, 2, 2, 6})}, two),
              HasSubstr("not divisible by 4"));
  EXPECT_THAT(InferError("SpaceToDepth", {TT(DType::kFloat32, {1, 3, 2, 1})}, two),
              HasSubstr("not divisible by 2"));
  EXPECT_THAT(InferError("SpaceToDepth", {TT(DType::kFloat32, {2, 2, 1})}, two),
              HasSubstr("rank 4"));
  EXPECT_THAT(InferError("DepthToSpace", {TT(DType::kFloat32, {1, 1, 1, 4})}),
              HasSubstr("missing attribute 'block_size'"));
  EXPECT_THAT(InferError("DepthToSpace", {TT(DType::kFloat32, {1, 1, 1, 4})},
                         {{"block_size", int64_t{2}}, {"mode", std::string("RCD")}}),
              HasSubstr("expected one of DCR, CRD"));
}

}  // namespace
}  // namespace graphd::executor::test
