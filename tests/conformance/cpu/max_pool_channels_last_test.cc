// 2-D float32 max pools over channels-last data (executor/cpu/max_pool_channels_last.h)
// through MaxPoolND and TensorFlow's MaxPool, against a direct reference with
// TensorFlow's rule (each output starts at float's lowest and takes std::max of each
// input cell of its window): window, stride, dilation, padding and ceil_mode
// geometries (windows wholly in the padding included), channel counts on and off the
// vector width, batches, outputs large enough for a team of three threads (uneven row
// splits, some mid-image); NaNs in a window are dropped, padding never wins, -inf and
// signed zeros as std::max. The direct loop (float64) follows the same rule.
#include <cmath>
#include <limits>

#include <algorithm>
#include <random>

#include "executor/cpu/team.h"
#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

// A team of three threads while alive: row splits that fall mid-image and unevenly.
class TeamOfThree {
 public:
  TeamOfThree() { cpu::SetIntraOpThreads(3); }
  ~TeamOfThree() { cpu::SetIntraOpThreads(0); }
};

struct Pool {
  int64_t kh, kw, sh, sw, pt, pl, pb, pr;
  bool ceil = false;
  int64_t dh = 1, dw = 1;
};

AttrMap PoolAttrs(const Pool& p) {
  return {{"kernel_shape", IntList{p.kh, p.kw}}, {"strides", IntList{p.sh, p.sw}},
          {"pads", IntList{p.pt, p.pl, p.pb, p.pr}}, {"dilations", IntList{p.dh, p.dw}},
          {"ceil_mode", p.ceil},                     {"channels_last", true}};
}

// The pool of x ([n, h, w, c]) into an output of y's shape: per cell float's lowest,
// then std::max of it and each of its window's input cells (TensorFlow's
// SpatialMaxPool: a NaN is never taken).
Tensor Reference(const Tensor& x, const Pool& p, const Shape& out) {
  const int64_t n = x.shape().dim(0), h = x.shape().dim(1), w = x.shape().dim(2), c = x.shape().dim(3);
  const int64_t oh = out.dim(1), ow = out.dim(2);
  Tensor y = Tensor::Allocate(DType::kFloat32, out).value();
  const float* px = x.data<float>();
  float* py = y.data<float>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t r = 0; r < oh; ++r) {
      for (int64_t q = 0; q < ow; ++q) {
        for (int64_t ch = 0; ch < c; ++ch) {
          float best = std::numeric_limits<float>::lowest();
          for (int64_t i = 0; i < p.kh; ++i) {
            const int64_t ih = r * p.sh - p.pt + i * p.dh;
            if (ih < 0 || ih >= h) continue;
            for (int64_t j = 0; j < p.kw; ++j) {
              const int64_t iw = q * p.sw - p.pl + j * p.dw;
              if (iw < 0 || iw >= w) continue;
              best = std::max(best, px[((b * h + ih) * w + iw) * c + ch]);
            }
          }
          py[((b * oh + r) * ow + q) * c + ch] = best;
        }
      }
    }
  }
  return y;
}

// Bit-for-bit equal, zeros' signs included (a NaN, never the reference's, never matches).
void ExpectSame(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  int64_t wrong = 0;
  for (int64_t i = 0; i < got.num_elements() && wrong < 5; ++i) {
    const float g = got.data<float>()[i], w = want.data<float>()[i];
    const bool same = g == w && std::signbit(g) == std::signbit(w);
    if (!same) {
      ADD_FAILURE() << "at " << i << ": got " << g << ", want " << w;
      ++wrong;
    }
  }
}

void Check(const Shape& x_shape, const Pool& p, std::mt19937& rng, float nan_rate = 0.f) {
  Tensor x = Random<float>(x_shape, rng, -50, 50);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (int64_t i = 0; i < x.num_elements() && nan_rate > 0; ++i) {
    if (u(rng) < nan_rate) x.data<float>()[i] = std::numeric_limits<float>::quiet_NaN();
  }
  SCOPED_TRACE(absl::StrCat(x.DebugString(), " k ", p.kh, "x", p.kw, " s ", p.sh, "x", p.sw, " pads ", p.pt, ",",
                            p.pl, ",", p.pb, ",", p.pr, " ceil ", p.ceil, " dil ", p.dh, "x", p.dw));
  auto got = RunOp("MaxPoolND", {x}, PoolAttrs(p));
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectSame(*got, Reference(x, p, got->shape()));
}

