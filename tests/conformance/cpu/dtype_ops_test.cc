// Element types beyond the classic set: Cast between every numeric dtype, 16-bit floats
// (round to nearest even) and strings (ONNX's text forms); uint16/32/64 and float16/
// bfloat16 through the binary, comparison and shift kernels; and the clear errors for
// what has no kernel. Expected values worked by hand (bit patterns checked with numpy).
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

StatusOr<Tensor> Cast(const Tensor& x, DType to) { return RunOp("Cast", {x}, {{"DstT", to}}); }

template <typename H>
std::vector<uint16_t> Bits(const Tensor& t) {
  std::vector<uint16_t> out;
  for (H h : t.flat<H>()) out.push_back(h.bits);
  return out;
}

TEST(CastDTypeTest, FloatToFloat16RoundsToNearestEven) {
  // 1 + 2^-11: tie -> 1 (even); 1 + 3*2^-11: tie -> 1 + 2^-9; 65520 -> inf; 0.1.
  Tensor x = Make<float>(Shape({6}), {1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 65520.0f, 0.1f, -0.0f, NAN});
  auto h = Cast(x, DType::kFloat16);
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ(h->dtype(), DType::kFloat16);
  std::vector<uint16_t> bits = Bits<Float16>(*h);
  EXPECT_THAT(std::vector<uint16_t>(bits.begin(), bits.end() - 1),
              ElementsAre(0x3C00, 0x3C02, 0x7C00, 0x2E66, 0x8000));
  EXPECT_EQ(bits[5] & 0x7E00, 0x7E00);  // a quiet NaN
  // And back to float32 / float64 exactly.
  auto f = Cast(*h, DType::kFloat64);
  ASSERT_TRUE(f.ok()) << f.status();
  ExpectClose(*f, {1.0, 1.0 + 0x1p-9, INFINITY, 0.0999755859375, 0.0, NAN});
}

TEST(CastDTypeTest, DoubleToFloat16RoundsOnce) {
  // 1 + 2^-11 + 2^-40 is above the tie: a double rounds up; through float it would tie
  // to 1 (float32 cannot hold the 2^-40).
  auto h = Cast(Make<double>(Shape({2}), {1.0 + 0x1p-11 + 0x1p-40, -2049.0}), DType::kFloat16);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_THAT(Bits<Float16>(*h), ElementsAre(0x3C01, 0xE800));  // -2049 ties to -2048
}

TEST(CastDTypeTest, BFloat16RoundsToNearestEven) {
  // ONNX's test inputs: 0.48033667f (0x3EF5EEB0) -> 0x3EF6; 0.47892547f -> 0x3EF5.
  Tensor x = Make<float>(Shape({4}), {0.48033667f, 0.47892547f, INFINITY, -INFINITY});
  auto b = Cast(x, DType::kBFloat16);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(Bits<BFloat16>(*b), ElementsAre(0x3EF6, 0x3EF5, 0x7F80, 0xFF80));
  auto back = Cast(*b, DType::kFloat32);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectClose(*back, {0.48046875, 0.478515625, INFINITY, -INFINITY});
  // bfloat16 <-> float16 and integers.
  auto h = Cast(*b, DType::kFloat16);
  ASSERT_TRUE(h.ok()) << h.status();
  ExpectClose(*h, {0.48046875, 0.478515625, INFINITY, -INFINITY});
  auto i = Cast(Make<BFloat16>(Shape({3}), {BFloat16(-7.9f), BFloat16(300.0f), BFloat16(0.0f)}),
                DType::kInt32);
  ASSERT_TRUE(i.ok()) << i.status();
  ExpectClose(*i, {-7, 300, 0});  // truncation toward zero
  auto z = Cast(Make<int64_t>(Shape({2}), {257, -3}), DType::kBFloat16);  // 257 ties to 256
  ASSERT_TRUE(z.ok()) << z.status();
  ExpectClose(*z, {256, -3});
  auto flags = Cast(Make<Float16>(Shape({3}), {Float16(0.0f), Float16(-2.0f), Float16(NAN)}), DType::kBool);
  ASSERT_TRUE(flags.ok()) << flags.status();
  ExpectClose(*flags, {0, 1, 1});
}

