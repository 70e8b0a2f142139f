// Maximum, Minimum, Max and Min with NaNs: NaN in, NaN out, as TensorFlow computes them
// (executor/cpu/nan_min_max.h), whichever operand holds the NaN and whichever path a
// shape takes: the broadcast loops, shapes that oneDNN's JIT kernels would take (they
// return the other operand), FusedElementwise, and every branch of the reductions
// (rows, narrow and wide columns, slices split across the team, several blocks of
// axes, all axes). Values without NaN against a plain reference.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor Filled(const Shape& shape, float v) {
  Tensor t = Tensor::Allocate(DType::kFloat32, shape).value();
  for (float& x : t.flat<float>()) x = v;
  return t;
}

// Maximum / Minimum of x (NaN at the listed positions, else v) and y (filled with w),
// in both operand orders: NaN exactly where x has one.
void ExpectBinaryNaN(const std::string& op, const Shape& xs, const Shape& ys, const std::vector<int64_t>& nans) {
  SCOPED_TRACE(absl::StrCat(op, " ", xs.ToString(), " with ", ys.ToString()));
  Tensor x = Filled(xs, 1.f);
  for (int64_t i : nans) x.data<float>()[i] = kNaN;
  const Tensor y = Filled(ys, 5.f);
  for (bool x_first : {true, false}) {
    auto out = x_first ? RunOp(op, {x, y}) : RunOp(op, {y, x});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->shape(), xs);
    const float other = op == "Maximum" ? 5.f : 1.f;
    int64_t wrong = 0, first_wrong = -1;
    std::vector<bool> is_nan(xs.num_elements(), false);
    for (int64_t i : nans) is_nan[i] = true;
    for (int64_t i = 0; i < xs.num_elements(); ++i) {
      const float v = out->data<float>()[i];
      const bool ok = is_nan[i] ? std::isnan(v) : v == other;
      if (!ok && wrong++ == 0) first_wrong = i;
    }
    EXPECT_EQ(wrong, 0) << (x_first ? "op(x, y)" : "op(y, x)") << ": first at " << first_wrong << " = "
                        << out->data<float>()[first_wrong];
  }
}

TEST(NaNMinMaxTest, MaximumAndMinimumPropagateNaNOnEveryPath) {
  for (const char* op : {"Maximum", "Minimum"}) {
    ExpectBinaryNaN(op, Shape({7}), Shape({7}), {0, 3, 6});                     // small, same shape
    ExpectBinaryNaN(op, Shape({7}), Shape({}), {2});                            // scalar operand
    ExpectBinaryNaN(op, Shape({70001}), Shape({70001}), {0, 15, 16, 70000});     // large, same shape
    ExpectBinaryNaN(op, Shape({64, 300}), Shape({300}), {0, 299, 300, 19199});    // row broadcast
    ExpectBinaryNaN(op, Shape({64, 300}), Shape({64, 1}), {1, 301, 19198});       // column broadcast
    ExpectBinaryNaN(op, Shape({4, 6, 2, 1200}), Shape({1, 6, 1, 1200}), {0, 1201, 57599});
    ExpectBinaryNaN(op, Shape({4, 6, 2, 1200}), Shape({1, 1, 1, 1200}), {0, 1201, 57599});
  }
}

