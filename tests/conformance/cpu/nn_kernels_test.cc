// CPU kernels for activations, softmax and reductions, checked against reference loops
// on both the plain-loop and the oneDNN paths.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tests/conformance/cpu/test_util.h"
#include "gtest/gtest.h"

namespace graphd::executor::test {
namespace {

std::vector<double> RefActivation(const std::string& op, const Tensor& x) {
  std::vector<double> v = ToDouble(x), out(v.size());
  if (op == "Softmax") {
    int64_t inner = x.shape().dim(x.shape().rank() - 1);
    for (size_t row = 0; row * inner < v.size(); ++row) {
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t i = 0; i < inner; ++i) mx = std::max(mx, v[row * inner + i]);
      for (int64_t i = 0; i < inner; ++i) sum += std::exp(v[row * inner + i] - mx);
      for (int64_t i = 0; i < inner; ++i)
        out[row * inner + i] = std::exp(v[row * inner + i] - mx) / sum;
    }
    return out;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    if (op == "Relu") out[i] = std::max(v[i], 0.0);
    if (op == "Sigmoid") out[i] = 1.0 / (1.0 + std::exp(-v[i]));
    if (op == "Tanh") out[i] = std::tanh(v[i]);
  }
  return out;
}

template <typename T>
void CheckActivations(const std::vector<Shape>& shapes) {
  std::mt19937 rng(11);
  for (const Shape& shape : shapes) {
    Tensor x = Random<T>(shape, rng, -4, 4);
    for (const char* op : {"Relu", "Sigmoid", "Tanh", "Softmax"}) {
      SCOPED_TRACE(absl::StrCat(op, " ", x.DebugString()));
      auto out = RunOp(op, {x});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(out->dtype(), DTypeOf<T>::value);
      EXPECT_EQ(out->shape(), shape);
      ExpectClose(*out, RefActivation(op, x), 1e-5, 1e-5);
    }
  }
}

TEST(ActivationKernelTest, Float32BelowDnnlThreshold) {
  CheckActivations<float>({Shape({3, 5}), Shape({63}), Shape({1})});
}

TEST(ActivationKernelTest, Float32Dnnl) {
  CheckActivations<float>({Shape({64}), Shape({8, 33}), Shape({2, 3, 20}), Shape({4, 1000})});
}

TEST(ActivationKernelTest, Float64) { CheckActivations<double>({Shape({4, 7}), Shape({3, 50})}); }

TEST(ActivationKernelTest, ScalarRelu) {
  auto out = RunOp("Relu", {Tensor::Scalar<float>(-2.0f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape());
  EXPECT_EQ(out->data<float>()[0], 0.0f);
}

// Softmax and LogSoftmax against a double reference: one row and many, on one thread
// and across the team (a transformer's [heads, seq, seq], a classifier's [64, 1000],
// rows wider than a vector); then rows with non-finite values, as TensorFlow gives
// them (a NaN or +inf in a row makes it NaN; -inf gives 0; a row of -inf is NaN).
TEST(ActivationKernelTest, SoftmaxAndLogSoftmaxMatchTheReference) {
  std::mt19937 rng(17);
  for (const Shape& shape : {Shape({1}), Shape({1, 7}), Shape({4, 64, 64}), Shape({64, 1000}), Shape({3, 40001})}) {
    Tensor x = Random<float>(shape, rng, -20, 20);
    const int64_t inner = shape.dim(shape.rank() - 1);
    const std::vector<double> v = ToDouble(x);
    std::vector<double> soft(v.size()), logsoft(v.size());
    for (size_t row = 0; row * inner < v.size(); ++row) {
      const double* xr = v.data() + row * inner;
      const double mx = *std::max_element(xr, xr + inner);
      double sum = 0;
      for (int64_t i = 0; i < inner; ++i) sum += std::exp(xr[i] - mx);
      for (int64_t i = 0; i < inner; ++i) {
        soft[row * inner + i] = std::exp(xr[i] - mx) / sum;
        logsoft[row * inner + i] = xr[i] - mx - std::log(sum);
      }
    }
    SCOPED_TRACE(shape.ToString());
    auto s = RunOp("Softmax", {x});
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_EQ(s->shape(), shape);
    ExpectClose(*s, soft, 1e-6, 1e-5);
    auto l = RunOp("LogSoftmax", {x});
    ASSERT_TRUE(l.ok()) << l.status();
    ExpectClose(*l, logsoft, 1e-5, 1e-6);
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t width : {3, 70}) {  // the loops for tiny tensors, oneDNN past them
    std::vector<float> v(4 * width, 0.0f);
    v[1] = nan;                               // row 0: a NaN
    v[width + 1] = inf;                       // row 1: +inf
    v[2 * width + 1] = -inf;                  // row 2: -inf among finite values
    for (int64_t i = 0; i < width; ++i) v[3 * width + i] = -inf;  // row 3: all -inf
    Tensor x = Make<float>(Shape({4, width}), v);
    auto s = RunOp("Softmax", {x});
    auto l = RunOp("LogSoftmax", {x});
    ASSERT_TRUE(s.ok() && l.ok());
    const float* ps = s->data<float>();
    const float* pl = l->data<float>();
    SCOPED_TRACE(absl::StrCat("width ", width));
    for (int64_t i = 0; i < 2 * width; ++i) {
      EXPECT_TRUE(std::isnan(ps[i])) << i;
      EXPECT_TRUE(std::isnan(pl[i])) << i;
    }
    EXPECT_FLOAT_EQ(ps[2 * width], 1.0f / static_cast<float>(width - 1));
    EXPECT_EQ(ps[2 * width + 1], 0.0f);
    EXPECT_EQ(pl[2 * width + 1], -inf);
    for (int64_t i = 3 * width; i < 4 * width; ++i) EXPECT_TRUE(std::isnan(ps[i])) << i;
  }
}

TEST(ActivationKernelTest, SoftmaxRowsSumToOneOnLargeInputs) {
  std::mt19937 rng(5);
  Tensor x = Random<float>(Shape({16, 128}), rng, -30, 30);
  auto out = RunOp("Softmax", {x});
  ASSERT_TRUE(out.ok());
  for (int r = 0; r < 16; ++r) {
    double sum = 0;
    for (int i = 0; i < 128; ++i) sum += out->data<float>()[r * 128 + i];
    EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << r;
  }
}

enum class Kind { kSum, kMean, kMax };

// Reference reduction over `axes` (all when empty and `all`), with keep_dims.
std::vector<double> RefReduce(const Tensor& x, std::set<int> axes, Kind kind, bool integer) {
  std::vector<double> v = ToDouble(x);
  int rank = x.shape().rank();
  std::vector<int64_t> kept(rank);
  int64_t n_out = 1;
  for (int i = 0; i < rank; ++i) {
    kept[i] = axes.contains(i) ? 1 : x.shape().dim(i);
    n_out *= kept[i];
  }
  std::vector<double> acc(n_out,
                          kind == Kind::kMax ? -std::numeric_limits<double>::infinity() : 0.0);
  std::vector<int64_t> count(n_out, 0);
  for (int64_t e = 0; e < x.num_elements(); ++e) {
    int64_t rem = e, o = 0, mul = 1;
    for (int d = rank - 1; d >= 0; --d) {
      int64_t idx = rem % x.shape().dim(d);
      rem /= x.shape().dim(d);
      o += (axes.contains(d) ? 0 : idx) * mul;
      mul *= kept[d];
    }
    acc[o] = kind == Kind::kMax ? std::max(acc[o], v[e]) : acc[o] + v[e];
    ++count[o];
  }
  if (kind == Kind::kMean) {
    for (int64_t i = 0; i < n_out; ++i) {
      acc[i] /= static_cast<double>(count[i]);
      if (integer) acc[i] = std::trunc(acc[i]);
    }
  }
  return acc;
}

struct ReduceCase {
  Shape shape;
  std::vector<int64_t> axis;  // as given to the op
  bool has_axis;              // false: attribute absent (all axes)
  bool keep;
  Shape out;
};

const char* Name(Kind k) { return k == Kind::kSum ? "Sum" : k == Kind::kMean ? "Mean" : "Max"; }

template <typename T>
void CheckReductions(const std::vector<ReduceCase>& cases, double rtol, double atol) {
  std::mt19937 rng(13);
  for (const ReduceCase& c : cases) {
    Tensor x = Random<T>(c.shape, rng, -9, 9);
    std::set<int> axes;
    for (int i = 0; i < c.shape.rank() && !c.has_axis; ++i) axes.insert(i);
    for (int64_t a : c.axis) axes.insert(static_cast<int>(a < 0 ? a + c.shape.rank() : a));
    for (Kind kind : {Kind::kSum, Kind::kMean, Kind::kMax}) {
      SCOPED_TRACE(absl::StrCat(Name(kind), " ", x.DebugString(), " axis=[",
                                absl::StrJoin(c.axis, ","), "] has_axis=", c.has_axis,
                                " keep=", c.keep));
      AttrMap attrs = {{"keep_dims", c.keep}};
      if (c.has_axis) attrs["axis"] = IntList(c.axis);
      auto out = RunOp(Name(kind), {x}, attrs);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(out->dtype(), DTypeOf<T>::value);
      EXPECT_EQ(out->shape(), c.out);
      ExpectClose(*out, RefReduce(x, axes, kind, std::is_integral_v<T>), rtol, atol);
    }
  }
}

std::vector<ReduceCase> SmallCases() {
  return {{Shape({2, 3, 4}), {}, false, false, Shape()},
          {Shape({2, 3, 4}), {}, false, true, Shape({1, 1, 1})},
          {Shape({2, 3, 4}), {1}, true, false, Shape({2, 4})},
          {Shape({2, 3, 4}), {0}, true, true, Shape({1, 3, 4})},
          {Shape({2, 3, 4}), {-1}, true, false, Shape({2, 3})},
          {Shape({2, 3, 4}), {0, -1}, true, true, Shape({1, 3, 1})},
          {Shape({2, 3, 4}), {2, 0, 1}, true, false, Shape()},
          {Shape({5, 1, 3}), {1}, true, false, Shape({5, 3})},
          {Shape({7}), {0}, true, false, Shape()},
          {Shape(), {}, false, false, Shape()}};
}

TEST(ReductionKernelTest, Float32Small) { CheckReductions<float>(SmallCases(), 1e-5, 1e-5); }
TEST(ReductionKernelTest, Float64) { CheckReductions<double>(SmallCases(), 1e-12, 1e-12); }
TEST(ReductionKernelTest, Int32) { CheckReductions<int32_t>(SmallCases(), 0, 0); }
TEST(ReductionKernelTest, Int64) { CheckReductions<int64_t>(SmallCases(), 0, 0); }

TEST(ReductionKernelTest, Float32LargeDnnl) {
  // >= 4096 elements: oneDNN's reduction.
  CheckReductions<float>({{Shape({64, 80}), {}, false, false, Shape()},
                          {Shape({64, 80}), {}, false, true, Shape({1, 1})},
                          {Shape({64, 80}), {0}, true, false, Shape({80})},
                          {Shape({64, 80}), {-1}, true, true, Shape({64, 1})},
                          {Shape({16, 16, 32}), {-2}, true, false, Shape({16, 32})},
                          {Shape({16, 16, 32}), {0, 2}, true, true, Shape({1, 16, 1})}},
                         1e-4, 1e-2);
}

TEST(ReductionKernelTest, Float32LargeNothingReduced) {
  // An empty axis list reduces nothing (identity), as does reducing a size-1 axis.
  CheckReductions<float>({{Shape({64, 80}), {}, true, false, Shape({64, 80})},
                          {Shape({4096, 1}), {1}, true, true, Shape({4096, 1})},
                          {Shape({4096, 1}), {1}, true, false, Shape({4096})}},
                         1e-6, 1e-6);
}

TEST(ReductionKernelTest, Int32Large) {
  CheckReductions<int32_t>({{Shape({64, 80}), {}, false, false, Shape()},
                            {Shape({64, 80}), {1}, true, true, Shape({64, 1})}},
                           0, 0);
}

TEST(ReductionKernelTest, MeanOfIntegersTruncates) {
  auto out = RunOp("Mean", {Make<int32_t>(Shape({2, 2}), {1, 2, -3, -4})}, {{"axis", IntList{1}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectClose(*out, {1, -3});
}

}  // namespace
}  // namespace graphd::executor::test
