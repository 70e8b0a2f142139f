// Shape, Size, Rank, ExpandDims, Squeeze, BroadcastTo, and the generators Fill,
// ZerosLike, OnesLike, Eye, Range (with inference from Const inputs) and LinSpace.
#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

TEST(ShapeOpsTest, ShapeSizeRank) {
  Tensor x = Make<float>(Shape({2, 0, 3}), {});
  auto shape = RunOp("Shape", {x});
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->dtype(), DType::kInt32);
  ExpectClose(*shape, {2, 0, 3});
  auto shape64 = RunOp("Shape", {MakeStrings(Shape({4}), {"a", "b", "c", "d"})},
                       {{"out_type", DType::kInt64}});
  ASSERT_TRUE(shape64.ok()) << shape64.status();
  EXPECT_EQ(shape64->dtype(), DType::kInt64);
  ExpectClose(*shape64, {4});
  auto size = RunOp("Size", {Make<int32_t>(Shape({2, 5}), std::vector<int32_t>(10))},
                    {{"out_type", DType::kInt64}});
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(size->shape(), Shape());
  ExpectClose(*size, {10});
  auto rank = RunOp("Rank", {Tensor::Scalar<bool>(true)});
  ASSERT_TRUE(rank.ok()) << rank.status();
  ExpectClose(*rank, {0});
  auto partial = Infer("Shape", {TT(DType::kFloat32, {-1, 3})});
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ((*partial)[0].shape, PartialShape(std::vector<int64_t>{2}));
  EXPECT_THAT(InferError("Shape", {TT(DType::kFloat32, {1})}, {{"out_type", DType::kFloat32}}),
              HasSubstr("node 'out' (Shape): out_type is float32"));
}

TEST(ShapeOpsTest, ExpandDimsAndSqueeze) {
  Tensor x = Make<int64_t>(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  for (auto [axis, want] : std::vector<std::pair<int64_t, Shape>>{
           {0, Shape({1, 2, 3})}, {2, Shape({2, 3, 1})}, {-1, Shape({2, 3, 1})},
           {-3, Shape({1, 2, 3})}, {1, Shape({2, 1, 3})}}) {
    auto out = RunOp("ExpandDims", {x}, {{"axis", axis}});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->shape(), want) << axis;
    ExpectClose(*out, {1, 2, 3, 4, 5, 6});
  }
  EXPECT_THAT(InferError("ExpandDims", {TT(DType::kFloat32, {2, 3})}, {{"axis", int64_t{3}}}),
              HasSubstr("node 'out' (ExpandDims): axis 3 is out of range for a tensor of rank 3"));
  EXPECT_THAT(InferError("ExpandDims", {TT(DType::kFloat32, {2, 3})}, {{"axis", int64_t{-4}}}),
              HasSubstr("axis -4 is out of range"));

  Tensor y = MakeStrings(Shape({1, 2, 1, 1}), {"p", "q"});
  auto all = RunOp("Squeeze", {y});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->shape(), Shape({2}));
  EXPECT_EQ(Strings(*all), (std::vector<std::string>{"p", "q"}));
  auto some = RunOp("Squeeze", {y}, {{"squeeze_dims", IntList{0, -1}}});
  ASSERT_TRUE(some.ok()) << some.status();
  EXPECT_EQ(some->shape(), Shape({2, 1}));
  EXPECT_THAT(InferError("Squeeze", {TT(DType::kFloat32, {1, 2})}, {{"squeeze_dims", IntList{1}}}),
              HasSubstr("node 'out' (Squeeze): cannot squeeze dimension 1 of shape [1,2]: its size is 2"));
  auto unknown = Infer("Squeeze", {TT(DType::kFloat32, {1, -1})});
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE((*unknown)[0].shape.known_rank());
  auto known = Infer("Squeeze", {TT(DType::kFloat32, {1, -1, 3})}, {{"squeeze_dims", IntList{1}}});
  ASSERT_TRUE(known.ok());
  EXPECT_EQ((*known)[0].shape, PartialShape(std::vector<int64_t>{1, 3}));
  // A dimension unknown at graph time that is not 1 at run time.
  Graph g;
  const Node* p = AddPlaceholder(g, "p", DType::kFloat32, PartialShape(std::vector<int64_t>{-1}));
  ASSERT_TRUE(g.AddNode({.name = "sq", .op = "Squeeze", .inputs = {{p, 0}},
                         .attrs = {{"squeeze_dims", IntList{0}}}}).ok());
  auto bad = RunGraph(g, {{"p", Make<float>(Shape({2}), {1, 2})}}, {"sq"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("node 'sq' (Squeeze): cannot squeeze dimension 0"));
}

