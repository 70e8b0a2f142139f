// FloorDiv, FloorMod and Pow (Python semantics), comparisons and logical ops, against
// reference loops, with broadcasting on both sides.
#include <cmath>
#include <functional>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

// Python's // and % for the reference.
double PyFloorDiv(double a, double b) { return std::floor(a / b); }
double PyMod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

template <typename T>
void CheckBinary(const std::string& op, const std::function<double(double, double)>& ref) {
  std::mt19937 rng(7);
  Tensor a = Random<T>(Shape({3, 1, 4}), rng, -20, 20);
  Tensor b = Random<T>(Shape({5, 1}), rng, 1, 9);
  // Negative divisors too, but never zero.
  for (int64_t i = 0; i < b.num_elements(); i += 2) b.data<T>()[i] = static_cast<T>(-b.data<T>()[i]);
  auto out = RunOp(op, {a, b});
  ASSERT_TRUE(out.ok()) << op << ": " << out.status();
  ASSERT_EQ(out->shape(), Shape({3, 5, 4}));
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 4; ++k) want.push_back(ref(a.data<T>()[i * 4 + k], b.data<T>()[j]));
  ExpectClose(*out, want, 1e-6, 1e-9);
}

TEST(FloorOpsTest, FloorDivAndModFollowPython) {
  CheckBinary<int32_t>("FloorDiv", PyFloorDiv);
  CheckBinary<int64_t>("FloorDiv", PyFloorDiv);
  CheckBinary<float>("FloorDiv", PyFloorDiv);
  CheckBinary<double>("FloorDiv", PyFloorDiv);
  CheckBinary<int32_t>("FloorMod", PyMod);
  CheckBinary<int64_t>("FloorMod", PyMod);
  CheckBinary<double>("FloorMod", PyMod);
}

TEST(FloorOpsTest, IntegerZeroDivisorIsAnError) {
  for (const char* op : {"FloorDiv", "FloorMod"}) {
    auto out = RunOp(op, {Make<int32_t>(Shape({2}), {5, 6}), Make<int32_t>(Shape({2}), {1, 0})});
    ASSERT_FALSE(out.ok()) << op;
    EXPECT_THAT(out.status().message(), HasSubstr("division by zero"));
  }
}

TEST(PowTest, FloatAndInteger) {
  auto f = RunOp("Pow", {Make<float>(Shape({3}), {2, 9, 0.5f}), Make<float>(Shape({}), {2})});
  ASSERT_TRUE(f.ok()) << f.status();
  ExpectClose(*f, {4, 81, 0.25}, 1e-6);
  auto i = RunOp("Pow", {Make<int32_t>(Shape({3}), {2, -3, 10}), Make<int32_t>(Shape({3}), {10, 3, 0})});
  ASSERT_TRUE(i.ok()) << i.status();
  ExpectClose(*i, {1024, -27, 1});
  auto neg = RunOp("Pow", {Make<int32_t>(Shape({1}), {2}), Make<int32_t>(Shape({1}), {-1})});
  ASSERT_FALSE(neg.ok());
  EXPECT_THAT(neg.status().message(), HasSubstr("negative integer powers"));
}

TEST(CompareTest, AllComparisonsBroadcast) {
  Tensor a = Make<int32_t>(Shape({2, 1}), {1, 3});
  Tensor b = Make<int32_t>(Shape({3}), {0, 1, 3});
  const std::vector<std::pair<std::string, std::function<bool(int, int)>>> cases = {
      {"Equal", std::equal_to<>()},   {"NotEqual", std::not_equal_to<>()},
      {"Less", std::less<>()},        {"LessEqual", std::less_equal<>()},
      {"Greater", std::greater<>()},  {"GreaterEqual", std::greater_equal<>()}};
  for (const auto& [op, fn] : cases) {
    auto out = RunOp(op, {a, b});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    ASSERT_EQ(out->dtype(), DType::kBool);
    ASSERT_EQ(out->shape(), Shape({2, 3}));
    std::vector<double> want;
    for (int i : {1, 3})
      for (int j : {0, 1, 3}) want.push_back(fn(i, j));
    ExpectClose(*out, want);
  }
  auto f = RunOp("Less", {Make<float>(Shape({2}), {0.5f, -1}), Make<float>(Shape({}), {0})});
  ASSERT_TRUE(f.ok());
  ExpectClose(*f, {0, 1});
}

TEST(CompareTest, StringsCompareByValue) {
  Tensor a = Tensor::Allocate(DType::kString, Shape({2})).value();
  a.data<std::string>()[0] = "abc";
  a.data<std::string>()[1] = "x";
  Tensor b = Tensor::Allocate(DType::kString, Shape({})).value();
  b.data<std::string>()[0] = "abc";
  auto eq = RunOp("Equal", {a, b});
  ASSERT_TRUE(eq.ok()) << eq.status();
  ExpectClose(*eq, {1, 0});
}

TEST(LogicTest, AndOrNot) {
  Tensor a = MakeBool(Shape({2, 1}), {0, 1});
  Tensor b = MakeBool(Shape({2}), {0, 1});
  auto land = RunOp("LogicalAnd", {a, b});
  auto lor = RunOp("LogicalOr", {a, b});
  auto lnot = RunOp("LogicalNot", {b});
  ASSERT_TRUE(land.ok() && lor.ok() && lnot.ok());
  ExpectClose(*land, {0, 0, 0, 1});
  ExpectClose(*lor, {0, 1, 1, 1});
  ExpectClose(*lnot, {1, 0});
  Graph g;
  const Node* x = AddPlaceholder(g, "x", DType::kInt32, PartialShape(std::vector<int64_t>{}));
  auto bad = g.AddNode({.name = "n", .op = "LogicalNot", .inputs = {{x, 0}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("must be bool"));
}

}  // namespace
}  // namespace graphd::executor::test
