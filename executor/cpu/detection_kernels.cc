// MultiClassNonMaxSuppression (greedy, per batch and class) and RoiAlign (average or
// maximum of bilinear samples per output cell), channels-first images.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

// Corners (y1, x1, y2, x2) with y1 <= y2 and x1 <= x2.
template <typename T>
std::array<T, 4> Corners(const T* b, bool center) {
  if (center) {  // x_center, y_center, width, height
    return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

template <typename T>
double Iou(const std::array<T, 4>& a, const std::array<T, 4>& b) {
  const double area_a = (double(a[2]) - a[0]) * (double(a[3]) - a[1]);
  const double area_b = (double(b[2]) - b[0]) * (double(b[3]) - b[1]);
  if (area_a <= 0 || area_b <= 0) return 0;
  const double h = std::min<double>(a[2], b[2]) - std::max<double>(a[0], b[0]);
  const double w = std::min<double>(a[3], b[3]) - std::max<double>(a[1], b[1]);
  if (h <= 0 || w <= 0) return 0;
  const double inter = h * w;
  return inter / (area_a + area_b - inter);
}

template <typename T>
double ScalarOf(const Tensor& t, double fallback) {
  if (t.num_elements() == 0) return fallback;
  return t.data<T>()[0];
}

template <typename T>
Status Nms(KernelContext& ctx, bool center) {
  const Tensor& boxes = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  if (boxes.shape().rank() != 3 || scores.shape().rank() != 3 || boxes.shape().dim(2) != 4 ||
      boxes.shape().dim(0) != scores.shape().dim(0) || boxes.shape().dim(1) != scores.shape().dim(2)) {
    return ctx.Error(absl::StrCat("boxes ", boxes.shape().ToString(), " and scores ",
                                  scores.shape().ToString(), " must be [B, N, 4] and [B, C, N]"));
  }
  const Tensor& max_t = ctx.input(2);
  const int64_t max_out = max_t.num_elements() == 0 ? 0
                          : max_t.dtype() == DType::kInt32 ? int64_t{max_t.data<int32_t>()[0]}
                                                           : max_t.data<int64_t>()[0];
  const double iou_threshold = ScalarOf<T>(ctx.input(3), 0);
  const double score_threshold = ScalarOf<T>(ctx.input(4), -INFINITY);
  const int64_t batches = boxes.shape().dim(0), n = boxes.shape().dim(1), classes = scores.shape().dim(1);
  std::vector<int64_t> selected;  // (batch, class, box) triples
  if (max_out > 0) {
    std::vector<std::array<T, 4>> corners(n);
    std::vector<int64_t> order, kept;
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < n; ++i) corners[i] = Corners(boxes.data<T>() + (b * n + i) * 4, center);
      for (int64_t c = 0; c < classes; ++c) {
        RETURN_IF_ERROR(ctx.cancellation().Check());
        const T* s = scores.data<T>() + (b * classes + c) * n;
        order.clear();
        for (int64_t i = 0; i < n; ++i) {
          if (s[i] > score_threshold) order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
        kept.clear();
        for (int64_t i : order) {
          if (static_cast<int64_t>(kept.size()) >= max_out) break;
          bool keep = true;
          for (int64_t k : kept) {
            if (Iou(corners[i], corners[k]) > iou_threshold) {
              keep = false;
              break;
            }
          }
          if (!keep) continue;
          kept.push_back(i);
          selected.insert(selected.end(), {b, c, i});
        }
      }
    }
  }
  const int64_t rows = static_cast<int64_t>(selected.size()) / 3;
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape({rows, 3})));
  std::copy(selected.begin(), selected.end(), out->data<int64_t>());
  return absl::OkStatus();
}

struct RoiParams {
  bool max_mode;
  int64_t oh, ow, sampling_ratio;
  double scale;
  bool half_pixel;
};

// One region's bins in pixel space and its sampling grid per bin.
struct Region {
  double x0, y0, bin_h, bin_w;
  int64_t gh, gw;
};

// Samples per bin beyond which a region is refused: an adaptive grid (sampling_ratio 0)
// takes about one sample per pixel of the bin, so this is a bin of 256 x 256 pixels;
// regions far larger than the image (or than any output grid needs) would otherwise
// cost up to 1e18 samples.
constexpr double kMaxSamplesPerBin = 65536;

StatusOr<Region> MakeRegion(const double roi[4], const RoiParams& p, int64_t index) {
  const double offset = p.half_pixel ? 0.5 : 0;
  const double x0 = roi[0] * p.scale - offset, y0 = roi[1] * p.scale - offset;
  double rw = roi[2] * p.scale - offset - x0, rh = roi[3] * p.scale - offset - y0;
  if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(rw) || !std::isfinite(rh)) {
    return errors::InvalidArgument(absl::StrCat("rois[", index, "] scaled by spatial_scale ", p.scale,
                                                " is not finite"));
  }
  if (!p.half_pixel) {
    rw = std::max(rw, 1.0);
    rh = std::max(rh, 1.0);
  }
  const double bin_h = rh / p.oh, bin_w = rw / p.ow;
  const double gh = p.sampling_ratio > 0 ? static_cast<double>(p.sampling_ratio) : std::ceil(bin_h);
  const double gw = p.sampling_ratio > 0 ? static_cast<double>(p.sampling_ratio) : std::ceil(bin_w);
  if (gh * gw > kMaxSamplesPerBin) {
    return errors::InvalidArgument(absl::StrCat("rois[", index, "] needs ", gh, " x ", gw,
                                                " samples per output cell (at most ", kMaxSamplesPerBin,
                                                "); the region is far larger than the output grid"));
  }
  // Negative extents (a reversed box) sample nothing, as ceil of a negative bin does.
  return Region{x0, y0, bin_h, bin_w, static_cast<int64_t>(std::max(gh, 0.0)),
                static_cast<int64_t>(std::max(gw, 0.0))};
}

