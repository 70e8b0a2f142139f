// Min, Prod, Any, All (and the int axis form of every reduction), ArgMax / ArgMin and
// Cumsum against reference loops, with negative axes, keep_dims, empty tensors and the
// oneDNN path for float32.
#include <functional>
#include <limits>
#include <set>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

// Reference reduction of `x` over `axes` (canonical) with `combine` from `init`.
std::vector<double> RefReduce(const Tensor& x, const std::set<int>& axes, double init,
                              const std::function<double(double, double)>& combine) {
  const std::vector<int64_t>& dims = x.shape().dims();
  std::vector<int64_t> out_dims;
  for (size_t k = 0; k < dims.size(); ++k) out_dims.push_back(axes.contains(k) ? 1 : dims[k]);
  int64_t n_out = 1;
  for (int64_t d : out_dims) n_out *= d;
  std::vector<double> acc(n_out, init), v = ToDouble(x);
  for (size_t i = 0; i < v.size(); ++i) {
    std::vector<int64_t> index = Unflatten(static_cast<int64_t>(i), dims);
    for (int a : axes) index[a] = 0;
    int64_t o = Flatten(index, out_dims);
    acc[o] = combine(acc[o], v[i]);
  }
  return acc;
}

struct Case {
  Shape shape;
  std::vector<int64_t> axes;  // empty with all = true: every axis
  bool all = false;
};

const std::vector<Case> kCases = {
    {Shape({3, 4}), {1}},       {Shape({3, 4}), {-2}},        {Shape({2, 3, 4}), {0, -1}},
    {Shape({5}), {}, true},     {Shape({0, 3}), {0}},         {Shape({4, 0}), {1}},
    {Shape({2, 3, 4}), {}, true}, {Shape({64, 80}), {1}},     {Shape({16, 8, 40}), {0, 2}},
};

template <typename T>
void CheckReduction(const std::string& op, double init,
                    const std::function<double(double, double)>& combine, double rtol) {
  std::mt19937 rng(1);
  for (const Case& c : kCases) {
    for (bool keep : {false, true}) {
      Tensor x = op == "Prod" ? Random<T>(c.shape, rng, 0.9, 1.1) : Random<T>(c.shape, rng, -9, 9);
      if (std::is_integral_v<T> && op == "Prod") x = Random<T>(c.shape, rng, -1, 1);
      AttrMap attrs{{"keep_dims", keep}};
      if (!c.all) attrs["axis"] = IntList(c.axes);
      SCOPED_TRACE(absl::StrCat(op, " ", x.DebugString(), " axes ", absl::StrJoin(c.axes, ","),
                                " keep ", keep));
      auto out = RunOp(op, {x}, attrs);
      ASSERT_TRUE(out.ok()) << out.status();
      std::set<int> axes;
      for (int k = 0; k < c.shape.rank(); ++k) {
        if (c.all) axes.insert(k);
      }
      for (int64_t a : c.axes) axes.insert(static_cast<int>(a < 0 ? a + c.shape.rank() : a));
      std::vector<int64_t> want_dims;
      for (int k = 0; k < c.shape.rank(); ++k) {
        if (!axes.contains(k)) {
          want_dims.push_back(c.shape.dim(k));
        } else if (keep) {
          want_dims.push_back(1);
        }
      }
      EXPECT_EQ(out->shape(), Shape(want_dims));
      ExpectClose(*out, RefReduce(x, axes, init, combine), rtol, rtol);
    }
  }
}

const double kInf = std::numeric_limits<double>::infinity();
auto kMin = [](double a, double b) { return std::min(a, b); };
auto kProd = [](double a, double b) { return a * b; };

TEST(ReductionOpsTest, MinAllDTypes) {
  CheckReduction<float>("Min", kInf, kMin, 0);
  CheckReduction<double>("Min", kInf, kMin, 0);
  CheckReduction<int32_t>("Min", std::numeric_limits<int32_t>::max(), kMin, 0);
  CheckReduction<int64_t>("Min", static_cast<double>(std::numeric_limits<int64_t>::max()), kMin, 0);
  CheckReduction<uint8_t>("Min", 255, kMin, 0);
}

