// Unary float math (Tan .. Erf), IsNan/IsInf and the parameterised activations (Elu,
// Selu, Celu, LeakyRelu, HardSigmoid, HardSwish, ThresholdedRelu, Shrink, Softplus,
// Softsign): literal values computed with Python's math module, then random inputs
// against reference formulas on the loop and oneDNN paths, empty and scalar tensors,
// and inference errors.
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

const std::vector<double> kFive = {-2.0, -0.5, 0.0, 0.5, 2.0};

template <typename T>
Tensor Five() {
  std::vector<T> v(kFive.begin(), kFive.end());
  return Make<T>(Shape({5}), v);
}

TEST(OnnxMathTest, LiteralValues) {
  struct Case {
    const char* op;
    AttrMap attrs;
    std::vector<double> want;
  };
  const std::vector<Case> cases = {
      {"Erf",
       {},
       {-0.9953222650189527, -0.5204998778130465, 0, 0.5204998778130465, 0.9953222650189527}},
      {"Tan",
       {},
       {2.185039863261519, -0.5463024898437905, 0, 0.5463024898437905, -2.185039863261519}},
      {"Elu", {}, {-0.8646647167633873, -0.3934693402873666, 0, 0.5, 2}},
      {"Selu",
       {},
       {-1.5201664733475926, -0.6917581899652426, 0, 0.5253505110740662, 2.1014020442962646}},
      {"Celu", {{"alpha", 2.0f}}, {-1.2642411176571153, -0.44239843385719024, 0, 0.5, 2}},
      {"Softplus",
       {},
       {0.1269280110429725, 0.4740769841801067, 0.6931471805599453, 0.9740769841801067,
        2.1269280110429727}},
      {"Softsign", {}, {-2.0 / 3, -1.0 / 3, 0, 1.0 / 3, 2.0 / 3}},
      {"LeakyRelu", {}, {-0.4, -0.1, 0, 0.5, 2}},  // TensorFlow's default alpha 0.2
      {"LeakyRelu", {{"alpha", 0.01f}}, {-0.02, -0.005, 0, 0.5, 2}},
      {"HardSigmoid", {}, {0.1, 0.4, 0.5, 0.6, 0.9}},
      {"HardSigmoid", {{"alpha", 0.5f}, {"beta", 0.6f}}, {0, 0.35, 0.6, 0.85, 1}},
      {"ThresholdedRelu", {}, {0, 0, 0, 0, 2}},
      {"ThresholdedRelu", {{"alpha", int64_t{0}}}, {0, 0, 0, 0.5, 2}},
      {"Shrink", {}, {-2, 0, 0, 0, 2}},  // lambd 0.5 is not strictly exceeded by +-0.5
      {"Shrink", {{"lambd", 0.4f}, {"bias", 1.5f}}, {-0.5, 1.0, 0, -1.0, 0.5}},
  };
  for (const Case& c : cases) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      SCOPED_TRACE(absl::StrCat(c.op, " ", DTypeName(dtype), " ", c.attrs.size(), " attrs"));
      Tensor x = dtype == DType::kFloat32 ? Five<float>() : Five<double>();
      auto out = RunOp(c.op, {x}, c.attrs);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(out->dtype(), dtype);
      ExpectClose(*out, c.want, dtype == DType::kFloat32 ? 1e-6 : 1e-7, 1e-7);
    }
  }
  // HardSwish at its kinks: x * relu6(x + 3) / 6.
  auto hs = RunOp("HardSwish", {Make<float>(Shape({7}), {-4, -3, -1, 0, 1, 3, 4})});
  ASSERT_TRUE(hs.ok()) << hs.status();
  ExpectClose(*hs, {0, 0, -1.0 / 3, 0, 2.0 / 3, 3, 4}, 1e-6);
}

// Reference formulas, written as the ONNX operator documents state them.
double Ref(const std::string& op, double x) {
  if (op == "Tan") return std::tan(x);
  if (op == "Asin") return std::asin(x);
  if (op == "Acos") return std::acos(x);
  if (op == "Atan") return std::atan(x);
  if (op == "Sinh") return std::sinh(x);
  if (op == "Cosh") return std::cosh(x);
  if (op == "Asinh") return std::asinh(x);
  if (op == "Acosh") return std::acosh(x);
  if (op == "Atanh") return std::atanh(x);
  if (op == "Erf") return std::erf(x);
  if (op == "Elu") return x < 0 ? 0.7 * (std::exp(x) - 1) : x;
  if (op == "Selu") {
    const double alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875;
    return x <= 0 ? gamma * alpha * (std::exp(x) - 1) : gamma * x;
  }
  if (op == "Celu") return std::max(0.0, x) + std::min(0.0, 0.7 * (std::exp(x / 0.7) - 1));
  if (op == "LeakyRelu") return x < 0 ? 0.7 * x : x;
  if (op == "HardSigmoid") return std::max(0.0, std::min(1.0, 0.7 * x + 0.5));
  if (op == "HardSwish") return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
  if (op == "ThresholdedRelu") return x > 0.7 ? x : 0;
  if (op == "Shrink") return x < -0.7 ? x + 0.25 : x > 0.7 ? x - 0.25 : 0;
  if (op == "Softplus") return std::log(std::exp(x) + 1);
  if (op == "Softsign") return x / (1 + std::abs(x));
  ADD_FAILURE() << "no reference for " << op;
  return 0;
}