// The average (or maximum, of the corner values times their weights) of the bilinear
// samples of `plane` [h, w] for each of the oh*ow cells of one region.
template <typename T>
void RoiCells(const T* plane, int64_t h, int64_t w, const Region& g, const RoiParams& p, T* out) {
  const double x0 = g.x0, y0 = g.y0, bin_h = g.bin_h, bin_w = g.bin_w;
  const int64_t gh = g.gh, gw = g.gw;
  const double count = std::max<int64_t>(gh * gw, 1);
  for (int64_t ph = 0; ph < p.oh; ++ph) {
    for (int64_t pw = 0; pw < p.ow; ++pw) {
      double acc = 0;
      bool first = true;
      for (int64_t iy = 0; iy < gh; ++iy) {
        for (int64_t ix = 0; ix < gw; ++ix) {
          double y = y0 + ph * bin_h + (iy + 0.5) * bin_h / gh;
          double x = x0 + pw * bin_w + (ix + 0.5) * bin_w / gw;
          double v = 0;
          if (!(y < -1.0 || y > h || x < -1.0 || x > w)) {
            y = std::max(y, 0.0);
            x = std::max(x, 0.0);
            int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x), yh, xh;
            if (yl >= h - 1) { yh = yl = h - 1; y = static_cast<double>(yl); } else { yh = yl + 1; }
            if (xl >= w - 1) { xh = xl = w - 1; x = static_cast<double>(xl); } else { xh = xl + 1; }
            const double ly = y - yl, lx = x - xl, hy = 1 - ly, hx = 1 - lx;
            const double v1 = hy * hx * plane[yl * w + xl], v2 = hy * lx * plane[yl * w + xh];
            const double v3 = ly * hx * plane[yh * w + xl], v4 = ly * lx * plane[yh * w + xh];
            v = p.max_mode ? std::max({v1, v2, v3, v4}) : v1 + v2 + v3 + v4;
          }
          if (p.max_mode) {
            acc = first ? v : std::max(acc, v);
          } else {
            acc += v;
          }
          first = false;
        }
      }
      out[ph * p.ow + pw] = static_cast<T>(p.max_mode ? acc : acc / count);
    }
  }
}

template <typename T>
Status RoiAlign(KernelContext& ctx, const RoiParams& p) {
  const Tensor& x = ctx.input(0);
  const Tensor& rois = ctx.input(1);
  const Tensor& idx = ctx.input(2);
  if (x.shape().rank() != 4 || rois.shape().rank() != 2 || rois.shape().dim(1) != 4 ||
      idx.shape().rank() != 1 || idx.shape().dim(0) != rois.shape().dim(0)) {
    return ctx.Error(absl::StrCat("expected x [N, C, H, W], rois [R, 4], batch_indices [R]; got ",
                                  x.shape().ToString(), ", ", rois.shape().ToString(), ", ",
                                  idx.shape().ToString()));
  }
  const int64_t batch = x.shape().dim(0), ch = x.shape().dim(1), h = x.shape().dim(2), w = x.shape().dim(3);
  const int64_t r = rois.shape().dim(0);
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape({r, ch, p.oh, p.ow})));
  for (int64_t i = 0; i < r; ++i) {
    RETURN_IF_ERROR(ctx.cancellation().Check());
    const int64_t b = idx.dtype() == DType::kInt32 ? int64_t{idx.data<int32_t>()[i]} : idx.data<int64_t>()[i];
    if (b < 0 || b >= batch) {
      return ctx.Error(absl::StrCat("batch_indices[", i, "] = ", b, " is out of range [0, ", batch, ")"));
    }
    const double roi[4] = {double(rois.data<T>()[i * 4]), double(rois.data<T>()[i * 4 + 1]),
                           double(rois.data<T>()[i * 4 + 2]), double(rois.data<T>()[i * 4 + 3])};
    StatusOr<Region> region_or = MakeRegion(roi, p, i);
    if (!region_or.ok()) return ctx.Error(std::string(region_or.status().message()));
    const Region& region = *region_or;
    for (int64_t c = 0; c < ch; ++c) {
      RoiCells(x.data<T>() + (b * ch + c) * h * w, h, w, region, p,
               out->data<T>() + (i * ch + c) * p.oh * p.ow);
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterDetectionKernels(KernelRegistry& r) {
  r.Register("MultiClassNonMaxSuppression", kCpu, DType::kInt64,
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               const bool center = AttrOr<bool>(node, "center_point_box", false);
               return std::make_unique<FnKernel>([center](KernelContext& ctx) -> Status {
                 if (ctx.input(0).dtype() == DType::kFloat64) return Nms<double>(ctx, center);
                 return Nms<float>(ctx, center);
               });
             });
  r.Register("RoiAlign", kCpu, {DType::kFloat32, DType::kFloat64},
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               RoiParams p{.max_mode = AttrOr<std::string>(node, "mode", "avg") == "max",
                           .oh = AttrOr<int64_t>(node, "output_height", 1),
                           .ow = AttrOr<int64_t>(node, "output_width", 1),
                           .sampling_ratio = AttrOr<int64_t>(node, "sampling_ratio", 0),
                           .scale = AttrOr<float>(node, "spatial_scale", 1.f),
                           .half_pixel = AttrOr<bool>(node, "half_pixel", true)};
               return std::make_unique<FnKernel>([p](KernelContext& ctx) -> Status {
                 if (ctx.input(0).dtype() == DType::kFloat64) return RoiAlign<double>(ctx, p);
                 return RoiAlign<float>(ctx, p);
               });
             });
}

}  // namespace graphd::executor::cpu