TEST(ReductionOpsTest, ProdAllDTypes) {
  CheckReduction<float>("Prod", 1, kProd, 1e-4);
  CheckReduction<double>("Prod", 1, kProd, 1e-12);
  CheckReduction<int32_t>("Prod", 1, kProd, 0);
  CheckReduction<int64_t>("Prod", 1, kProd, 0);
  CheckReduction<int8_t>("Prod", 1, kProd, 0);
}

// float32 Sum and Mean over one block of axes with kept axes after it (graphd's own
// loops: Keras' global average pool over NHWC's H and W, a mean over a leading axis):
// column counts around the 64-column tasks, several outer blocks, the team's split.
TEST(ReductionOpsTest, SumAndMeanOverAMiddleBlockOfAxes) {
  const std::vector<Case> cases = {
      {Shape({1, 56, 56, 48}), {1, 2}}, {Shape({197, 70}), {0}},     {Shape({3, 5, 7, 130}), {1, 2}},
      {Shape({2, 3, 4}), {1}},          {Shape({4, 9, 64}), {-2}},   {Shape({2, 300, 1, 65}), {1, 2}},
  };
  std::mt19937 rng(3);
  for (const Case& c : cases) {
    for (const std::string op : {"Sum", "Mean"}) {
      for (bool keep : {false, true}) {
        Tensor x = Random<float>(c.shape, rng, -9, 9);
        SCOPED_TRACE(absl::StrCat(op, " ", x.DebugString(), " axes ", absl::StrJoin(c.axes, ","), " keep ", keep));
        auto out = RunOp(op, {x}, {{"axis", IntList(c.axes)}, {"keep_dims", keep}});
        ASSERT_TRUE(out.ok()) << out.status();
        std::set<int> axes;
        int64_t count = 1;
        for (int64_t a : c.axes) {
          const int k = static_cast<int>(a < 0 ? a + c.shape.rank() : a);
          axes.insert(k);
          count *= c.shape.dim(k);
        }
        std::vector<double> want = RefReduce(x, axes, 0, [](double a, double b) { return a + b; });
        if (op == "Mean") {
          for (double& v : want) v /= static_cast<double>(count);
        }
        ASSERT_EQ(out->num_elements(), static_cast<int64_t>(want.size()));
        ExpectClose(*out, want, 1e-6, 1e-5);
      }
    }
  }
}

TEST(ReductionOpsTest, AnyAll) {
  std::mt19937 rng(2);
  for (const Case& c : kCases) {
    Tensor x = Tensor::Allocate(DType::kBool, c.shape).value();
    for (bool& b : x.flat<bool>()) b = rng() % 4 == 0;
    AttrMap attrs;
    if (!c.all) attrs["axis"] = IntList(c.axes);
    std::set<int> axes;
    for (int k = 0; k < c.shape.rank(); ++k) {
      if (c.all) axes.insert(k);
    }
    for (int64_t a : c.axes) axes.insert(static_cast<int>(a < 0 ? a + c.shape.rank() : a));
    auto any = RunOp("Any", {x}, attrs);
    auto all = RunOp("All", {x}, attrs);
    ASSERT_TRUE(any.ok() && all.ok()) << any.status() << all.status();
    EXPECT_EQ(any->dtype(), DType::kBool);
    ExpectClose(*any, RefReduce(x, axes, 0, [](double a, double b) { return double(a || b); }));
    ExpectClose(*all, RefReduce(x, axes, 1, [](double a, double b) { return double(a && b); }));
  }
}

TEST(ReductionOpsTest, IntAxisAndExistingReductions) {
  Tensor x = Make<float>(Shape({2, 3}), {1, 2, 3, 4, 5, 6});
  auto sum = RunOp("Sum", {x}, {{"axis", int64_t{-1}}});
  ASSERT_TRUE(sum.ok()) << sum.status();
  ExpectClose(*sum, {6, 15});
  auto max = RunOp("Max", {x}, {{"axis", int64_t{0}}, {"keep_dims", true}});
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_EQ(max->shape(), Shape({1, 3}));
  ExpectClose(*max, {4, 5, 6});
  auto empty_min = RunOp("Min", {Make<float>(Shape({0}), {})});
  ASSERT_TRUE(empty_min.ok());
  ExpectClose(*empty_min, {kInf});
  auto empty_prod = RunOp("Prod", {Make<int32_t>(Shape({0}), {})});
  ASSERT_TRUE(empty_prod.ok());
  ExpectClose(*empty_prod, {1});
}