AttrMap RefAttrs(const std::string& op) {
  if (op == "Shrink") return {{"lambd", 0.7f}, {"bias", 0.25f}};
  if (op == "Elu" || op == "Celu" || op == "LeakyRelu" || op == "HardSigmoid" ||
      op == "ThresholdedRelu") {
    return {{"alpha", 0.7f}};
  }
  return {};
}

template <typename T>
void CheckRandom(const std::string& op, const Shape& shape, double rtol) {
  std::mt19937 rng(7);
  double lo = -6, hi = 6;
  if (op == "Asin" || op == "Acos" || op == "Atanh") lo = -0.99, hi = 0.99;
  if (op == "Acosh") lo = 1, hi = 20;
  Tensor x = Random<T>(shape, rng, lo, hi);
  SCOPED_TRACE(absl::StrCat(op, " ", x.DebugString()));
  auto out = RunOp(op, {x}, RefAttrs(op));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->dtype(), x.dtype());
  EXPECT_EQ(out->shape(), shape);
  std::vector<double> want;
  for (double v : ToDouble(x)) want.push_back(Ref(op, v));
  ExpectClose(*out, want, rtol, rtol);
}

const char* const kOps[] = {"Tan",  "Asin",      "Acos",        "Atan",     "Sinh",
                            "Cosh", "Asinh",     "Acosh",       "Atanh",    "Erf",
                            "Elu",  "Selu",      "Celu",        "LeakyRelu", "HardSigmoid",
                            "HardSwish", "ThresholdedRelu", "Shrink", "Softplus", "Softsign"};

TEST(OnnxMathTest, RandomAgainstReference) {
  for (const char* op : kOps) {
    for (const Shape& shape :
         {Shape({}), Shape({7}), Shape({3, 5}), Shape({0, 4}), Shape({4, 0})}) {
      CheckRandom<float>(op, shape, 2e-6);
      CheckRandom<double>(op, shape, 1e-7);
    }
    CheckRandom<float>(op, Shape({40, 50}), 2e-6);  // oneDNN where it has the function
    CheckRandom<double>(op, Shape({2000}), 1e-7);
  }
}

TEST(OnnxMathTest, IsNanIsInf) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = Make<double>(Shape({2, 3}), {1.5, -inf, nan, inf, 0, -0.0});
  Tensor xf = Make<float>(Shape({2, 3}), {1.5f, -INFINITY, NAN, INFINITY, 0, -0.0f});
  for (const Tensor& in : {x, xf}) {
    auto is_nan = RunOp("IsNan", {in});
    ASSERT_TRUE(is_nan.ok()) << is_nan.status();
    EXPECT_EQ(is_nan->dtype(), DType::kBool);
    EXPECT_EQ(is_nan->shape(), Shape({2, 3}));
    ExpectClose(*is_nan, {0, 0, 1, 0, 0, 0});
    auto is_inf = RunOp("IsInf", {in});
    ASSERT_TRUE(is_inf.ok()) << is_inf.status();
    ExpectClose(*is_inf, {0, 1, 0, 1, 0, 0});
    auto pos = RunOp("IsInf", {in}, {{"detect_negative", false}});
    ASSERT_TRUE(pos.ok()) << pos.status();
    ExpectClose(*pos, {0, 0, 0, 1, 0, 0});
    auto neg = RunOp("IsInf", {in}, {{"detect_positive", false}});
    ASSERT_TRUE(neg.ok()) << neg.status();
    ExpectClose(*neg, {0, 1, 0, 0, 0, 0});
  }
  auto empty = RunOp("IsNan", {Make<float>(Shape({0, 3}), {})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), Shape({0, 3}));
}

TEST(OnnxMathTest, InferenceErrors) {
  for (const char* op : kOps) {
    EXPECT_THAT(InferError(op, {TT(DType::kInt32, {2})}), HasSubstr("input dtype is int32"))
        << op;
    auto ok = Infer(op, {{DType::kFloat64, PartialShape(std::vector<int64_t>{kUnknownDim, 3})}});
    ASSERT_TRUE(ok.ok()) << op << ": " << ok.status();
    EXPECT_EQ((*ok)[0].dtype, DType::kFloat64);
    EXPECT_EQ((*ok)[0].shape, PartialShape(std::vector<int64_t>{kUnknownDim, 3}));
  }
  EXPECT_THAT(InferError("IsNan", {TT(DType::kInt64, {2})}), HasSubstr("input dtype is int64"));
  auto b = Infer("IsInf", {TT(DType::kFloat32, {2, 2})});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].dtype, DType::kBool);
  EXPECT_THAT(InferError("IsInf", {TT(DType::kFloat32, {2})}, {{"detect_positive", int64_t{1}}}),
              HasSubstr("detect_positive"));
  EXPECT_THAT(InferError("Elu", {TT(DType::kFloat32, {2})}, {{"alpha", std::string("x")}}),
              HasSubstr("must be int or float"));
  EXPECT_THAT(InferError("Elu", {TT(DType::kFloat32, {2})}, {{"alpha", INFINITY}}),
              HasSubstr("must be finite"));
  EXPECT_THAT(InferError("Celu", {TT(DType::kFloat32, {2})}, {{"alpha", 0.0f}}),
              HasSubstr("must not be 0"));
  EXPECT_THAT(InferError("Shrink", {TT(DType::kFloat32, {2})}, {{"lambd", -1.0f}}),
              HasSubstr("must be >= 0"));
}

}  // namespace
}  // namespace graphd::executor::test
