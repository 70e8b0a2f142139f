// Resize (core/ops/resize_ops.cc): separable, one axis at a time from the last to the
// first (the order of ONNX's reference). Each output coordinate of an axis gets its
// taps (input index, weight) once; axes whose taps are the identity are skipped.
// Linear and cubic accumulate in double.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "executor/cpu/dispatch.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

struct Tap {
  int64_t index;
  double weight;
};

// The taps of every output coordinate of one axis; `outside[o]` when coordinate o maps
// outside the input under tf_crop_and_resize (the output is extrapolation_value).
struct AxisTaps {
  std::vector<std::vector<Tap>> taps;
  std::vector<bool> outside;
  bool identity = true;
};

struct ResizeAttrs {
  std::string mode, ctm, nearest_mode;
  double cubic_a = -0.75, extrapolation = 0;
  bool exclude_outside = false;
  FloatList scales, roi;
};

// ONNX's coordinate_transformation_mode: the input coordinate of output coordinate o.
// length_resized is scale * in, a fraction when the product is not whole (3 x 1.5), as
// ONNX's reference implementation has it and its backend test data (e.g.
// test_resize_downsample_scales_linear_align_corners) expect; the operator's author
// called that intended (onnx/onnx#2462: converters make their scales fit). ONNX
// Runtime and the operator's prose use the whole output length instead, so
// align_corners, pytorch_half_pixel and tf_crop_and_resize with such scales give other
// values there (with `sizes`, or whole products, all agree).
double InputCoordinate(const ResizeAttrs& a, int axis, int64_t o, int64_t in, double scale) {
  const double out_width = scale * static_cast<double>(in);
  const double x = static_cast<double>(o);
  if (a.ctm == "align_corners") return out_width == 1 ? 0 : x * (in - 1) / (out_width - 1);
  if (a.ctm == "asymmetric") return x / scale;
  if (a.ctm == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (a.ctm == "pytorch_half_pixel") return out_width > 1 ? (x + 0.5) / scale - 0.5 : -0.5;
  if (a.ctm == "tf_crop_and_resize") {
    const size_t rank = a.roi.size() / 2;
    const double start = a.roi[axis], end = a.roi[rank + axis];
    if (out_width == 1) return (end - start) * (in - 1) / 2 + start * (in - 1);
    return x * (end - start) * (in - 1) / (out_width - 1) + start * (in - 1);
  }
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

// Keys' cubic convolution weights of the 4 taps around a point `r` past the second.
void CubicWeights(double r, double A, double w[4]) {
  auto near = [A](double t) { return ((A + 2) * t - (A + 3)) * t * t + 1; };          // |t| <= 1
  auto far = [A](double t) { return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A; };     // 1 < |t| < 2
  w[0] = far(r + 1);
  w[1] = near(r);
  w[2] = near(1 - r);
  w[3] = far(2 - r);
}

AxisTaps MakeTaps(const ResizeAttrs& a, int axis, int64_t in, int64_t out) {
  AxisTaps t;
  t.taps.resize(out);
  t.outside.assign(out, false);
  const double scale = a.scales.empty() ? static_cast<double>(out) / static_cast<double>(in) : a.scales[axis];
  for (int64_t o = 0; o < out; ++o) {
    double x = InputCoordinate(a, axis, o, in, scale);
    std::vector<Tap>& taps = t.taps[o];
    if (a.ctm == "tf_crop_and_resize" && (x < 0 || x > in - 1)) {
      t.outside[o] = true;
      t.identity = false;
      continue;
    }
    // Points more than 4 pixels outside read only edge pixels (or nothing, with
    // exclude_outside), as points 4 pixels out do: farther ones (a tiny scale, a wide
    // roi) move there, keeping the tap indices in int64's range.
    x = std::isnan(x) ? -4.0 : std::clamp(x, -4.0, static_cast<double>(in) + 4);
    const double fl = std::floor(x);
    const double r = x - fl;
    const int64_t i0 = static_cast<int64_t>(fl);
    if (a.mode == "nearest") {
      bool up = r != 0 && (a.nearest_mode == "ceil" || (a.nearest_mode == "round_prefer_ceil" && r >= 0.5) ||
                           (a.nearest_mode == "round_prefer_floor" && r > 0.5));
      taps.push_back({i0 + (up ? 1 : 0), 1.0});
    } else if (a.mode == "linear") {
      taps.push_back({i0, 1 - r});
      taps.push_back({i0 + 1, r});
    } else {
      double w[4];
      CubicWeights(r, a.cubic_a, w);
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        int64_t i = i0 - 1 + k;
        if (a.exclude_outside && (i < 0 || i >= in)) w[k] = 0;
        sum += w[k];
        taps.push_back({i, w[k]});
      }
      if (a.exclude_outside && sum != 0) {
        for (Tap& tap : taps) tap.weight /= sum;
      }
    }
    // Edge values stand in for taps past the border; zero weights are dropped.
    std::vector<Tap> kept;
    for (Tap tap : taps) {
      if (tap.weight == 0) continue;
      tap.index = std::clamp<int64_t>(tap.index, 0, in - 1);
      kept.push_back(tap);
    }
    taps = std::move(kept);
    if (in != out || taps.size() != 1 || taps[0].index != o || taps[0].weight != 1) t.identity = false;
  }
  return t;
}

// Resizes axis `axis` of `src` (dims) into `dst` (dims with dims[axis] = out).
template <typename T>
void ResizeAxis(const AxisTaps& t, const std::vector<int64_t>& dims, int axis, const T* src, T* dst,
                double extrapolation) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= dims[i];
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t in = dims[axis], out = static_cast<int64_t>(t.taps.size());
  for (int64_t b = 0; b < outer; ++b) {
    const T* s = src + b * in * inner;
    T* d = dst + b * out * inner;
    for (int64_t o = 0; o < out; ++o) {
      T* row = d + o * inner;
      const std::vector<Tap>& taps = t.taps[o];
      if (t.outside[o]) {
        std::fill(row, row + inner, FromDouble<T>(extrapolation));
      } else if (taps.size() == 1 && taps[0].weight == 1) {
        std::copy(s + taps[0].index * inner, s + (taps[0].index + 1) * inner, row);
      } else {
        for (int64_t j = 0; j < inner; ++j) {
          double acc = 0;
          for (const Tap& tap : taps) acc += tap.weight * static_cast<double>(s[tap.index * inner + j]);
          row[j] = FromDouble<T>(acc);
        }
      }
    }
  }
}