TEST(MaxPoolChannelsLastTest, MatchesTheReferenceOverGeometries) {
  TeamOfThree team;
  std::mt19937 rng(3);
  const std::vector<Pool> pools = {
      {3, 3, 2, 2, 1, 1, 1, 1},               // ResNet's stem pool
      {2, 2, 2, 2, 0, 0, 0, 0},               // VGG's
      {3, 3, 1, 1, 1, 1, 1, 1},               // same-size output
      {3, 2, 2, 1, 1, 0, 2, 1},               // uneven window, strides and pads
      {2, 2, 2, 2, 0, 0, 0, 0, /*ceil=*/true},  // a last window half outside
      {3, 3, 2, 2, 1, 1, 1, 1, /*ceil=*/true},
      {1, 1, 1, 1, 0, 0, 0, 0},               // one tap
      {5, 5, 3, 3, 2, 2, 2, 2},
      {2, 2, 3, 3, 0, 1, 0, 1},               // stride over the window: cells skipped
      {3, 3, 1, 1, 1, 1, 1, 1, false, 2, 2},  // dilated
      {2, 3, 2, 1, 0, 2, 1, 0, false, 3, 2},
      {2, 2, 1, 1, 2, 2, 2, 2},               // windows wholly in the padding (both ends)
      {2, 2, 2, 2, 0, 0, 3, 3},               // end padding only: the last windows empty
  };
  const std::vector<Shape> shapes = {Shape({1, 9, 9, 16}), Shape({2, 7, 10, 3}), Shape({1, 8, 5, 17}),
                                     Shape({1, 6, 6, 1}), Shape({3, 11, 4, 33})};
  for (const Pool& p : pools) {
    for (const Shape& s : shapes) Check(s, p, rng);
  }
  // Outputs of 16384 values and more are split over the team's threads.
  Check(Shape({1, 112, 112, 64}), pools[0], rng);
  Check(Shape({2, 40, 40, 48}), pools[1], rng);  // 40 output rows: thirds split mid-image
  Check(Shape({1, 57, 33, 40}), pools[3], rng);
  Check(Shape({3, 30, 31, 24}), pools[9], rng);
}

TEST(MaxPoolChannelsLastTest, NansInAWindowAreDropped) {
  TeamOfThree team;
  std::mt19937 rng(7);
  // Every position of a 3x3 window in turn: one NaN, the window's largest value
  // elsewhere wins.
  const Pool p{3, 3, 3, 3, 0, 0, 0, 0};
  for (int64_t at = 0; at < 9; ++at) {
    Tensor x = Random<float>(Shape({1, 3, 3, 20}), rng, -5, 5);
    const int64_t channel = at * 2;
    x.data<float>()[at * 20 + channel] = std::numeric_limits<float>::quiet_NaN();
    float want = std::numeric_limits<float>::lowest();
    for (int64_t cell = 0; cell < 9; ++cell) {
      if (cell != at) want = std::max(want, x.data<float>()[cell * 20 + channel]);
    }
    auto got = RunOp("MaxPoolND", {x}, PoolAttrs(p));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->data<float>()[channel], want) << "NaN at tap " << at;
    ExpectSame(*got, Reference(x, p, got->shape()));  // the other channels too
  }
  // A window of NaNs only gives float's lowest.
  Tensor nan = Tensor::Allocate(DType::kFloat32, Shape({1, 2, 2, 3})).value();
  std::fill(nan.data<float>(), nan.data<float>() + 12, std::numeric_limits<float>::quiet_NaN());
  auto got = RunOp("MaxPoolND", {nan}, PoolAttrs({2, 2, 2, 2, 0, 0, 0, 0}));
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t ch = 0; ch < 3; ++ch) EXPECT_EQ(got->data<float>()[ch], std::numeric_limits<float>::lowest());
  // Scattered NaNs over pools with padding and overlap, on one thread and on the team.
  Check(Shape({1, 13, 13, 19}), {3, 3, 2, 2, 1, 1, 1, 1}, rng, 0.02f);
  Check(Shape({1, 112, 112, 64}), {3, 3, 2, 2, 1, 1, 1, 1}, rng, 0.001f);
  Check(Shape({1, 12, 12, 17}), {3, 3, 1, 1, 1, 1, 1, 1, false, 2, 2}, rng, 0.05f);  // dilated
}