template <typename T>
void CheckArg(const std::string& op, DType out_type) {
  std::mt19937 rng(5);
  for (auto [shape, axis] : std::vector<std::pair<Shape, int64_t>>{
           {Shape({7}), 0}, {Shape({3, 5}), 1}, {Shape({3, 5}), -2}, {Shape({2, 3, 4}), 1},
           {Shape({0, 4}), 1}, {Shape({6, 50}), -1}}) {
    // Few distinct values so ties occur: the first index must win.
    Tensor x = Random<T>(shape, rng, 0, 3);
    AttrMap attrs{{"axis", axis}};
    if (out_type != DType::kInvalid) attrs["output_type"] = out_type;
    auto out = RunOp(op, {x}, attrs);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->dtype(), out_type == DType::kInvalid ? DType::kInt64 : out_type);
    const int a = static_cast<int>(axis < 0 ? axis + shape.rank() : axis);
    std::vector<int64_t> dims = shape.dims(), out_dims = dims;
    out_dims.erase(out_dims.begin() + a);
    int64_t n_out = 1;
    for (int64_t d : out_dims) n_out *= d;
    std::vector<double> v = ToDouble(x), want(n_out);
    for (int64_t o = 0; o < n_out; ++o) {
      std::vector<int64_t> index = Unflatten(o, out_dims);
      index.insert(index.begin() + a, 0);
      int64_t best = 0;
      for (int64_t j = 1; j < dims[a]; ++j) {
        index[a] = j;
        double cur = v[Flatten(index, dims)];
        index[a] = best;
        double b = v[Flatten(index, dims)];
        if (op == "ArgMax" ? cur > b : cur < b) best = j;
      }
      want[o] = static_cast<double>(best);
    }
    ExpectClose(*out, want);
  }
}

TEST(ReductionOpsTest, SumToShapeOfSumsBroadcastDimensions) {
  auto g = Tensor::FromVector<float>(Shape({2, 2, 3}), std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  ASSERT_TRUE(g.ok());
  auto like = Tensor::FromVector<float>(Shape({2, 1}), std::vector<float>{0, 0});
  ASSERT_TRUE(like.ok());
  // [2, 2, 3] to [2, 1]: the leading dim is summed away, the last one summed to 1.
  auto out = RunOp("SumToShapeOf", {*g, *like});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({2, 1}));
  ExpectClose(*out, {1 + 2 + 3 + 7 + 8 + 9, 4 + 5 + 6 + 10 + 11 + 12});
  auto same = RunOp("SumToShapeOf", {*g, *g});
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->shape(), g->shape());
  auto bad = RunOp("SumToShapeOf", {*g, *Tensor::FromVector<float>(Shape({4}), std::vector<float>{0, 0, 0, 0})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("is not a broadcast of [4]"));
}

TEST(ArgReduceTest, ArgMaxArgMin) {
  CheckArg<float>("ArgMax", DType::kInvalid);
  CheckArg<double>("ArgMin", DType::kInt32);
  CheckArg<int32_t>("ArgMax", DType::kInt32);
  CheckArg<int64_t>("ArgMin", DType::kInt64);
  CheckArg<uint8_t>("ArgMax", DType::kInt64);
}

