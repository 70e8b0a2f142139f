// Unary math and the newer activations (Relu6, Gelu, LogSoftmax) against reference
// loops, on the plain-loop and oneDNN paths, for every registered dtype.
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

double Ref(const std::string& op, double x) {
  if (op == "Abs") return std::abs(x);
  if (op == "Neg") return -x;
  if (op == "Sign") return x > 0 ? 1 : x < 0 ? -1 : 0;
  if (op == "Square") return x * x;
  if (op == "Exp") return std::exp(x);
  if (op == "Log") return std::log(x);
  if (op == "Sqrt") return std::sqrt(x);
  if (op == "Rsqrt") return 1 / std::sqrt(x);
  if (op == "Sin") return std::sin(x);
  if (op == "Cos") return std::cos(x);
  if (op == "Round") return std::nearbyint(x);
  if (op == "Floor") return std::floor(x);
  if (op == "Ceil") return std::ceil(x);
  if (op == "Reciprocal") return 1 / x;
  if (op == "Relu6") return std::min(std::max(x, 0.0), 6.0);
  if (op == "Gelu") return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  ADD_FAILURE() << "no reference for " << op;
  return 0;
}

// Inputs inside each op's domain: positive for Log/Sqrt/Rsqrt, away from 0 for
// Reciprocal, spread over [-8, 8] for Relu6 (both clip points).
template <typename T>
Tensor Input(const std::string& op, const Shape& shape, std::mt19937& rng) {
  if (op == "Log" || op == "Sqrt" || op == "Rsqrt") return Random<T>(shape, rng, 0.05, 5);
  if (op == "Relu6") return Random<T>(shape, rng, -8, 8);
  Tensor t = Random<T>(shape, rng, std::is_integral_v<T> ? -50 : -4, std::is_integral_v<T> ? 50 : 4);
  if (op == "Reciprocal") {
    for (T& v : t.flat<T>()) v = v >= 0 ? v + T(0.25) : v - T(0.25);
  }
  return t;
}

template <typename T>
void CheckUnary(const std::string& op, const std::vector<Shape>& shapes, double rtol) {
  std::mt19937 rng(3);
  for (const Shape& shape : shapes) {
    Tensor x = Input<T>(op, shape, rng);
    SCOPED_TRACE(absl::StrCat(op, " ", x.DebugString()));
    auto out = RunOp(op, {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->dtype(), x.dtype());
    EXPECT_EQ(out->shape(), shape);
    std::vector<double> want;
    for (double v : ToDouble(x)) want.push_back(Ref(op, v));
    ExpectClose(*out, want, rtol, rtol);
  }
}

const std::vector<Shape> kSmall = {Shape({}), Shape({7}), Shape({3, 5}), Shape({0, 4})};
const std::vector<Shape> kLarge = {Shape({40, 50}), Shape({3, 1025})};  // oneDNN for float32

TEST(UnaryOpsTest, FloatOpsOnBothPaths) {
  for (const char* op : {"Abs", "Neg", "Sign", "Square", "Exp", "Log", "Sqrt", "Rsqrt", "Sin",
                         "Cos", "Round", "Floor", "Ceil", "Reciprocal", "Relu6", "Gelu"}) {
    CheckUnary<float>(op, kSmall, 1e-5);
    CheckUnary<float>(op, kLarge, 1e-5);
    CheckUnary<double>(op, kSmall, 1e-12);
    CheckUnary<double>(op, {Shape({2000})}, 1e-12);
  }
}

// Relative accuracy where the result is small: TensorFlow's float32 log, exp, tanh and
// sigmoid stay within a few ulp there (oneDNN's log once gave log(1 + 7e-7) < 0).
TEST(UnaryOpsTest, FloatResultsNearZeroKeepRelativeAccuracy) {
  struct Case {
    const char* op;
    float lo, hi;
    std::function<double(double)> ref;
  };
  const std::vector<Case> cases = {
      {"Log", 0.999f, 1.001f, [](double v) { return std::log(v); }},
      {"Exp", -80.f, -60.f, [](double v) { return std::exp(v); }},
      {"Tanh", -1e-3f, 1e-3f, [](double v) { return std::tanh(v); }},
      {"Sigmoid", -80.f, -60.f, [](double v) { return 1 / (1 + std::exp(-v)); }},
  };
  std::mt19937 rng(11);
  for (const Case& c : cases) {
    for (int64_t n : {int64_t{9}, int64_t{4096}}) {  // the plain loop and the oneDNN size
      Tensor x = Random<float>(Shape({n}), rng, c.lo, c.hi);
      SCOPED_TRACE(absl::StrCat(c.op, " ", x.DebugString()));
      auto out = RunOp(c.op, {x});
      ASSERT_TRUE(out.ok()) << out.status();
      std::vector<double> want;
      for (double v : ToDouble(x)) want.push_back(c.ref(v));
      ExpectClose(*out, want, 4e-6, 0);
    }
  }
}

TEST(UnaryOpsTest, IntegerOps) {
  for (const char* op : {"Abs", "Neg", "Sign", "Square"}) {
    CheckUnary<int32_t>(op, {Shape({6}), Shape({2, 3, 4}), Shape({0})}, 0);
    CheckUnary<int64_t>(op, {Shape({9}), Shape({3000})}, 0);
  }
}

TEST(UnaryOpsTest, RoundIsHalfToEvenOnBothPaths) {
  const std::vector<float> halves = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, 0.49f};
  const std::vector<double> want = {-2, -2, -0.0, 0, 2, 2, 4, 0};
  for (int64_t copies : {1, 256}) {  // 8 and 2048 elements
    std::vector<float> in;
    std::vector<double> expect;
    for (int64_t c = 0; c < copies; ++c) {
      in.insert(in.end(), halves.begin(), halves.end());
      expect.insert(expect.end(), want.begin(), want.end());
    }
    auto out = RunOp("Round", {Make<float>(Shape({static_cast<int64_t>(in.size())}), in)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectClose(*out, expect);
  }
  auto d = RunOp("Round", {Make<double>(Shape({3}), {-0.5, 1.5, 2.5})});
  ASSERT_TRUE(d.ok());
  ExpectClose(*d, {0, 2, 2});
}

TEST(UnaryOpsTest, SignKeepsNaN) {
  auto out = RunOp("Sign", {Make<float>(Shape({3}), {std::nanf(""), -0.0f, 3})});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(std::isnan(out->data<float>()[0]));
  ExpectClose(*out, {std::nan(""), 0, 1});
}

TEST(UnaryOpsTest, GeluTanhApproximation) {
  std::mt19937 rng(9);
  for (const Shape& shape : {Shape({10}), Shape({64, 64})}) {
    Tensor x = Random<float>(shape, rng, -5, 5);
    auto out = RunOp("Gelu", {x}, {{"approximate", true}});
    ASSERT_TRUE(out.ok()) << out.status();
    std::vector<double> want;
    for (double v : ToDouble(x)) {
      want.push_back(0.5 * v *
                     (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (v + 0.044715 * v * v * v))));
    }
    ExpectClose(*out, want, 1e-5, 1e-5);
  }
}

std::vector<double> RefLogSoftmax(const Tensor& x) {
  std::vector<double> v = ToDouble(x), out(v.size());
  const int64_t inner = x.shape().dim(x.shape().rank() - 1);
  for (size_t row = 0; row * inner < v.size(); ++row) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0;
    for (int64_t i = 0; i < inner; ++i) mx = std::max(mx, v[row * inner + i]);
    for (int64_t i = 0; i < inner; ++i) sum += std::exp(v[row * inner + i] - mx);
    for (int64_t i = 0; i < inner; ++i) out[row * inner + i] = v[row * inner + i] - mx - std::log(sum);
  }
  return out;
}

