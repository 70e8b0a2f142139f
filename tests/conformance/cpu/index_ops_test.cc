// GatherV2 (axis, batch_dims, out-of-range errors), Slice, SelectV2 (three-way
// broadcasting) and OneHot against reference loops.
#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

template <typename T, typename I>
void CheckGather(const Shape& pshape, const Shape& ishape, int64_t axis, int64_t batch_dims) {
  std::mt19937 rng(1);
  Tensor params = Random<T>(pshape, rng, -100, 100);
  const int a = static_cast<int>(axis < 0 ? axis + pshape.rank() : axis);
  Tensor indices = Random<I>(ishape, rng, 0, static_cast<double>(pshape.dim(a) - 1));
  auto out = RunOp("GatherV2", {params, indices}, {{"axis", axis}, {"batch_dims", batch_dims}});
  ASSERT_TRUE(out.ok()) << out.status();
  const int bd = static_cast<int>(batch_dims < 0 ? batch_dims + ishape.rank() : batch_dims);
  std::vector<int64_t> dims(pshape.dims().begin(), pshape.dims().begin() + a);
  dims.insert(dims.end(), ishape.dims().begin() + bd, ishape.dims().end());
  dims.insert(dims.end(), pshape.dims().begin() + a + 1, pshape.dims().end());
  ASSERT_EQ(out->shape(), Shape(dims));
  std::vector<double> pv = ToDouble(params), iv = ToDouble(indices), want;
  for (int64_t i = 0; i < out->num_elements(); ++i) {
    std::vector<int64_t> o = Unflatten(i, dims);
    // o = params[:a] + indices[bd:] + params[a+1:]; the batch part is shared.
    std::vector<int64_t> ii(o.begin(), o.begin() + bd);
    ii.insert(ii.end(), o.begin() + a, o.begin() + a + (ishape.rank() - bd));
    std::vector<int64_t> pi(o.begin(), o.begin() + a);
    pi.push_back(static_cast<int64_t>(iv[Flatten(ii, ishape.dims())]));
    pi.insert(pi.end(), o.begin() + a + (ishape.rank() - bd), o.end());
    want.push_back(pv[Flatten(pi, pshape.dims())]);
  }
  ExpectClose(*out, want);
}

TEST(GatherTest, AxesBatchDimsAndDTypes) {
  CheckGather<float, int32_t>(Shape({5, 3}), Shape({4}), 0, 0);
  CheckGather<float, int64_t>(Shape({5, 3}), Shape({2, 2}), 1, 0);
  CheckGather<double, int32_t>(Shape({2, 6, 3}), Shape({3}), -2, 0);
  CheckGather<int32_t, int64_t>(Shape({4}), Shape({}), 0, 0);
  CheckGather<int64_t, int32_t>(Shape({3, 4, 5}), Shape({3, 2}), 1, 1);
  CheckGather<uint8_t, int64_t>(Shape({2, 3, 4}), Shape({2, 3, 2}), 2, -1);
  CheckGather<float, int32_t>(Shape({5, 3}), Shape({0}), 0, 0);
  CheckGather<float, int32_t>(Shape({200, 64}), Shape({50}), 0, 0);
}

