#include "core/float_to_int.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace graphd {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(TruncateToIntTest, InRangeTruncatesTowardZero) {
  EXPECT_EQ(TruncateToInt<int32_t>(2.9f), 2);
  EXPECT_EQ(TruncateToInt<int32_t>(-2.9f), -2);
  EXPECT_EQ(TruncateToInt<int64_t>(-0.5), 0);
  EXPECT_EQ(TruncateToInt<int32_t>(2147483647.0), 2147483647);
  EXPECT_EQ(TruncateToInt<int32_t>(-2147483648.0f), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(TruncateToInt<int64_t>(-9223372036854775808.0f), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(TruncateToInt<int64_t>(9223371487098961920.0f), int64_t{9223371487098961920});
  EXPECT_EQ(TruncateToInt<uint8_t>(255.5f), 255);
  EXPECT_EQ(TruncateToInt<uint64_t>(1.8e19), uint64_t{18000000000000000000u});
}

TEST(TruncateToIntTest, NaNAndOutOfRangeGiveTheIndefiniteValue) {
  for (float f : {kNaN, kInf, -kInf, 2147483648.0f, -2147483904.0f, 1e30f}) {
    EXPECT_EQ(TruncateToInt<int32_t>(f), std::numeric_limits<int32_t>::min()) << f;
    EXPECT_EQ(TruncateToInt<int32_t>(static_cast<double>(f)), std::numeric_limits<int32_t>::min()) << f;
  }
  for (double d : {double{kNaN}, double{kInf}, 9223372036854775808.0, -1e19}) {
    EXPECT_EQ(TruncateToInt<int64_t>(d), std::numeric_limits<int64_t>::min()) << d;
  }
  EXPECT_EQ(TruncateToInt<int64_t>(3e9f), int64_t{3000000000});
}

TEST(TruncateToIntTest, NarrowTypesWrapThroughInt32AndUint32ThroughInt64) {
  EXPECT_EQ(TruncateToInt<uint8_t>(300.0f), 44);
  EXPECT_EQ(TruncateToInt<uint8_t>(-1.0f), 255);
  EXPECT_EQ(TruncateToInt<int8_t>(128.0f), -128);
  EXPECT_EQ(TruncateToInt<int16_t>(40000.0), -25536);
  EXPECT_EQ(TruncateToInt<uint16_t>(kNaN), 0);  // int32 min wraps to 0
  EXPECT_EQ(TruncateToInt<int8_t>(kInf), 0);
  EXPECT_EQ(TruncateToInt<uint32_t>(5e9), uint32_t{705032704});
  EXPECT_EQ(TruncateToInt<uint32_t>(-1.0f), uint32_t{4294967295u});
  EXPECT_EQ(TruncateToInt<uint32_t>(kNaN), 0u);  // int64 min wraps to 0
}

TEST(TruncateToIntTest, Uint64) {
  EXPECT_EQ(TruncateToInt<uint64_t>(-1.0), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(TruncateToInt<uint64_t>(18446744073709551616.0), 0u);
  EXPECT_EQ(TruncateToInt<uint64_t>(kInf), 0u);
  EXPECT_EQ(TruncateToInt<uint64_t>(kNaN), uint64_t{1} << 63);
  EXPECT_EQ(TruncateToInt<uint64_t>(-kInf), uint64_t{1} << 63);
}

TEST(TruncateInRangeTest, NulloptOutsideTheRange) {
  EXPECT_EQ(TruncateInRange<int32_t>(-2147483648.9), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(TruncateInRange<int32_t>(2147483647.9), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(TruncateInRange<int32_t>(2147483648.0), std::nullopt);
  EXPECT_EQ(TruncateInRange<int32_t>(-2147483649.0), std::nullopt);
  EXPECT_EQ(TruncateInRange<int64_t>(-9223372036854775808.0f), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(TruncateInRange<int64_t>(9223372036854775808.0), std::nullopt);
  EXPECT_EQ(TruncateInRange<uint8_t>(-0.9f), 0);
  EXPECT_EQ(TruncateInRange<uint8_t>(-1.0f), std::nullopt);
  EXPECT_EQ(TruncateInRange<uint8_t>(256.0f), std::nullopt);
  EXPECT_EQ(TruncateInRange<int64_t>(kNaN), std::nullopt);
  EXPECT_EQ(TruncateInRange<int64_t>(kInf), std::nullopt);
  EXPECT_EQ(TruncateInRange<int64_t>(-kInf), std::nullopt);
}

#if defined(__x86_64__)
// The contract is x86-64's own conversion: compare with the instructions on special
// values and random bit patterns (every exponent, NaNs and infinities included).
TEST(TruncateToIntTest, MatchesTheX86Conversion) {
  std::mt19937 rng(7);
  std::vector<float> floats = {0.0f, -0.0f, kNaN, kInf, -kInf, 2147483520.0f, 2147483648.0f,
                               -2147483648.0f, -2147483904.0f, 9.2233715e18f, 9.223372e18f};
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    floats.push_back(f);
  }
  for (float f : floats) {
    ASSERT_EQ(TruncateToInt<int32_t>(f), _mm_cvtt_ss2si(_mm_set_ss(f))) << f;
    ASSERT_EQ(TruncateToInt<int64_t>(f), _mm_cvttss_si64(_mm_set_ss(f))) << f;
    const double d = f * 3.0;
    ASSERT_EQ(TruncateToInt<int32_t>(d), _mm_cvttsd_si32(_mm_set_sd(d))) << d;
    ASSERT_EQ(TruncateToInt<int64_t>(d), _mm_cvttsd_si64(_mm_set_sd(d))) << d;
  }
}
#endif

}  // namespace
}  // namespace graphd