TEST(ArgReduceTest, EmptyAxisAndBadAttrs) {
  EXPECT_THAT(InferError("ArgMax", {TT(DType::kFloat32, {0, 3})}, {{"axis", int64_t{0}}}),
              HasSubstr("node 'out' (ArgMax): cannot reduce over axis 0, which is empty"));
  EXPECT_THAT(InferError("ArgMax", {TT(DType::kFloat32, {2, 3})}, {{"axis", int64_t{2}}}),
              HasSubstr("axis 2 is out of range for a tensor of rank 2"));
  EXPECT_THAT(InferError("ArgMin", {TT(DType::kFloat32, {2})}, {{"output_type", DType::kFloat32}}),
              HasSubstr("output_type is float32"));
  // Unknown at graph time, empty at run time.
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kFloat32, PartialShape(std::vector<int64_t>{-1, 2}));
  ASSERT_TRUE(g.AddNode({.name = "am", .op = "ArgMax", .inputs = {{x, 0}}}).ok());
  auto r = RunGraph(g, {{"x", Make<float>(Shape({0, 2}), {})}}, {"am"});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("node 'am' (ArgMax): cannot reduce over axis 0"));
  // An input dtype the CPU does not compute in fails when the plan is built.
  Graph h;
  const Node* half = AddPlaceholder(h, "h", DType::kFloat16, PartialShape(std::vector<int64_t>{2}));
  ASSERT_TRUE(h.AddNode({.name = "am", .op = "ArgMax", .inputs = {{half, 0}}}).ok());
  auto plan = RunGraph(h, {{"h", Tensor::Allocate(DType::kFloat16, Shape({2})).value()}}, {"am"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(plan.status().message(), HasSubstr("no CPU kernel for ArgMax on float16 inputs"));
}

template <typename T>
void CheckCumsum() {
  std::mt19937 rng(8);
  for (auto [shape, axis] : std::vector<std::pair<Shape, int64_t>>{
           {Shape({6}), 0}, {Shape({3, 4}), 1}, {Shape({3, 4}), -2}, {Shape({2, 3, 4}), 1},
           {Shape({0, 3}), 0}, {Shape({2, 0}), 1}}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        Tensor x = Random<T>(shape, rng, -9, 9);
        auto out = RunOp("Cumsum", {x},
                         {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}});
        ASSERT_TRUE(out.ok()) << out.status();
        const int a = static_cast<int>(axis < 0 ? axis + shape.rank() : axis);
        std::vector<double> v = ToDouble(x), want(v.size());
        for (size_t i = 0; i < v.size(); ++i) {
          std::vector<int64_t> index = Unflatten(static_cast<int64_t>(i), shape.dims());
          const int64_t pos = index[a];
          double s = 0;
          for (int64_t j = 0; j < shape.dim(a); ++j) {
            bool take = reverse ? (exclusive ? j > pos : j >= pos) : (exclusive ? j < pos : j <= pos);
            index[a] = j;
            if (take) s += v[Flatten(index, shape.dims())];
          }
          want[i] = s;
        }
        ExpectClose(*out, want, 1e-5, 1e-5);
      }
    }
  }
}

TEST(CumsumTest, AllModes) {
  CheckCumsum<float>();
  CheckCumsum<double>();
  CheckCumsum<int32_t>();
  CheckCumsum<int64_t>();
}

TEST(ReductionOpsTest, InferenceErrors) {
  EXPECT_THAT(InferError("Any", {TT(DType::kFloat32, {2})}),
              HasSubstr("node 'out' (Any): input dtype is float32, expected one of (bool)"));
  EXPECT_THAT(InferError("Prod", {TT(DType::kBool, {2})}), HasSubstr("node 'out' (Prod)"));
  EXPECT_THAT(InferError("Min", {TT(DType::kFloat32, {2, 3})}, {{"axis", IntList{1, -1}}}),
              HasSubstr("axis -1 given twice"));
  EXPECT_THAT(InferError("Sum", {TT(DType::kFloat32, {2, 3})}, {{"axis", IntList{-3}}}),
              HasSubstr("axis -3 is out of range for a tensor of rank 2"));
  EXPECT_THAT(InferError("Cumsum", {TT(DType::kInt32, {})}),
              HasSubstr("node 'out' (Cumsum): axis 0 is out of range for a tensor of rank 0"));
  EXPECT_THAT(InferError("Cumsum", {TT(DType::kString, {3})}), HasSubstr("string is not supported"));
}

}  // namespace
}  // namespace graphd::executor::test