TEST(NaNMinMaxTest, MaximumKeepsItsValuesAndInfinities) {
  const Tensor x = Make<float>(Shape({6}), {-kInf, kInf, -0.f, 3.f, -2.f, 1e30f});
  const Tensor y = Make<float>(Shape({6}), {1.f, 1.f, 0.f, -3.f, -1.f, -1e30f});
  auto mx = RunOp("Maximum", {x, y});
  auto mn = RunOp("Minimum", {x, y});
  ASSERT_TRUE(mx.ok() && mn.ok());
  EXPECT_THAT(mx->flat<float>(), ::testing::ElementsAre(1.f, kInf, 0.f, 3.f, -1.f, 1e30f));
  EXPECT_THAT(mn->flat<float>(), ::testing::ElementsAre(-kInf, 1.f, 0.f, -3.f, -2.f, -1e30f));
  // Integers as before.
  auto ints = RunOp("Maximum", {Make<int32_t>(Shape({3}), {1, -5, 7}), Make<int32_t>(Shape({3}), {2, -6, 7})});
  ASSERT_TRUE(ints.ok());
  EXPECT_THAT(ints->flat<int32_t>(), ::testing::ElementsAre(2, -5, 7));
  // float64 and float16 take the same loops (float16 through float32).
  for (DType dt : {DType::kFloat64, DType::kFloat16}) {
    auto a = RunOp("Cast", {Make<float>(Shape({3}), {kNaN, 1.f, 2.f})}, {{"DstT", dt}});
    auto b = RunOp("Cast", {Make<float>(Shape({3}), {0.f, kNaN, 1.f})}, {{"DstT", dt}});
    ASSERT_TRUE(a.ok() && b.ok());
    auto m = RunOp("Maximum", {*a, *b});
    ASSERT_TRUE(m.ok()) << m.status();
    auto back = RunOp("Cast", {*m}, {{"DstT", DType::kFloat32}});
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(std::isnan(back->data<float>()[0]) && std::isnan(back->data<float>()[1])) << DTypeName(dt);
    EXPECT_EQ(back->data<float>()[2], 2.f) << DTypeName(dt);
  }
}

TEST(NaNMinMaxTest, FusedElementwiseMaximumPropagatesNaN) {
  for (int64_t n : {int64_t{5}, int64_t{70001}}) {
    Tensor x = Filled(Shape({n}), 1.f);
    x.data<float>()[0] = kNaN;
    x.data<float>()[n - 1] = kNaN;
    for (const char* program : {"Maximum x0 #3", "Maximum #3 x0", "Minimum x0 #-3", "Minimum #-3 x0"}) {
      auto out = RunOp("FusedElementwise", {x}, {{"program", std::string(program)}});
      ASSERT_TRUE(out.ok()) << out.status();
      SCOPED_TRACE(absl::StrCat(program, " n=", n));
      EXPECT_TRUE(std::isnan(out->data<float>()[0]));
      EXPECT_TRUE(std::isnan(out->data<float>()[n - 1]));
      if (n > 2) EXPECT_EQ(std::abs(out->data<float>()[1]), 3.f);
    }
  }
}

// max / min over `axes` of x [dims], TensorFlow's way: NaN when the slice holds one,
// -inf / +inf for an empty slice.
std::vector<float> Reference(bool max, const Tensor& x, const std::vector<int64_t>& axes) {
  const std::vector<int64_t> dims = x.shape().dims();
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t a : axes) reduced[a < 0 ? a + static_cast<int64_t>(dims.size()) : a] = true;
  std::vector<int64_t> out_dims;
  for (size_t d = 0; d < dims.size(); ++d) out_dims.push_back(reduced[d] ? 1 : dims[d]);
  int64_t n_out = 1;
  for (int64_t d : out_dims) n_out *= d;
  std::vector<float> out(n_out, max ? -kInf : kInf);
  std::vector<bool> nan(n_out, false);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    std::vector<int64_t> index = Unflatten(i, dims);
    for (size_t d = 0; d < dims.size(); ++d) {
      if (reduced[d]) index[d] = 0;
    }
    const int64_t o = Flatten(index, out_dims);
    const float v = x.data<float>()[i];
    if (std::isnan(v)) nan[o] = true;
    out[o] = max ? std::max(out[o], v) : std::min(out[o], v);
  }
  for (int64_t o = 0; o < n_out; ++o) {
    if (nan[o]) out[o] = kNaN;
  }
  return out;
}

