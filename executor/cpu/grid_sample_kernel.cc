// GridSample on channels-first images: grid coordinates in [-1, 1] mapped to pixel
// space (corner pixels' centres at +-1 with align_corners, else the image edges),
// out-of-range points handled by zeros, border (clamp) or reflection padding, then
// nearest (round half to even), bilinear or bicubic (A = -0.75) interpolation.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

enum class Mode { kBilinear, kNearest, kBicubic };
enum class Padding { kZeros, kBorder, kReflection };

struct Sampler {
  Mode mode;
  Padding padding;
  bool align_corners;
};

// `v` (finite) folded back into [lo, hi] by reflection at both ends.
double Reflect(double v, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (v >= lo && v <= hi) return v;
  // d past the crossed edge; every 2*range the reflection repeats (fmod is exact, and
  // no count of reflections is formed, which could pass int64's range).
  const double m = std::fmod(v < lo ? lo - v : v - hi, 2 * range);
  const bool even = m < range;  // an even number of whole reflections
  const double r = even ? m : m - range;
  if (v < lo) return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

// Cubic convolution weights for the 4 taps around a point at fraction t in [0, 1).
void CubicWeights(double t, double w[4]) {
  constexpr double a = -0.75;
  auto near = [&](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };           // |x| <= 1
  auto far = [&](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };      // 1 < |x| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

template <typename T>
class Plane {
 public:
  Plane(const T* data, int64_t h, int64_t w, const Sampler& s) : data_(data), h_(h), w_(w), s_(s) {
    lo_x_ = s.align_corners ? 0 : -0.5;
    hi_x_ = s.align_corners ? static_cast<double>(w - 1) : w - 0.5;
    lo_y_ = s.align_corners ? 0 : -0.5;
    hi_y_ = s.align_corners ? static_cast<double>(h - 1) : h - 0.5;
  }

  // The pixel at integer (y, x) under the padding mode.
  double At(int64_t y, int64_t x) const {
    switch (s_.padding) {
      case Padding::kZeros:
        if (y < 0 || y >= h_ || x < 0 || x >= w_) return 0;
        break;
      case Padding::kBorder:
        y = std::clamp<int64_t>(y, 0, h_ - 1);
        x = std::clamp<int64_t>(x, 0, w_ - 1);
        break;
      case Padding::kReflection:
        y = static_cast<int64_t>(Reflect(static_cast<double>(y), lo_y_, hi_y_));
        x = static_cast<int64_t>(Reflect(static_cast<double>(x), lo_x_, hi_x_));
        y = std::clamp<int64_t>(y, 0, h_ - 1);
        x = std::clamp<int64_t>(x, 0, w_ - 1);
        break;
    }
    return data_[y * w_ + x];
  }

  double Sample(double gx, double gy) const {
    double x = s_.align_corners ? (gx + 1) / 2 * (w_ - 1) : ((gx + 1) * w_ - 1) / 2;
    double y = s_.align_corners ? (gy + 1) / 2 * (h_ - 1) : ((gy + 1) * h_ - 1) / 2;
    if (s_.mode == Mode::kNearest) {
      x = std::nearbyint(x);
      y = std::nearbyint(y);
    }
    // A NaN coordinate samples NaN; so does an infinite one under reflection.
    if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
    if (x < lo_x_ || x > hi_x_ || y < lo_y_ || y > hi_y_) {
      if (s_.padding == Padding::kBorder) {
        x = std::clamp(x, 0.0, static_cast<double>(w_ - 1));
        y = std::clamp(y, 0.0, static_cast<double>(h_ - 1));
      } else if (s_.padding == Padding::kReflection) {
        if (std::isinf(x) || std::isinf(y)) return std::numeric_limits<double>::quiet_NaN();
        x = Reflect(x, lo_x_, hi_x_);
        y = Reflect(y, lo_y_, hi_y_);
      } else {
        // Zeros: every tap (cubic reaches 2 pixels out) of a point 4 pixels outside is
        // outside too, so farther points (up to infinity) move there, keeping the pixel
        // indices below in int64's range.
        x = std::clamp(x, lo_x_ - 4, hi_x_ + 4);
        y = std::clamp(y, lo_y_ - 4, hi_y_ + 4);
      }
    }
    if (s_.mode == Mode::kNearest) return At(static_cast<int64_t>(y), static_cast<int64_t>(x));
    const double fx = std::floor(x), fy = std::floor(y);
    const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
    if (s_.mode == Mode::kBilinear) {
      const double dx = x - fx, dy = y - fy;
      return (1 - dy) * ((1 - dx) * At(y0, x0) + dx * At(y0, x0 + 1)) +
             dy * ((1 - dx) * At(y0 + 1, x0) + dx * At(y0 + 1, x0 + 1));
    }
    double wx[4], wy[4];
    CubicWeights(x - fx, wx);
    CubicWeights(y - fy, wy);
    double acc = 0;
    for (int i = 0; i < 4; ++i) {
      double row = 0;
      for (int j = 0; j < 4; ++j) row += wx[j] * At(y0 - 1 + i, x0 - 1 + j);
      acc += wy[i] * row;
    }
    return acc;
  }

 private:
  const T* data_;
  int64_t h_, w_;
  Sampler s_;
  double lo_x_, hi_x_, lo_y_, hi_y_;
};

template <typename T>
Status GridSample(KernelContext& ctx, const Sampler& s) {
  const Tensor& x = ctx.input(0);
  const Tensor& grid = ctx.input(1);
  if (x.shape().rank() != 4 || grid.shape().rank() != 4 || grid.shape().dim(3) != 2 ||
      grid.shape().dim(0) != x.shape().dim(0)) {
    return ctx.Error(absl::StrCat("expected x [N, C, H, W] and grid [N, Ho, Wo, 2], got ",
                                  x.shape().ToString(), " and ", grid.shape().ToString()));
  }
  const int64_t n = x.shape().dim(0), c = x.shape().dim(1), h = x.shape().dim(2), w = x.shape().dim(3);
  const int64_t ho = grid.shape().dim(1), wo = grid.shape().dim(2);
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape({n, c, ho, wo})));
  if (out->num_elements() == 0) return absl::OkStatus();
  if (h == 0 || w == 0) return ctx.Error("x has an empty spatial dim");
  for (int64_t b = 0; b < n; ++b) {
    RETURN_IF_ERROR(ctx.cancellation().Check());
    const T* g = grid.data<T>() + b * ho * wo * 2;
    for (int64_t ch = 0; ch < c; ++ch) {
      Plane<T> plane(x.data<T>() + (b * c + ch) * h * w, h, w, s);
      T* o = out->data<T>() + (b * c + ch) * ho * wo;
      for (int64_t i = 0; i < ho * wo; ++i) o[i] = static_cast<T>(plane.Sample(g[2 * i], g[2 * i + 1]));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterGridSampleKernels(KernelRegistry& r) {
  r.Register("GridSample", kCpu, {DType::kFloat32, DType::kFloat64},
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               const std::string mode = AttrOr<std::string>(node, "mode", "bilinear");
               const std::string pad = AttrOr<std::string>(node, "padding_mode", "zeros");
               Sampler s{.mode = mode == "nearest" ? Mode::kNearest
                                 : mode == "bicubic" ? Mode::kBicubic
                                                     : Mode::kBilinear,
                         .padding = pad == "border" ? Padding::kBorder
                                    : pad == "reflection" ? Padding::kReflection
                                                          : Padding::kZeros,
                         .align_corners = AttrOr<bool>(node, "align_corners", false)};
               return std::make_unique<FnKernel>([s](KernelContext& ctx) -> Status {
                 if (ctx.input(0).dtype() == DType::kFloat64) return GridSample<double>(ctx, s);
                 return GridSample<float>(ctx, s);
               });
             });
}

}  // namespace graphd::executor::cpu
