// softmax_rows.h's loops called directly, both of them on an AVX-512 host (exp16.h's
// and the auto-vectorised ones): against a double reference over row widths around
// the 16-lane vectors, on one thread and across the team; non-finite rows; and values
// whose exp would be a denormal, which come out 0 (TensorFlow's flushed value) on both.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "executor/cpu/softmax_rows.h"
#include "gtest/gtest.h"

namespace graphd::executor::test {
namespace {

using cpu::RunSoftmaxRows;
using cpu::SoftmaxRows;

std::vector<float> RunRows(const std::vector<float>& x, int64_t rows, int64_t inner, bool log, bool avx512) {
  std::vector<float> y(x.size(), -1.f);
  RunSoftmaxRows(SoftmaxRows{.x = x.data(), .y = y.data(), .rows = rows, .inner = inner, .log = log}, avx512);
  return y;
}

TEST(SoftmaxRowsTest, BothLoopsMatchTheReference) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-30.f, 30.f);
  // Tiny rows, a vector and either side of it, ViT's 197, and enough rows for the team.
  for (const auto& [rows, inner] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {3, 15}, {5, 16}, {5, 17}, {2, 33}, {12 * 20, 197}, {64, 1000}}) {
    std::vector<float> x(rows * inner);
    for (float& v : x) v = dist(rng);
    for (bool log : {false, true}) {
      for (bool avx512 : {true, false}) {
        SCOPED_TRACE(testing::Message() << rows << "x" << inner << " log " << log << " avx512 " << avx512);
        const std::vector<float> y = RunRows(x, rows, inner, log, avx512);
        for (int64_t r = 0; r < rows; ++r) {
          const float* xr = x.data() + r * inner;
          double m = xr[0], sum = 0;
          for (int64_t i = 0; i < inner; ++i) m = std::max(m, double{xr[i]});
          for (int64_t i = 0; i < inner; ++i) sum += std::exp(xr[i] - m);
          for (int64_t i = 0; i < inner; ++i) {
            const double want = log ? xr[i] - m - std::log(sum) : std::exp(xr[i] - m) / sum;
            ASSERT_NEAR(y[r * inner + i], want, 1e-6 + 2e-6 * std::abs(want)) << "row " << r << " col " << i;
          }
        }
      }
    }
  }
}

TEST(SoftmaxRowsTest, NonFiniteAndUnderflowingValuesOnBothLoops) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t width : {3, 21}) {  // within one vector, and past one with a tail
    std::vector<float> x(5 * width, 0.f);
    x[1] = nan;                                                   // row 0: a NaN
    x[width + width - 1] = inf;                                   // row 1: +inf, in the tail
    x[2 * width + 1] = -inf;                                      // row 2: -inf among zeros
    for (int64_t i = 0; i < width; ++i) x[3 * width + i] = -inf;  // row 3: all -inf
    x[4 * width + 1] = -90.f;                                     // row 4: exp(-90) is a denormal
    x[4 * width + 2] = -1e4f;                                     // an attention mask's value
    for (bool avx512 : {true, false}) {
      SCOPED_TRACE(testing::Message() << "width " << width << " avx512 " << avx512);
      const std::vector<float> s = RunRows(x, 5, width, false, avx512), l = RunRows(x, 5, width, true, avx512);
      for (int64_t i = 0; i < 2 * width; ++i) {
        EXPECT_TRUE(std::isnan(s[i])) << i;
        EXPECT_TRUE(std::isnan(l[i])) << i;
      }
      EXPECT_FLOAT_EQ(s[2 * width], 1.f / static_cast<float>(width - 1));
      EXPECT_EQ(s[2 * width + 1], 0.f);
      EXPECT_EQ(l[2 * width + 1], -inf);
      for (int64_t i = 3 * width; i < 4 * width; ++i) EXPECT_TRUE(std::isnan(s[i])) << i;
      const float each = 1.f / static_cast<float>(width - 2);  // the zeros share the row
      EXPECT_FLOAT_EQ(s[4 * width], each);
      EXPECT_EQ(s[4 * width + 1], 0.f);
      EXPECT_EQ(s[4 * width + 2], 0.f);
      EXPECT_NEAR(l[4 * width + 1], -90.f + std::log(each), 1e-4);  // log-softmax stays finite
      EXPECT_NEAR(l[4 * width + 2], -1e4f + std::log(each), 1e-2);
    }
  }
}

}  // namespace
}  // namespace graphd::executor::test