class ResizeKernel : public OpKernel {
 public:
  explicit ResizeKernel(ResizeAttrs a, IntList sizes) : a_(std::move(a)), sizes_(std::move(sizes)) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const int rank = x.shape().rank();
    if (static_cast<size_t>(rank) != sizes_.size() || (!a_.scales.empty() && a_.scales.size() != sizes_.size())) {
      return ctx.Error(absl::StrCat("input ", x.shape().ToString(), " does not have rank ", sizes_.size()));
    }
    ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, Shape(sizes_)));
    if (y->num_elements() == 0) return absl::OkStatus();
    if (x.num_elements() == 0) return ctx.Error("cannot resize an empty input to a non-empty output");
    return DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
      if constexpr (std::is_same_v<T, bool>) {
        return ctx.Error("bool tensors cannot be resized");
      } else {
        std::vector<int64_t> dims = x.shape().dims();
        std::vector<T> cur(x.data<T>(), x.data<T>() + x.num_elements()), next;
        for (int axis = rank - 1; axis >= 0; --axis) {
          RETURN_IF_ERROR(ctx.cancellation().Check());
          AxisTaps taps = MakeTaps(a_, axis, dims[axis], sizes_[axis]);
          if (taps.identity) continue;
          std::vector<int64_t> next_dims = dims;
          next_dims[axis] = sizes_[axis];
          int64_t n = 1;
          for (int64_t d : next_dims) n *= d;
          next.assign(n, T{});
          ResizeAxis<T>(taps, dims, axis, cur.data(), next.data(), a_.extrapolation);
          cur.swap(next);
          dims = std::move(next_dims);
        }
        std::copy(cur.begin(), cur.end(), y->data<T>());
        return absl::OkStatus();
      }
    });
  }

 private:
  ResizeAttrs a_;
  IntList sizes_;
};

}  // namespace

void RegisterResizeKernels(KernelRegistry& r) {
  r.Register("Resize", kCpu, kArithmeticDTypes, [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    ResizeAttrs a;
    a.mode = AttrOr<std::string>(node, "mode", "nearest");
    a.ctm = AttrOr<std::string>(node, "coordinate_transformation_mode", "half_pixel");
    a.nearest_mode = AttrOr<std::string>(node, "nearest_mode", "round_prefer_floor");
    a.cubic_a = AttrOr<float>(node, "cubic_coeff_a", -0.75f);
    a.extrapolation = AttrOr<float>(node, "extrapolation_value", 0.0f);
    a.exclude_outside = AttrOr<bool>(node, "exclude_outside", false);
    a.scales = AttrOr<FloatList>(node, "scales", {});
    a.roi = AttrOr<FloatList>(node, "roi", {});
    return std::make_unique<ResizeKernel>(std::move(a), AttrOr<IntList>(node, "sizes", {}));
  });
}

}  // namespace graphd::executor::cpu