TEST(CastDTypeTest, WideUnsigned) {
  auto u = Cast(Make<int32_t>(Shape({3}), {-1, 7, 65536}), DType::kUInt16);  // wraps mod 2^16
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_THAT(std::vector<uint16_t>(u->flat<uint16_t>().begin(), u->flat<uint16_t>().end()),
              ElementsAre(65535, 7, 0));
  auto big = Cast(Make<uint64_t>(Shape({2}), {18446744073709551615ull, 1ull << 63}), DType::kFloat64);
  ASSERT_TRUE(big.ok()) << big.status();
  ExpectClose(*big, {18446744073709551616.0, 9223372036854775808.0});
  auto back = Cast(Make<double>(Shape({2}), {4294967295.0, 3.9}), DType::kUInt32);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->data<uint32_t>()[0], 4294967295u);
  EXPECT_EQ(back->data<uint32_t>()[1], 3u);
}

// NaN, infinities and values out of the integer's range (undefined in C++ and ONNX) give
// what TensorFlow's CPU Cast gives on x86-64 (core/float_to_int.h), never UB.
TEST(CastDTypeTest, FloatOutOfIntegerRangeIsDefined) {
  Tensor x = Make<float>(Shape({6}), {NAN, INFINITY, -INFINITY, 3e9f, -3e9f, -7.9f});
  auto i32 = Cast(x, DType::kInt32);
  ASSERT_TRUE(i32.ok()) << i32.status();
  const int32_t m = std::numeric_limits<int32_t>::min();
  EXPECT_THAT(std::vector<int32_t>(i32->flat<int32_t>().begin(), i32->flat<int32_t>().end()),
              ElementsAre(m, m, m, m, m, -7));
  auto i64 = Cast(x, DType::kInt64);
  ASSERT_TRUE(i64.ok()) << i64.status();
  const int64_t m64 = std::numeric_limits<int64_t>::min();
  EXPECT_THAT(std::vector<int64_t>(i64->flat<int64_t>().begin(), i64->flat<int64_t>().end()),
              ElementsAre(m64, m64, m64, 3000000000, -3000000000, -7));
  auto u8 = Cast(Make<double>(Shape({4}), {300.0, -1.0, NAN, 1e300}), DType::kUInt8);
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_THAT(std::vector<uint8_t>(u8->flat<uint8_t>().begin(), u8->flat<uint8_t>().end()),
              ElementsAre(44, 255, 0, 0));
  auto h = Cast(Make<Float16>(Shape({2}), {Float16(INFINITY), Float16(NAN)}), DType::kInt32);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_THAT(std::vector<int32_t>(h->flat<int32_t>().begin(), h->flat<int32_t>().end()), ElementsAre(m, m));
  auto u64 = Cast(Make<double>(Shape({3}), {-1.0, 1.8e19, 1e20}), DType::kUInt64);
  ASSERT_TRUE(u64.ok()) << u64.status();
  EXPECT_THAT(std::vector<uint64_t>(u64->flat<uint64_t>().begin(), u64->flat<uint64_t>().end()),
              ElementsAre(18446744073709551615ull, 18000000000000000000ull, 0ull));
}

TEST(CastDTypeTest, StringToNumbers) {
  Tensor s = MakeStrings(Shape({8}), {"0.47892547", "NaN", "INF", "+INF", "-INF", "1e-5", " -2.5E3 ", "inf"});
  auto f = Cast(s, DType::kFloat32);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->data<float>()[0], 0.47892547f);  // correctly rounded to float32
  ExpectClose(*f, {0.47892547f, NAN, INFINITY, INFINITY, -INFINITY, 1e-5f, -2500, INFINITY});
  auto d = Cast(MakeStrings(Shape({2}), {"0.1", "1e400"}), DType::kFloat64);
  ASSERT_TRUE(d.ok()) << d.status();
  ExpectClose(*d, {0.1, INFINITY});
  auto i = Cast(MakeStrings(Shape({4}), {"100.5", "-7", "+42", "9223372036854775807"}), DType::kInt64);
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_EQ(i->data<int64_t>()[0], 100);
  EXPECT_EQ(i->data<int64_t>()[1], -7);
  EXPECT_EQ(i->data<int64_t>()[2], 42);
  EXPECT_EQ(i->data<int64_t>()[3], std::numeric_limits<int64_t>::max());
  auto h = Cast(MakeStrings(Shape({1}), {"0.1"}), DType::kFloat16);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_THAT(Bits<Float16>(*h), ElementsAre(0x2E66));
  // Not a number, or out of the integer's range: errors naming the text.
  auto bad = Cast(MakeStrings(Shape({2}), {"1", "Hello"}), DType::kFloat32);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("cannot convert string \"Hello\" to float32"));
  auto range = Cast(MakeStrings(Shape({1}), {"300"}), DType::kUInt8);
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(), HasSubstr("\"300\" to uint8"));
  auto negative = Cast(MakeStrings(Shape({1}), {"-1"}), DType::kUInt64);
  EXPECT_FALSE(negative.ok());
}

