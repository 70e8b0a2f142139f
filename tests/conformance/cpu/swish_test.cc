// Swish (x * sigmoid(x)): executor/cpu/swish.h's loops on every instruction set the
// host has, against x / (1 + exp(-x)) in double, and ConvND with a fused Swish (which
// runs those loops after oneDNN's primitive) against the plain convolution followed by
// the exact function, with and without a residual, channels-first and channels-last.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "executor/cpu/swish.h"
#include "executor/cpu/team.h"
#include "gmock/gmock.h"
#include "tests/conformance/cpu/op_test_util.h"

namespace graphd::executor::test {
namespace {

using cpu::SwishIsa;

double ExactSwish(double x) { return x / (1 + std::exp(-x)); }

// The process's default team again when it goes (also after a failed ASSERT).
struct TeamReset {
  ~TeamReset() { cpu::SetIntraOpThreads(0); }
};

// Units in the last place of float at `v`.
double Ulp(double v) {
  const float f = std::abs(static_cast<float>(v));
  return std::nextafter(f, std::numeric_limits<float>::infinity()) - f;
}

// The worst error in ulp of `loop` (x -> y on `isa`) against `exact` over [-95, 95] in
// steps of 1e-4, with `tiny_below` the x under which the exact value is a denormal or
// less and `tiny` the absolute error allowed there; fails past four ulp.
template <typename Loop, typename Exact>
void ExpectWithinFourUlp(const Loop& loop, const Exact& exact, float tiny_below, double tiny) {
  std::vector<float> xs;
  for (int i = -950000; i <= 950000; ++i) xs.push_back(static_cast<float>(i) * 1e-4f);
  for (SwishIsa isa : {SwishIsa::kAvx512, SwishIsa::kAvx2, SwishIsa::kPortable}) {
    if (!cpu::HostHas(isa)) continue;
    SCOPED_TRACE(static_cast<int>(isa));
    std::vector<float> y(xs.size());
    loop(isa, xs.data(), y.data(), static_cast<int64_t>(xs.size()));
    double worst = 0;
    float worst_x = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = exact(xs[i]);
      const double err = std::abs(y[i] - want);
      const double ulps = xs[i] < tiny_below ? (err <= tiny ? 0 : 1e9) : err / Ulp(want);
      if (ulps > worst) {
        worst = ulps;
        worst_x = xs[i];
      }
    }
    EXPECT_LE(worst, 4.0) << "at x = " << worst_x;
  }
}

TEST(SwishTest, EveryLoopIsWithinFourUlpOnASweep) {
  // Below about -87 the exact value is a denormal or less: 1e-35 absolute.
  ExpectWithinFourUlp(
      [](SwishIsa isa, const float* x, float* y, int64_t n) {
        std::copy(x, x + n, y);
        cpu::SwishRangeOn(isa, y, n);
      },
      ExactSwish, -85.f, 1e-35);
}

TEST(SwishTest, SpecialValuesAsTheLibraryGivesThem) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> values = {0.f, -0.f, 1e-40f, -1e-40f, 1e-7f, 88.f, 89.f, 100.f, 1e30f, 3e38f,
                                     -87.f, -88.7f, -89.f, -100.f, -1e30f, inf, -inf, nan};
  for (SwishIsa isa : {SwishIsa::kAvx512, SwishIsa::kAvx2, SwishIsa::kPortable}) {
    if (!cpu::HostHas(isa)) continue;
    // Each value at every position of the 8- and 16-lane vectors (rotations of the
    // list) and in the tails: 18 values, then 5 and 1.
    for (size_t c = 0; c < values.size() * 3; ++c) {  // (rotation, length) pairs
      const size_t n = c % 3 == 0 ? values.size() : c % 3 == 1 ? 5 : 1;
      std::vector<float> xs = values;
      std::rotate(xs.begin(), xs.begin() + c / 3, xs.end());
      std::vector<float> y(xs.begin(), xs.begin() + n);
      cpu::SwishRangeOn(isa, y.data(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        SCOPED_TRACE(::testing::Message() << "isa " << static_cast<int>(isa) << " x = " << xs[i]);
        const float x = xs[i];
        if (std::isnan(x) || x == -inf) {
          EXPECT_TRUE(std::isnan(y[i])) << y[i];  // -inf / (1 + inf), as the library
        } else if (x == inf || x >= 88.f) {
          EXPECT_EQ(y[i], x);
        } else if (x <= -87.f) {
          EXPECT_LE(std::abs(y[i]), 1e-35f);
          EXPECT_FALSE(y[i] > 0.f);
        } else {
          EXPECT_NEAR(y[i], ExactSwish(x), 4 * Ulp(ExactSwish(x)));
          EXPECT_EQ(std::signbit(y[i]), std::signbit(x));
        }
      }
    }
  }
}

TEST(SwishTest, TheTeamSplitCoversEveryValueOnce) {
  // Lengths around the 16-lane vectors and the parallel threshold (16384), and one
  // not a multiple of anything: SwishInPlace must equal the single-thread loop, on the
  // host's team and on a team of three (pieces of whole cache lines; the last short or
  // empty: 16400 values split 5472 + 5472 + 5456, 16384 as 5472 + 5472 + 5440).
  const TeamReset reset;
  for (int team : {0, 3}) {
    for (int64_t n : {0, 1, 15, 16, 17, 16383, 16384, 16397, 16400, 100003}) {
      SCOPED_TRACE(absl::StrCat("team ", team, ", n ", n));
      cpu::SetIntraOpThreads(team);
      std::vector<float> a(n);
      for (int64_t i = 0; i < n; ++i) a[i] = std::sin(0.37f * static_cast<float>(i)) * 7.f;
      std::vector<float> b = a;
      cpu::SwishInPlace(a.data(), n);
      cpu::SwishRange(b.data(), n);
      EXPECT_EQ(a, b);
      for (int64_t i = 0; i < n; i += 997) EXPECT_NEAR(b[i], ExactSwish(std::sin(0.37f * i) * 7.f), 1e-5);
    }
  }
}

double ExactSigmoid(double x) { return 1 / (1 + std::exp(-x)); }

TEST(SigmoidTest, EveryLoopIsWithinFourUlpOnASweep) {
  // Below about -87 the exact value is under float's smallest normal: 1e-37 absolute.
  ExpectWithinFourUlp(cpu::SigmoidRangeOn, ExactSigmoid, -86.f, 1e-37);
}

TEST(SigmoidTest, SpecialValuesAndTheTeamSplit) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> values = {0.f, -0.f, 1e-40f, -1e-40f, 20.f, 88.f, 100.f, 1e30f, 3e38f, -87.f,
                                     -88.7f, -89.f, -100.f, -1e30f, inf, -inf, nan, -nan};
  for (SwishIsa isa : {SwishIsa::kAvx512, SwishIsa::kAvx2, SwishIsa::kPortable}) {
    if (!cpu::HostHas(isa)) continue;
    // Each value at every lane of the 8- and 16-lane vectors, and in the tails.
    for (size_t c = 0; c < values.size() * 3; ++c) {  // (rotation, length) pairs
      const size_t n = c % 3 == 0 ? values.size() : c % 3 == 1 ? 5 : 1;
      std::vector<float> xs = values;
      std::rotate(xs.begin(), xs.begin() + c / 3, xs.end());
      std::vector<float> y(n);
      cpu::SigmoidRangeOn(isa, xs.data(), y.data(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        SCOPED_TRACE(::testing::Message() << "isa " << static_cast<int>(isa) << " x = " << xs[i]);
        const float x = xs[i];
        if (std::isnan(x)) {
          EXPECT_TRUE(std::isnan(y[i])) << y[i];
        } else if (x >= 20.f) {
          EXPECT_EQ(y[i], 1.f);
        } else if (x <= -88.7f) {
          EXPECT_GE(y[i], 0.f);
          EXPECT_LE(y[i], 1e-38f);
        } else {
          EXPECT_NEAR(y[i], ExactSigmoid(x), 4 * Ulp(ExactSigmoid(x)));
        }
      }
    }
  }
  // Out of place on the team (a team of three too) as on one thread; in place too.
  const TeamReset reset;
  for (int team : {0, 3}) {
    for (int64_t n : {0, 1, 17, 16384, 16400, 100003}) {
      SCOPED_TRACE(absl::StrCat("team ", team, ", n ", n));
      cpu::SetIntraOpThreads(team);
      std::vector<float> x(n), y(n, -1.f), z(n);
      for (int64_t i = 0; i < n; ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) * 9.f;
      cpu::Sigmoid(x.data(), y.data(), n);
      cpu::SigmoidRangeOn(SwishIsa::kPortable, x.data(), z.data(), n);
      for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(y[i], z[i], 4 * Ulp(z[i])) << i;
      cpu::Sigmoid(x.data(), x.data(), n);
      EXPECT_EQ(x, y);
    }
  }
}

// A 4-D float tensor [N, C, H, W] as [N, H, W, C] (to_last) or back.
Tensor Relayout(const Tensor& t, bool to_last) {
  const std::vector<int64_t>& d = t.shape().dims();
  const int64_t n = d[0], c = to_last ? d[1] : d[3], h = to_last ? d[2] : d[1], w = to_last ? d[3] : d[2];
  Tensor out = Tensor::Allocate(DType::kFloat32, to_last ? Shape({n, h, w, c}) : Shape({n, c, h, w})).value();
  const float* src = t.data<float>();
  float* dst = out.data<float>();
  for (int64_t a = 0; a < n; ++a)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t i = 0; i < h * w; ++i) {
        const int64_t first = (a * c + k) * h * w + i, last = (a * h * w + i) * c + k;
        if (to_last) dst[last] = src[first];
        else dst[first] = src[last];
      }
  return out;
}
Tensor ChannelsLast(const Tensor& t) { return Relayout(t, true); }
Tensor ChannelsFirst(const Tensor& t) { return Relayout(t, false); }

