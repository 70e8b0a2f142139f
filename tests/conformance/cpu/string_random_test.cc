// StringJoin / StringLength, string support of the data-movement ops, and the
// stateless random ops (Philox known answers, determinism, distribution moments).
#include <cmath>

#include "executor/cpu/philox.h"
#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using ::testing::HasSubstr;

TEST(StringOpsTest, StringJoinBroadcasts) {
  Tensor a = MakeStrings(Shape({2, 1}), {"a", "b"});
  Tensor b = MakeStrings(Shape({3}), {"x", "y", "z"});
  Tensor c = MakeStrings(Shape(), {"!"});
  auto out = RunOp("StringJoin", {a, b, c}, {{"separator", std::string("-")}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), Shape({2, 3}));
  EXPECT_EQ(Strings(*out), (std::vector<std::string>{"a-x-!", "a-y-!", "a-z-!", "b-x-!", "b-y-!", "b-z-!"}));
  auto one = RunOp("StringJoin", {MakeStrings(Shape({2}), {"p", "q"})});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(Strings(*one), (std::vector<std::string>{"p", "q"}));
  auto empty = RunOp("StringJoin", {MakeStrings(Shape({0}), {}), c});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), Shape({0}));
  EXPECT_THAT(InferError("StringJoin", {TT(DType::kString, {2}), TT(DType::kInt32, {2})}),
              HasSubstr("node 'out' (StringJoin): input 1 is int32, expected string"));
  EXPECT_THAT(InferError("StringJoin", {TT(DType::kString, {2}), TT(DType::kString, {3})}),
              HasSubstr("node 'out' (StringJoin)"));
}

TEST(StringOpsTest, StringLengthBytesAndChars) {
  Tensor s = MakeStrings(Shape({4}), {"", "abc", "h\xC3\xA9llo", "\xE2\x82\xAC\xF0\x9F\x98\x80"});
  auto bytes = RunOp("StringLength", {s});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(bytes->dtype(), DType::kInt32);
  ExpectClose(*bytes, {0, 3, 6, 7});
  auto chars = RunOp("StringLength", {s}, {{"unit", std::string("UTF8_CHAR")}});
  ASSERT_TRUE(chars.ok()) << chars.status();
  ExpectClose(*chars, {0, 3, 5, 2});
  EXPECT_THAT(InferError("StringLength", {TT(DType::kString, {1})}, {{"unit", std::string("WORD")}}),
              HasSubstr("node 'out' (StringLength): attribute 'unit' is 'WORD'"));
  EXPECT_THAT(InferError("StringLength", {TT(DType::kFloat32, {1})}), HasSubstr("expected string"));
}