TEST(ShapeOpsTest, BroadcastTo) {
  std::mt19937 rng(6);
  for (auto [in, target] : std::vector<std::pair<Shape, std::vector<int64_t>>>{
           {Shape({3}), {2, 3}}, {Shape({2, 1}), {2, 4}}, {Shape({}), {3, 2}},
           {Shape({1, 3, 1}), {2, 3, 4}}, {Shape({2, 3}), {2, 3}}, {Shape({1}), {0, 5}}}) {
    Tensor x = Random<int32_t>(in, rng, -50, 50);
    auto out = RunOp("BroadcastTo", {x}, {{"shape", IntList(target)}});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->shape(), Shape(target));
    std::vector<double> v = ToDouble(x), want;
    for (int64_t i = 0; i < out->num_elements(); ++i) {
      std::vector<int64_t> index = Unflatten(i, target);
      std::vector<int64_t> src(index.end() - in.rank(), index.end());
      for (int k = 0; k < in.rank(); ++k) {
        if (in.dim(k) == 1) src[k] = 0;
      }
      want.push_back(v[Flatten(src, in.dims())]);
    }
    ExpectClose(*out, want);
  }
  EXPECT_THAT(InferError("BroadcastTo", {TT(DType::kFloat32, {3})}, {{"shape", IntList{2, 4}}}),
              HasSubstr("node 'out' (BroadcastTo): cannot broadcast shape [3] to [2,4]"));
  EXPECT_THAT(InferError("BroadcastTo", {TT(DType::kFloat32, {2, 3})}, {{"shape", IntList{3}}}),
              HasSubstr("cannot broadcast"));
}

TEST(GeneratorOpsTest, FillZerosOnesEye) {
  auto fill = RunOp("Fill", {Tensor::Scalar<double>(2.5)}, {{"shape", IntList{2, 3}}});
  ASSERT_TRUE(fill.ok()) << fill.status();
  ExpectClose(*fill, std::vector<double>(6, 2.5));
  auto sfill = RunOp("Fill", {MakeStrings(Shape(), {"ab"})}, {{"shape", IntList{2}}});
  ASSERT_TRUE(sfill.ok()) << sfill.status();
  EXPECT_EQ(Strings(*sfill), (std::vector<std::string>{"ab", "ab"}));
  auto empty = RunOp("Fill", {Tensor::Scalar<int32_t>(1)}, {{"shape", IntList{0, 4}}});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape(), Shape({0, 4}));
  EXPECT_THAT(InferError("Fill", {TT(DType::kFloat32, {2})}, {{"shape", IntList{2}}}),
              HasSubstr("node 'out' (Fill): value must be a scalar"));
  EXPECT_THAT(InferError("Fill", {TT(DType::kFloat32, {})}, {{"shape", IntList{2, -1}}}),
              HasSubstr("attribute 'shape' has entry -1 < 0"));

  auto zeros = RunOp("ZerosLike", {Make<int64_t>(Shape({2, 2}), {1, 2, 3, 4})});
  auto ones = RunOp("OnesLike", {MakeBool(Shape({3}), {0, 1, 0})});
  ASSERT_TRUE(zeros.ok() && ones.ok());
  ExpectClose(*zeros, {0, 0, 0, 0});
  EXPECT_EQ(ones->dtype(), DType::kBool);
  ExpectClose(*ones, {1, 1, 1});

  auto eye = RunOp("Eye", {}, {{"num_rows", int64_t{2}}, {"num_columns", int64_t{3}},
                               {"dtype", DType::kInt32}});
  ASSERT_TRUE(eye.ok()) << eye.status();
  EXPECT_EQ(eye->shape(), Shape({2, 3}));
  ExpectClose(*eye, {1, 0, 0, 0, 1, 0});
  auto batch = RunOp("Eye", {}, {{"num_rows", int64_t{2}}, {"batch_shape", IntList{2}}});
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_EQ(batch->dtype(), DType::kFloat32);
  ExpectClose(*batch, {1, 0, 0, 1, 1, 0, 0, 1});
  EXPECT_THAT(InferError("Eye", {}, {{"num_rows", int64_t{-1}}}),
              HasSubstr("node 'out' (Eye): num_rows and num_columns must be >= 0"));
}