struct ConvCase {
  Shape x, f;  // x channels-first
  IntList strides, pads;
  int64_t group;
};

// act(conv + residual) with the exact Swish, from the plain convolution.
std::vector<double> Reference(const std::vector<Tensor>& in, const AttrMap& plain, const Tensor* residual) {
  auto conv = RunOp("ConvND", in, plain);
  EXPECT_TRUE(conv.ok()) << conv.status();
  std::vector<double> y = ToDouble(*conv);
  std::vector<double> r = residual != nullptr ? ToDouble(*residual) : std::vector<double>(y.size(), 0.0);
  for (size_t i = 0; i < y.size(); ++i) y[i] = ExactSwish(static_cast<float>(y[i] + r[i]));
  return y;
}

TEST(SwishTest, FusedIntoConvNdMatchesTheExactFunction) {
  const std::vector<ConvCase> cases = {
      {Shape({1, 16, 20, 20}), Shape({96, 16, 1, 1}), {1, 1}, {0, 0, 0, 0}, 1},     // expansion (oneDNN)
      {Shape({1, 96, 20, 20}), Shape({96, 1, 3, 3}), {2, 2}, {1, 1, 1, 1}, 96},     // depthwise, stride 2
      {Shape({2, 40, 9, 9}), Shape({40, 1, 5, 5}), {1, 1}, {2, 2, 2, 2}, 40},       // depthwise 5x5
      {Shape({1, 3, 33, 31}), Shape({32, 3, 3, 3}), {2, 2}, {1, 1, 1, 1}, 1},       // a 32-channel stem
      {Shape({1, 8, 6, 6}), Shape({12, 8, 1, 1}), {1, 1}, {0, 0, 0, 0}, 1},         // small (conv_pointwise)
  };
  std::mt19937 rng(5);
  for (const ConvCase& c : cases) {
    // Wide values, so that the sigmoid's tails are exercised too.
    Tensor x = Random<float>(c.x, rng, -4, 4), f = Random<float>(c.f, rng, -2, 2);
    Tensor b = Random<float>(Shape({c.f.dim(0)}), rng, -3, 3);
    std::vector<Tensor> in{x, f, b};
    const AttrMap plain{{"strides", c.strides}, {"pads", c.pads}, {"group", c.group}};
    auto out = RunOp("ConvND", in, plain);
    ASSERT_TRUE(out.ok()) << out.status();
    Tensor r = Random<float>(out->shape(), rng, -3, 3);
    for (bool residual : {false, true}) {
      const std::vector<double> want = Reference(in, plain, residual ? &r : nullptr);
      for (bool last : {false, true}) {
        SCOPED_TRACE(absl::StrCat(x.DebugString(), " * ", f.DebugString(), " residual ", residual,
                                  " channels_last ", last));
        AttrMap attrs = plain;
        attrs["activation"] = std::string("Swish");
        attrs["channels_last"] = last;
        attrs["constant_filter"] = last;
        std::vector<Tensor> args = in;
        if (last) args[0] = ChannelsLast(x);
        if (residual) {
          attrs["residual"] = true;
          args.push_back(last ? ChannelsLast(r) : r);
        }
        auto got = RunOp("ConvND", args, attrs);
        ASSERT_TRUE(got.ok()) << got.status();
        ExpectClose(last ? ChannelsFirst(*got) : *got, want, 1e-5, 1e-5);
      }
    }
  }
}

}  // namespace
}  // namespace graphd::executor::test