TEST(GatherTest, StringsAndErrors) {
  auto s = RunOp("GatherV2", {MakeStrings(Shape({3}), {"a", "b", "c"}), Make<int32_t>(Shape({4}), {2, 0, 2, 1})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Strings(*s), (std::vector<std::string>{"c", "a", "c", "b"}));
  auto bad = RunOp("GatherV2", {Make<float>(Shape({3}), {1, 2, 3}), Make<int64_t>(Shape({2, 2}), {0, 1, 5, 2})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("node 'out' (GatherV2): indices[1,0] = 5 is not in [0, 3)"));
  auto neg = RunOp("GatherV2", {Make<float>(Shape({3}), {1, 2, 3}), Make<int32_t>(Shape({1}), {-1})});
  ASSERT_FALSE(neg.ok());
  EXPECT_THAT(neg.status().message(), HasSubstr("indices[0] = -1 is not in [0, 3)"));
  EXPECT_THAT(InferError("GatherV2", {TT(DType::kFloat32, {3}), TT(DType::kFloat32, {2})}),
              HasSubstr("node 'out' (GatherV2): indices dtype is float32"));
  EXPECT_THAT(InferError("GatherV2", {TT(DType::kFloat32, {3}), TT(DType::kInt32, {2})}, {{"axis", int64_t{1}}}),
              HasSubstr("axis 1 is out of range for a tensor of rank 1"));
  EXPECT_THAT(InferError("GatherV2", {TT(DType::kFloat32, {3, 4}), TT(DType::kInt32, {2, 2})},
                         {{"axis", int64_t{1}}, {"batch_dims", int64_t{1}}}),
              HasSubstr("differ in batch dimension 0"));
  EXPECT_THAT(InferError("GatherV2", {TT(DType::kFloat32, {3, 4}), TT(DType::kInt32, {3, 2})},
                         {{"axis", int64_t{0}}, {"batch_dims", int64_t{1}}}),
              HasSubstr("batch_dims (1) must be <= axis (0)"));
}

TEST(SliceTest, BeginAndSize) {
  std::mt19937 rng(2);
  Shape shape({4, 5, 3});
  Tensor x = Random<int32_t>(shape, rng, -50, 50);
  for (auto [begin, size] : std::vector<std::pair<IntList, IntList>>{
           {{0, 0, 0}, {4, 5, 3}}, {{1, 2, 0}, {2, -1, 2}}, {{3, 0, 1}, {1, 5, -1}},
           {{4, 0, 0}, {0, 5, 3}}, {{0, 1, 2}, {-1, 3, 1}}}) {
    auto out = RunOp("Slice", {x}, {{"begin", begin}, {"size", size}});
    ASSERT_TRUE(out.ok()) << out.status();
    std::vector<int64_t> dims;
    for (int k = 0; k < 3; ++k) dims.push_back(size[k] == -1 ? shape.dim(k) - begin[k] : size[k]);
    ASSERT_EQ(out->shape(), Shape(dims));
    std::vector<double> v = ToDouble(x), want;
    for (int64_t i = 0; i < out->num_elements(); ++i) {
      std::vector<int64_t> o = Unflatten(i, dims);
      for (int k = 0; k < 3; ++k) o[k] += begin[k];
      want.push_back(v[Flatten(o, shape.dims())]);
    }
    ExpectClose(*out, want);
  }
  auto s = RunOp("Slice", {MakeStrings(Shape({3}), {"a", "b", "c"})}, {{"begin", IntList{1}}, {"size", IntList{2}}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Strings(*s), (std::vector<std::string>{"b", "c"}));
  EXPECT_THAT(InferError("Slice", {TT(DType::kFloat32, {3})}, {{"begin", IntList{4}}, {"size", IntList{-1}}}),
              HasSubstr("node 'out' (Slice): expected begin[0] in [0, 3], got 4"));
  EXPECT_THAT(InferError("Slice", {TT(DType::kFloat32, {3})}, {{"begin", IntList{1}}, {"size", IntList{3}}}),
              HasSubstr("expected size[0] in [0, 2], got 3"));
  EXPECT_THAT(InferError("Slice", {TT(DType::kFloat32, {3, 2})}, {{"begin", IntList{1}}, {"size", IntList{1}}}),
              HasSubstr("begin and size have 1 entries but the input [3,2] has rank 2"));
}

// ONNX Slice with run-time bounds: negative and clamped bounds, steps, int32 and int64.
TEST(DynamicSliceTest, RunTimeBoundsStepsAndClamping) {
  Tensor x = Make<float>(Shape({3, 4}), {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  auto rows = RunOp("DynamicSlice", {x, Make<int64_t>(Shape({1}), {1}), Make<int64_t>(Shape({1}), {100})},
                    {{"axes", IntList{0}}});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->shape(), Shape({2, 4}));
  ExpectClose(*rows, {10, 11, 12, 13, 20, 21, 22, 23});
  auto back = RunOp("DynamicSlice", {x, Make<int32_t>(Shape({2}), {-1, -1}), Make<int32_t>(Shape({2}), {-4, -5})},
                    {{"axes", IntList{0, 1}}, {"steps", IntList{-2, -2}}});
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), Shape({2, 2}));
  ExpectClose(*back, {23, 21, 3, 1});
  auto empty = RunOp("DynamicSlice", {x, Make<int64_t>(Shape({1}), {3}), Make<int64_t>(Shape({1}), {1})},
                     {{"axes", IntList{1}}});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), Shape({3, 0}));
}