// x: uniform values, each NaN with probability `nan_fraction`; with `ends`, also the
// first and the last value (the first of a slice, the last of another, and for a single
// long slice split over the team, one in its last piece).
void ExpectReduction(const Shape& shape, const std::vector<int64_t>& axes, double nan_fraction, bool ends) {
  std::mt19937 rng(static_cast<uint32_t>(shape.num_elements() + axes.size()));
  std::uniform_real_distribution<float> value(-100.f, 100.f);
  std::uniform_real_distribution<double> coin(0, 1);
  Tensor x = Tensor::Allocate(DType::kFloat32, shape).value();
  for (float& v : x.flat<float>()) v = coin(rng) < nan_fraction ? kNaN : value(rng);
  if (ends && x.num_elements() > 0) {
    x.data<float>()[0] = kNaN;
    x.data<float>()[x.num_elements() - 1] = kNaN;
  }
  for (const char* op : {"Max", "Min"}) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE(absl::StrCat(op, " over ", absl::StrJoin(axes, ","), " of ", shape.ToString(), keep ? " keep" : "",
                                " NaN fraction ", nan_fraction, ends ? " and at the ends" : ""));
      auto out = RunOp(op, {x}, {{"axis", IntList(axes.begin(), axes.end())}, {"keep_dims", keep}});
      ASSERT_TRUE(out.ok()) << out.status();
      const std::vector<float> want = Reference(std::string(op) == "Max", x, axes);
      ASSERT_EQ(out->num_elements(), static_cast<int64_t>(want.size()));
      int64_t wrong = 0, first = -1;
      for (size_t i = 0; i < want.size(); ++i) {
        const float g = out->data<float>()[i];
        const bool ok = std::isnan(want[i]) ? std::isnan(g) : g == want[i];
        if (!ok && wrong++ == 0) first = static_cast<int64_t>(i);
      }
      EXPECT_EQ(wrong, 0) << "first at " << first << ": got " << out->data<float>()[first] << ", want "
                          << want[first];
    }
  }
}

TEST(NaNMinMaxTest, MaxAndMinReductionsPropagateNaNOnEveryBranch) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {Shape({2, 2}), {0}},                // the small loop
      {Shape({256, 1024}), {1}},           // rows (inner 1), split by row on the team
      {Shape({1, 300000}), {1}},           // one long row split into pieces
      {Shape({300000}), {0}},              // all axes of a vector
      {Shape({3, 1000, 5}), {1}},          // narrow columns (inner 5)
      {Shape({1, 40000, 3}), {1}},         // narrow columns, one slice in pieces
      {Shape({1, 56, 56, 96}), {1, 2}},    // NHWC global max pool: wide columns
      {Shape({700, 130}), {0}},            // a leading axis, columns not a block multiple
      {Shape({16, 256, 64}), {0, 2}},      // two separate blocks: the strided loop
      {Shape({4, 5, 6}), {-1, 0}},         // negative axes, two blocks
      {Shape({8, 9, 10}), {0, 1, 2}},      // every axis
      {Shape({7, 1, 3}), {1}},             // a reduced dim of size 1
  };
  for (const auto& [shape, axes] : cases) {
    ExpectReduction(shape, axes, 0.0, false);   // no NaN: exact values
    ExpectReduction(shape, axes, 0.0, true);    // NaN only at the two ends
    ExpectReduction(shape, axes, 0.0005, false);  // a few slices with one
    ExpectReduction(shape, axes, 0.05, true);
  }
  ExpectReduction(Shape({64, 64}), {1}, 1.0, false);  // every slice wholly NaN
  // The empty reduction's identity.
  auto empty = RunOp("Max", {Tensor::Allocate(DType::kFloat32, Shape({3, 0})).value()}, {{"axis", IntList{1}}});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_THAT(empty->flat<float>(), ::testing::Each(-kInf));
}

TEST(NaNMinMaxTest, Float64ReductionsPropagateNaN) {
  auto x = RunOp("Cast", {Make<float>(Shape({2, 3}), {1.f, kNaN, 2.f, 4.f, 5.f, 6.f})}, {{"DstT", DType::kFloat64}});
  ASSERT_TRUE(x.ok());
  auto mx = RunOp("Max", {*x}, {{"axis", IntList{1}}});
  ASSERT_TRUE(mx.ok()) << mx.status();
  EXPECT_TRUE(std::isnan(mx->data<double>()[0]));
  EXPECT_EQ(mx->data<double>()[1], 6.0);
}

}  // namespace
}  // namespace graphd::executor::test