TEST(UnaryOpsTest, LogSoftmaxLastAxis) {
  std::mt19937 rng(4);
  for (const Shape& shape : {Shape({5}), Shape({3, 7}), Shape({8, 300}), Shape({2, 3, 40}),
                             Shape({0, 6})}) {
    Tensor f = Random<float>(shape, rng, -20, 20);
    auto out = RunOp("LogSoftmax", {f});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectClose(*out, RefLogSoftmax(f), 1e-5, 1e-5);
    Tensor d = Random<double>(shape, rng, -20, 20);
    auto outd = RunOp("LogSoftmax", {d});
    ASSERT_TRUE(outd.ok()) << outd.status();
    ExpectClose(*outd, RefLogSoftmax(d), 1e-12, 1e-12);
  }
}

TEST(UnaryOpsTest, InferenceRejectsUnsupportedDTypes) {
  EXPECT_THAT(InferError("Exp", {TT(DType::kInt32, {2})}),
              HasSubstr("node 'out' (Exp): input dtype is int32, expected one of (float32, float64)"));
  EXPECT_THAT(InferError("Abs", {TT(DType::kUInt8, {2})}), HasSubstr("node 'out' (Abs)"));
  EXPECT_THAT(InferError("Neg", {TT(DType::kBool, {2})}), HasSubstr("input dtype is bool"));
  EXPECT_THAT(InferError("Relu6", {TT(DType::kInt64, {2})}), HasSubstr("node 'out' (Relu6)"));
  EXPECT_THAT(InferError("LogSoftmax", {TT(DType::kFloat32, {})}), HasSubstr("rank >= 1"));
  EXPECT_THAT(InferError("Gelu", {TT(DType::kFloat32, {2})}, {{"approximate", int64_t{1}}}),
              HasSubstr("attribute 'approximate' must be bool"));
  auto ok = Infer("Square", {TT(DType::kInt64, {-1, 3})});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)[0].shape, PartialShape(std::vector<int64_t>{-1, 3}));
}

}  // namespace
}  // namespace graphd::executor::test