// TensorFlow's Fill with the dims as a run-time vector.
TEST(DynamicFillTest, DimsAtRunTime) {
  auto out = RunOp("DynamicFill", {Make<int32_t>(Shape({2}), {2, 3}), Make<float>(Shape({}), {0.5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({2, 3}));
  ExpectClose(*out, std::vector<double>(6, 0.5));
  auto ints = RunOp("DynamicFill", {Make<int64_t>(Shape({1}), {4}), Make<int64_t>(Shape({}), {7})});
  ASSERT_TRUE(ints.ok()) << ints.status();
  ExpectClose(*ints, {7, 7, 7, 7});
  auto none = RunOp("DynamicFill", {Make<int32_t>(Shape({2}), {0, 5}), Make<float>(Shape({}), {1})});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->shape(), Shape({0, 5}));
  EXPECT_FALSE(RunOp("DynamicFill", {Make<int32_t>(Shape({1}), {-1}), Make<float>(Shape({}), {1})}).ok());
}

TEST(SelectTest, BroadcastsAllThree) {
  std::mt19937 rng(3);
  for (auto [cs, ts, es] : std::vector<std::tuple<Shape, Shape, Shape>>{
           {Shape({2, 3}), Shape({2, 3}), Shape({2, 3})}, {Shape({}), Shape({4}), Shape({4})},
           {Shape({3, 1}), Shape({1, 4}), Shape({})}, {Shape({2, 1, 3}), Shape({5, 1}), Shape({3})},
           {Shape({0, 2}), Shape({2}), Shape({1})}, {Shape({100, 300}), Shape({300}), Shape({100, 1})}}) {
    Tensor c = Tensor::Allocate(DType::kBool, cs).value();
    for (bool& b : c.flat<bool>()) b = rng() % 2;
    Tensor t = Random<float>(ts, rng), e = Random<float>(es, rng);
    auto out = RunOp("SelectV2", {c, t, e});
    ASSERT_TRUE(out.ok()) << out.status();
    PartialShape want_shape = BroadcastShapes(cs, BroadcastShapes(ts, es).value()).value();
    ASSERT_EQ(out->shape(), want_shape.ToShape());
    const std::vector<int64_t>& dims = want_shape.dims();
    const std::vector<double> cv = ToDouble(c), tv = ToDouble(t), ev = ToDouble(e);
    auto at = [&](const Tensor& x, const std::vector<double>& v, const std::vector<int64_t>& o) {
      std::vector<int64_t> idx(o.end() - x.shape().rank(), o.end());
      for (int k = 0; k < x.shape().rank(); ++k) {
        if (x.shape().dim(k) == 1) idx[k] = 0;
      }
      return v[Flatten(idx, x.shape().dims())];
    };
    std::vector<double> want;
    for (int64_t i = 0; i < out->num_elements(); ++i) {
      std::vector<int64_t> o = Unflatten(i, dims);
      want.push_back(at(c, cv, o) != 0 ? at(t, tv, o) : at(e, ev, o));
    }
    EXPECT_EQ(ToDouble(*out), want);
  }
  auto s = RunOp("SelectV2", {MakeBool(Shape({2}), {1, 0}), MakeStrings(Shape({2}), {"t1", "t2"}),
                              MakeStrings(Shape(), {"e"})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Strings(*s), (std::vector<std::string>{"t1", "e"}));
  EXPECT_THAT(InferError("SelectV2", {TT(DType::kInt32, {2}), TT(DType::kFloat32, {2}), TT(DType::kFloat32, {2})}),
              HasSubstr("node 'out' (SelectV2): condition must be bool, got int32"));
  EXPECT_THAT(InferError("SelectV2", {TT(DType::kBool, {2}), TT(DType::kFloat32, {2}), TT(DType::kInt32, {2})}),
              HasSubstr("t is float32 but e is int32"));
  EXPECT_THAT(InferError("SelectV2", {TT(DType::kBool, {3}), TT(DType::kFloat32, {2}), TT(DType::kFloat32, {2})}),
              HasSubstr("node 'out' (SelectV2)"));
}

TEST(OneHotTest, AxesDTypesAndValues) {
  Tensor idx = Make<int32_t>(Shape({2, 2}), {0, 2, -1, 3});
  for (int64_t axis : {-1, 0, 1, 2}) {
    auto out = RunOp("OneHot", {idx}, {{"depth", int64_t{3}}, {"axis", axis},
                                       {"on_value", 5.0f}, {"off_value", -1.0f}});
    ASSERT_TRUE(out.ok()) << out.status();
    const int a = axis == -1 ? 2 : static_cast<int>(axis);
    std::vector<int64_t> dims = {2, 2};
    dims.insert(dims.begin() + a, 3);
    ASSERT_EQ(out->shape(), Shape(dims));
    EXPECT_EQ(out->dtype(), DType::kFloat32);
    std::vector<double> want;
    for (int64_t i = 0; i < out->num_elements(); ++i) {
      std::vector<int64_t> o = Unflatten(i, dims);
      int64_t k = o[a];
      o.erase(o.begin() + a);
      want.push_back(idx.data<int32_t>()[Flatten(o, {2, 2})] == k ? 5 : -1);
    }
    ExpectClose(*out, want);
  }
  auto ints = RunOp("OneHot", {Make<int64_t>(Shape({3}), {1, 0, 1})},
                    {{"depth", int64_t{2}}, {"dtype", DType::kInt32}});
  ASSERT_TRUE(ints.ok()) << ints.status();
  EXPECT_EQ(ints->dtype(), DType::kInt32);
  ExpectClose(*ints, {0, 1, 1, 0, 0, 1});
  auto bools = RunOp("OneHot", {Make<uint8_t>(Shape({2}), {1, 0})},
                     {{"depth", int64_t{2}}, {"dtype", DType::kBool}});
  ASSERT_TRUE(bools.ok()) << bools.status();
  ExpectClose(*bools, {0, 1, 1, 0});
  EXPECT_THAT(InferError("OneHot", {TT(DType::kFloat32, {2})}, {{"depth", int64_t{2}}}),
              HasSubstr("node 'out' (OneHot): indices dtype is float32"));
  EXPECT_THAT(InferError("OneHot", {TT(DType::kInt32, {2})}, {{"depth", int64_t{2}}, {"axis", int64_t{2}}}),
              HasSubstr("axis 2 must be -1 or in [0, 1]"));
  EXPECT_THAT(InferError("OneHot", {TT(DType::kInt32, {2})}, {{"depth", int64_t{-1}}}),
              HasSubstr("depth must be >= 0"));
}

}  // namespace
}  // namespace graphd::executor::test