TEST(CastDTypeTest, NumbersToString) {
  Tensor f = Make<float>(Shape({7}), {0.9767611f, 0.039187793f, 1e-5f, 100.0f, NAN, INFINITY, -INFINITY});
  auto s = Cast(f, DType::kString);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(Strings(*s), ElementsAre("0.9767611", "0.039187793", "1e-05", "100", "NaN", "INF", "-INF"));
  auto d = Cast(Make<double>(Shape({2}), {0.1, -1.5e300}), DType::kString);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(Strings(*d), ElementsAre("0.1", "-1.5e+300"));
  auto i = Cast(Make<int8_t>(Shape({2}), {-128, 5}), DType::kString);
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_THAT(Strings(*i), ElementsAre("-128", "5"));
  auto u = Cast(Make<uint64_t>(Shape({1}), {18446744073709551615ull}), DType::kString);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_THAT(Strings(*u), ElementsAre("18446744073709551615"));
  // 16-bit floats: the fewest digits that read back to the same 16-bit value.
  auto h = Cast(Make<Float16>(Shape({3}), {Float16(0.1f), Float16(1000.0f), Float16(-0.5f)}), DType::kString);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_THAT(Strings(*h), ElementsAre("0.1", "1000", "-0.5"));
  auto b = Cast(Make<BFloat16>(Shape({1}), {BFloat16(3.14159f)}), DType::kString);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(Strings(*b), ElementsAre("3.14"));
  // Round trip of every float printed.
  auto back = Cast(*s, DType::kFloat32);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectClose(*back, ToDouble(f));
  // bool has no text form here: an inference error.
  EXPECT_THAT(InferError("Cast", {TT(DType::kBool, {2})}, {{"DstT", DType::kString}}),
              HasSubstr("cannot cast bool to string"));
}

TEST(WideUnsignedTest, Arithmetic) {
  Tensor a = Make<uint32_t>(Shape({4}), {4294967295u, 10, 7, 0});
  Tensor b = Make<uint32_t>(Shape({4}), {1, 3, 9, 5});
  auto check = [&](const std::string& op, std::vector<uint32_t> want) {
    auto out = RunOp(op, {a, b});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    ASSERT_EQ(out->dtype(), DType::kUInt32);
    EXPECT_EQ(std::vector<uint32_t>(out->flat<uint32_t>().begin(), out->flat<uint32_t>().end()), want) << op;
  };
  check("Add", {0, 13, 16, 5});  // wraps
  check("Sub", {4294967294u, 7, 4294967294u, 4294967291u});
  check("Maximum", {4294967295u, 10, 9, 5});
  check("Minimum", {1, 3, 7, 0});
  check("FloorMod", {0, 1, 7, 0});
  check("TruncateMod", {0, 1, 7, 0});
  check("Div", {4294967295u, 3, 0, 0});
  check("Pow", {4294967295u, 1000, 40353607, 0});
  auto zero = RunOp("FloorMod", {a, Make<uint32_t>(Shape({}), {0})});
  EXPECT_THAT(zero.status().message(), HasSubstr("division by zero"));
  // uint64 beyond int64's range, broadcast [2,1] with [2].
  Tensor x = Make<uint64_t>(Shape({2, 1}), {18446744073709551615ull, 1});
  Tensor y = Make<uint64_t>(Shape({2}), {1ull << 63, 2});
  auto mx = RunOp("Maximum", {x, y});
  ASSERT_TRUE(mx.ok()) << mx.status();
  EXPECT_THAT(std::vector<uint64_t>(mx->flat<uint64_t>().begin(), mx->flat<uint64_t>().end()),
              ElementsAre(18446744073709551615ull, 18446744073709551615ull, 1ull << 63, 2));
  auto less = RunOp("Less", {x, y});
  ASSERT_TRUE(less.ok()) << less.status();
  ExpectClose(*less, {0, 0, 1, 1});
  auto m16 = RunOp("Minimum", {Make<uint16_t>(Shape({2}), {65535, 3}), Make<uint16_t>(Shape({2}), {2, 4})});
  ASSERT_TRUE(m16.ok()) << m16.status();
  ExpectClose(*m16, {2, 3});
}