// TensorFlow's MaxPool (NHWC, SAME or VALID) runs the same loop for float32 and a
// direct one for float64, both with its rule: NaNs dropped, -inf alone gives lowest.
TEST(MaxPoolChannelsLastTest, TensorFlowMaxPoolDropsNans) {
  const AttrMap attrs{{"ksize", IntList{1, 2, 2, 1}}, {"strides", IntList{1, 2, 2, 1}},
                      {"padding", std::string("SAME")}};
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // One image 2x3, one channel: windows {NaN, 1, 4, NaN} and {-inf, -inf} (SAME pads
  // the third column's window).
  const float values[6] = {nan, 1.f, -inf, 4.f, nan, -inf};
  Tensor x = Tensor::Allocate(DType::kFloat32, Shape({1, 2, 3, 1})).value();
  std::copy(values, values + 6, x.data<float>());
  Tensor xd = Tensor::Allocate(DType::kFloat64, Shape({1, 2, 3, 1})).value();
  std::copy(values, values + 6, xd.data<double>());
  auto y = RunOp("MaxPool", {x}, attrs);
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->shape(), Shape({1, 1, 2, 1}));
  EXPECT_EQ(y->data<float>()[0], 4.f);
  EXPECT_EQ(y->data<float>()[1], std::numeric_limits<float>::lowest());
  auto yd = RunOp("MaxPool", {xd}, attrs);
  ASSERT_TRUE(yd.ok()) << yd.status();
  EXPECT_EQ(yd->data<double>()[0], 4.0);
  EXPECT_EQ(yd->data<double>()[1], std::numeric_limits<double>::lowest());
  // MaxPoolND's direct loop (float64) likewise.
  auto nd = RunOp("MaxPoolND", {xd}, PoolAttrs({2, 2, 2, 2, 0, 0, 0, 1}));
  ASSERT_TRUE(nd.ok()) << nd.status();
  EXPECT_EQ(nd->data<double>()[0], 4.0);
  EXPECT_EQ(nd->data<double>()[1], std::numeric_limits<double>::lowest());
}

TEST(MaxPoolChannelsLastTest, PaddingNeverWinsAndInfinitiesAndZerosAsStdMax) {
  // All values negative: a padded window's maximum is its largest input, never 0.
  std::mt19937 rng(9);
  Tensor neg = Random<float>(Shape({1, 5, 5, 18}), rng, -9, -1);
  auto got = RunOp("MaxPoolND", {neg}, PoolAttrs({3, 3, 2, 2, 1, 1, 1, 1}));
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t i = 0; i < got->num_elements(); ++i) EXPECT_LT(got->data<float>()[i], 0.f) << i;
  // -inf alone gives float's lowest (where each output starts), +inf wins; -0 and +0
  // give the first (std::max).
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = Tensor::Allocate(DType::kFloat32, Shape({1, 1, 2, 4})).value();
  const float values[8] = {-inf, inf, -0.f, 0.f, -inf, 1.f, 0.f, -0.f};  // [w][c]
  std::copy(values, values + 8, x.data<float>());
  auto y = RunOp("MaxPoolND", {x}, PoolAttrs({1, 2, 1, 2, 0, 0, 0, 0}));
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->num_elements(), 4);
  EXPECT_EQ(y->data<float>()[0], std::numeric_limits<float>::lowest());
  EXPECT_EQ(y->data<float>()[1], inf);
  EXPECT_TRUE(y->data<float>()[2] == 0.f && std::signbit(y->data<float>()[2]));
  EXPECT_TRUE(y->data<float>()[3] == 0.f && !std::signbit(y->data<float>()[3]));
}

}  // namespace
}  // namespace graphd::executor::test