TEST(StringOpsTest, DataMovementOpsCarryStrings) {
  Tensor s = MakeStrings(Shape({2, 2}), {"a", "b", "c", "d"});
  for (const char* op : {"Identity", "StopGradient", "Reshape"}) {
    AttrMap attrs;
    if (std::string(op) == "Reshape") attrs["shape"] = IntList{4};
    auto out = RunOp(op, {s}, attrs);
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_EQ(Strings(*out), (std::vector<std::string>{"a", "b", "c", "d"}));
  }
  Graph g;
  auto c = g.AddNode({.name = "c", .op = "Const", .attrs = {{"value", s}}});
  ASSERT_TRUE(c.ok()) << c.status();
  auto rev = g.AddNode({.name = "r", .op = "ReverseV2", .inputs = {{*c, 0}}, .attrs = {{"axis", IntList{1}}}});
  ASSERT_TRUE(rev.ok()) << rev.status();
  auto out = RunGraph(g, {}, {"c", "r"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Strings((*out)[1]), (std::vector<std::string>{"b", "a", "d", "c"}));
  auto eq = RunOp("Equal", {s, MakeStrings(Shape(), {"c"})});
  ASSERT_TRUE(eq.ok());
  ExpectClose(*eq, {0, 0, 1, 0});
}

TEST(PhiloxTest, KnownAnswers) {
  // Random123's known-answer vectors for philox4x32-10.
  EXPECT_EQ(cpu::Philox4x32({0, 0, 0, 0}, {0, 0}),
            (cpu::PhiloxBlock{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(cpu::Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (cpu::PhiloxBlock{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(cpu::Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (cpu::PhiloxBlock{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

void Moments(const Tensor& t, double* mean, double* stddev, double* lo, double* hi) {
  std::vector<double> v = ToDouble(t);
  double s = 0, s2 = 0;
  *lo = 1e300;
  *hi = -1e300;
  for (double x : v) {
    s += x;
    s2 += x * x;
    *lo = std::min(*lo, x);
    *hi = std::max(*hi, x);
  }
  *mean = s / v.size();
  *stddev = std::sqrt(s2 / v.size() - *mean * *mean);
}

TEST(StatelessRandomTest, UniformAndNormalDistributions) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    AttrMap attrs{{"shape", IntList{100, 1000}}, {"seed", IntList{7, 42}}, {"dtype", dtype}};
    auto u = RunOp("StatelessRandomUniform", {}, attrs);
    auto n = RunOp("StatelessRandomNormal", {}, attrs);
    ASSERT_TRUE(u.ok() && n.ok()) << u.status() << n.status();
    EXPECT_EQ(u->dtype(), dtype);
    EXPECT_EQ(u->shape(), Shape({100, 1000}));
    double mean, sd, lo, hi;
    Moments(*u, &mean, &sd, &lo, &hi);
    EXPECT_NEAR(mean, 0.5, 0.005);
    EXPECT_NEAR(sd, std::sqrt(1.0 / 12), 0.005);
    EXPECT_GE(lo, 0.0);
    EXPECT_LT(hi, 1.0);
    Moments(*n, &mean, &sd, &lo, &hi);
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(sd, 1.0, 0.01);
    EXPECT_LT(lo, -3.5);  // tails exist
    EXPECT_GT(hi, 3.5);
    // Fraction within one standard deviation (68.27%).
    int64_t within = 0;
    for (double x : ToDouble(*n)) within += std::abs(x) < 1;
    EXPECT_NEAR(within / 1e5, 0.6827, 0.01);
  }
}

TEST(StatelessRandomTest, DeterministicPerSeedAndPrefixStable) {
  AttrMap attrs{{"shape", IntList{3, 7}}, {"seed", IntList{1, 2}}};
  auto a = RunOp("StatelessRandomNormal", {}, attrs);
  auto b = RunOp("StatelessRandomNormal", {}, attrs);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(ToDouble(*a), ToDouble(*b));
  attrs["seed"] = IntList{1, 3};
  auto c = RunOp("StatelessRandomNormal", {}, attrs);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(ToDouble(*a), ToDouble(*c));
  // Element i depends only on (seed, i): a longer request extends a shorter one.
  auto shorter = RunOp("StatelessRandomUniform", {}, {{"shape", IntList{5}}, {"seed", IntList{9, 9}}});
  auto longer = RunOp("StatelessRandomUniform", {}, {{"shape", IntList{2, 6}}, {"seed", IntList{9, 9}}});
  ASSERT_TRUE(shorter.ok() && longer.ok());
  std::vector<double> l = ToDouble(*longer);
  EXPECT_EQ(ToDouble(*shorter), std::vector<double>(l.begin(), l.begin() + 5));
  auto empty = RunOp("StatelessRandomUniform", {}, {{"shape", IntList{0}}, {"seed", IntList{1, 1}}});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->num_elements(), 0);
  EXPECT_THAT(InferError("StatelessRandomUniform", {}, {{"shape", IntList{2}}, {"seed", IntList{1}}}),
              HasSubstr("node 'out' (StatelessRandomUniform): seed must have 2 entries, got 1"));
  EXPECT_THAT(InferError("StatelessRandomNormal", {},
                         {{"shape", IntList{2}}, {"seed", IntList{1, 2}}, {"dtype", DType::kInt32}}),
              HasSubstr("dtype is int32, expected one of (float32, float64)"));
}

}  // namespace
}  // namespace graphd::executor::test