TEST(WideUnsignedTest, Shifts) {
  Tensor x = Make<uint64_t>(Shape({4}), {1, 1ull << 63, 0xF0, 5});
  Tensor s = Make<uint64_t>(Shape({4}), {63, 63, 4, 64});
  auto l = RunOp("LeftShift", {x, s});
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_THAT(std::vector<uint64_t>(l->flat<uint64_t>().begin(), l->flat<uint64_t>().end()),
              ElementsAre(1ull << 63, 0, 0xF00, 0));
  auto r = RunOp("RightShift", {x, s});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(std::vector<uint64_t>(r->flat<uint64_t>().begin(), r->flat<uint64_t>().end()),
              ElementsAre(0, 1, 0xF, 0));  // logical: no sign to extend
  auto r16 = RunOp("RightShift", {Make<uint16_t>(Shape({2}), {0x8000, 16}), Make<uint16_t>(Shape({}), {2})});
  ASSERT_TRUE(r16.ok()) << r16.status();
  ExpectClose(*r16, {0x2000, 4});
}

TEST(HalfArithmeticTest, ComputedInFloatAndRounded) {
  Tensor a = Make<Float16>(Shape({4}), {Float16(1.0f), Float16(-5.5f), Float16(65504.0f), Float16(2.0f)});
  Tensor b = Make<Float16>(Shape({4}), {Float16(0x1p-11f), Float16(2.0f), Float16(65504.0f), Float16(NAN)});
  auto sum = RunOp("Add", {a, b});
  ASSERT_TRUE(sum.ok()) << sum.status();
  ASSERT_EQ(sum->dtype(), DType::kFloat16);
  ExpectClose(*sum, {1.0, -3.5, INFINITY, NAN});  // 1 + 2^-11 ties to 1; overflow to inf
  auto mx = RunOp("Maximum", {a, Make<Float16>(Shape({}), {Float16(1.5f)})});
  ASSERT_TRUE(mx.ok()) << mx.status();
  ExpectClose(*mx, {1.5, 1.5, 65504, 2.0});
  auto mod = RunOp("TruncateMod", {Make<Float16>(Shape({2}), {Float16(-4.3f), Float16(7.5f)}),
                                   Make<Float16>(Shape({}), {Float16(2.0f)})});
  ASSERT_TRUE(mod.ok()) << mod.status();
  // fmod of the float16 values (-4.30078125, 7.5) by 2, rounded to float16.
  ExpectClose(*mod, {static_cast<float>(Float16(std::fmod(-4.30078125, 2.0))), 1.5});
  auto bf = RunOp("Mul", {Make<BFloat16>(Shape({2}), {BFloat16(3.0f), BFloat16(1.0f / 3)}),
                          Make<BFloat16>(Shape({}), {BFloat16(3.0f)})});
  ASSERT_TRUE(bf.ok()) << bf.status();
  ASSERT_EQ(bf->dtype(), DType::kBFloat16);
  EXPECT_THAT(Bits<BFloat16>(*bf), ElementsAre(0x4110, 0x3F80));  // 9; 0.333984375 * 3 -> 1.0
  auto less = RunOp("LessEqual", {a, Make<Float16>(Shape({}), {Float16(1.0f)})});
  ASSERT_TRUE(less.ok()) << less.status();
  ExpectClose(*less, {1, 1, 0, 0});
}

TEST(NewDTypeErrorsTest, OpsWithoutKernelsSayWhich) {
  // Reductions have no uint32 kernel, unary math no float16 kernel, MatMul no uint64:
  // inference or planning fails naming the dtype, never computing garbage.
  auto sum = RunOp("Sum", {Make<uint32_t>(Shape({2}), {1, 2})});
  ASSERT_FALSE(sum.ok());
  EXPECT_THAT(sum.status().message(), HasSubstr("no CPU kernel for op 'Sum' with dtype uint32"));
  auto exp = RunOp("Exp", {Make<Float16>(Shape({1}), {Float16(1.0f)})});
  ASSERT_FALSE(exp.ok());
  EXPECT_THAT(exp.status().message(), HasSubstr("float16"));
  auto matmul = RunOp("MatMul", {Make<uint64_t>(Shape({1, 1}), {1}), Make<uint64_t>(Shape({1, 1}), {1})});
  ASSERT_FALSE(matmul.ok());
  EXPECT_THAT(matmul.status().message(), HasSubstr("uint64"));
}

}  // namespace
}  // namespace graphd::executor::test