template <typename T>
void CheckRange(T start, T limit, T delta) {
  auto out = RunOp("Range", {Tensor::Scalar<T>(start), Tensor::Scalar<T>(limit),
                             Tensor::Scalar<T>(delta)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want;
  for (double v = start; delta > 0 ? v < limit : v > limit; v += delta) want.push_back(v);
  ExpectClose(*out, want, 1e-6, 1e-6);
}

TEST(GeneratorOpsTest, Range) {
  CheckRange<int32_t>(0, 5, 1);
  CheckRange<int32_t>(3, 18, 4);
  CheckRange<int64_t>(10, -3, -3);
  CheckRange<int64_t>(4, 4, 1);
  CheckRange<float>(0.5f, 2.0f, 0.25f);
  CheckRange<double>(1, -1, -0.3);
  auto zero = RunOp("Range", {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(5),
                              Tensor::Scalar<int32_t>(0)});
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(), HasSubstr("node 'out' (Range): Requires delta != 0"));
  auto backwards = RunOp("Range", {Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(1),
                                   Tensor::Scalar<int32_t>(1)});
  ASSERT_FALSE(backwards.ok());
  EXPECT_THAT(backwards.status().message(), HasSubstr("Requires start <= limit when delta > 0: 5/1"));
  EXPECT_THAT(InferError("Range", {TT(DType::kInt32, {}), TT(DType::kInt64, {}), TT(DType::kInt32, {})}),
              HasSubstr("node 'out' (Range): start is int32 but limit is int64"));
  EXPECT_THAT(InferError("Range", {TT(DType::kInt32, {2}), TT(DType::kInt32, {}), TT(DType::kInt32, {})}),
              HasSubstr("start must be a scalar"));
  // Unknown length from placeholders.
  auto unknown = Infer("Range", {TT(DType::kFloat32, {}), TT(DType::kFloat32, {}), TT(DType::kFloat32, {})});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ((*unknown)[0].shape, PartialShape(std::vector<int64_t>{-1}));
}

// Range over Const inputs has a known length at graph time (and fails there when bad).
TEST(GeneratorOpsTest, RangeFromConstantsHasKnownLength) {
  Graph g;
  auto constant = [&](const std::string& name, int64_t v) {
    return *g.AddNode({.name = name, .op = "Const", .attrs = {{"value", Tensor::Scalar<int64_t>(v)}}});
  };
  const Node* s = constant("s", 2);
  const Node* l = constant("l", 11);
  const Node* d = constant("d", 3);
  auto r = g.AddNode({.name = "r", .op = "Range", .inputs = {{s, 0}, {l, 0}, {d, 0}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)->output(0).shape, PartialShape(std::vector<int64_t>{3}));
  auto out = RunGraph(g, {}, {"r"});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose((*out)[0], {2, 5, 8});
  const Node* z = constant("z", 0);
  auto bad = g.AddNode({.name = "bad", .op = "Range", .inputs = {{s, 0}, {l, 0}, {z, 0}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("node 'bad' (Range): Requires delta != 0"));
}

TEST(GeneratorOpsTest, LinSpace) {
  for (int64_t num : {1, 2, 5, 7}) {
    auto f = RunOp("LinSpace", {Tensor::Scalar<float>(-1), Tensor::Scalar<float>(2)}, {{"num", num}});
    ASSERT_TRUE(f.ok()) << f.status();
    std::vector<double> want;
    for (int64_t i = 0; i < num; ++i) want.push_back(num == 1 ? -1 : -1 + 3.0 * i / (num - 1));
    ExpectClose(*f, want, 1e-6, 1e-6);
    if (num > 1) EXPECT_EQ(f->data<float>()[num - 1], 2.0f);
  }
  auto d = RunOp("LinSpace", {Tensor::Scalar<double>(10), Tensor::Scalar<double>(0)}, {{"num", int64_t{3}}});
  ASSERT_TRUE(d.ok());
  ExpectClose(*d, {10, 5, 0});
  EXPECT_THAT(InferError("LinSpace", {TT(DType::kFloat32, {}), TT(DType::kFloat32, {})}, {{"num", int64_t{0}}}),
              HasSubstr("node 'out' (LinSpace): num must be positive, got 0"));
  EXPECT_THAT(InferError("LinSpace", {TT(DType::kInt32, {}), TT(DType::kInt32, {})}, {{"num", int64_t{2}}}),
              HasSubstr("start dtype is int32"));
}

}  // namespace
}  // namespace graphd::executor::test
