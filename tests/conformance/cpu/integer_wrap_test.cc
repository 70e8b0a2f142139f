// Integer tensor arithmetic that overflows wraps modulo 2^bits, as TensorFlow's and
// numpy's kernels do, instead of being undefined (the source fuzzer found int32 Mul
// overflowing in a Collatz loop; UBSan stopped the server). Expected values are numpy's.
#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::ElementsAre;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.flat<T>().begin(), t.flat<T>().end());
}

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

TEST(IntegerWrapTest, BinaryOps) {
  Tensor a = Make<int32_t>(Shape({3}), {kMax32, kMin32, 1205308187});
  Tensor b = Make<int32_t>(Shape({3}), {1, 1, 3});
  auto add = RunOp("Add", {a, b});
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_THAT(Values<int32_t>(*add), ElementsAre(kMin32, kMin32 + 1, 1205308190));
  auto sub = RunOp("Sub", {b, a});
  ASSERT_TRUE(sub.ok()) << sub.status();
  EXPECT_THAT(Values<int32_t>(*sub), ElementsAre(kMin32 + 2, kMin32 + 1, -1205308184));
  auto mul = RunOp("Mul", {a, b});
  ASSERT_TRUE(mul.ok()) << mul.status();
  EXPECT_THAT(Values<int32_t>(*mul), ElementsAre(kMax32, kMin32, -679042735));  // 3615924561 - 2^32
  auto pow = RunOp("Pow", {Make<int64_t>(Shape({2}), {3, -2}), Make<int64_t>(Shape({2}), {41, 63})});
  ASSERT_TRUE(pow.ok()) << pow.status();
  EXPECT_THAT(Values<int64_t>(*pow), ElementsAre(-420491770248316829, std::numeric_limits<int64_t>::min()));
  // 16-bit operands promote to int in C++: uint16 65535 * 65535 overflowed int.
  auto u16 = RunOp("Mul", {Make<uint16_t>(Shape({1}), {65535}), Make<uint16_t>(Shape({1}), {65535})});
  ASSERT_TRUE(u16.ok()) << u16.status();
  EXPECT_THAT(Values<uint16_t>(*u16), ElementsAre(1));
}

TEST(IntegerWrapTest, UnaryReductionsScansAndMatMul) {
  auto neg = RunOp("Neg", {Make<int32_t>(Shape({1}), {kMin32})});
  ASSERT_TRUE(neg.ok()) << neg.status();
  EXPECT_THAT(Values<int32_t>(*neg), ElementsAre(kMin32));
  auto square = RunOp("Square", {Make<int32_t>(Shape({1}), {65536})});
  ASSERT_TRUE(square.ok()) << square.status();
  EXPECT_THAT(Values<int32_t>(*square), ElementsAre(0));
  Tensor big = Make<int64_t>(Shape({3}), {kMax64, kMax64, 5});
  auto sum = RunOp("Sum", {big}, {{"axis", IntList{0}}});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_THAT(Values<int64_t>(*sum), ElementsAre(3));  // 2 * (2^63 - 1) + 5 mod 2^64
  auto cumsum = RunOp("Cumsum", {big, Tensor::Scalar<int64_t>(0)});
  ASSERT_TRUE(cumsum.ok()) << cumsum.status();
  EXPECT_THAT(Values<int64_t>(*cumsum), ElementsAre(kMax64, -2, 3));
  auto matmul = RunOp("MatMul", {Make<int32_t>(Shape({1, 2}), {kMax32, kMax32}), Make<int32_t>(Shape({2, 1}), {2, 1})});
  ASSERT_TRUE(matmul.ok()) << matmul.status();
  EXPECT_THAT(Values<int32_t>(*matmul), ElementsAre(2147483645));  // 3 * (2^31 - 1) mod 2^32
}

}  // namespace
}  // namespace graphd::executor::test
