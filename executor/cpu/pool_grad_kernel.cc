// MaxPoolGrad (NHWC, as TensorFlow's): dx = 0, then each window's grad is added at
// the window's first maximum of orig_input (row-major order in the window; a window
// of NaNs gives it to its first cell). One pass over orig_input and grad, channels
// innermost, so the loop over a window's channels is contiguous.
#include <limits>
#include <vector>

#include "core/ops/conv_util.h"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {
namespace {

class MaxPoolGradKernel : public OpKernel {
 public:
  explicit MaxPoolGradKernel(ops::Conv2DAttrs attrs) : a_(std::move(attrs)) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& dy = ctx.input(2);
    if (x.shape().rank() != 4) {
      return ctx.Error(absl::StrCat("orig_input must have rank 4 (NHWC), got ", x.shape().ToString()));
    }
    const int64_t n = x.shape().dim(0), ih = x.shape().dim(1), iw = x.shape().dim(2), c = x.shape().dim(3);
    auto h = ops::ComputeWindow(ih, a_.window_h, a_.stride_h, 1, a_.padding, 0, 0);
    auto w = ops::ComputeWindow(iw, a_.window_w, a_.stride_w, 1, a_.padding, 0, 0);
    if (!h.ok()) return ctx.Error(h.status());
    if (!w.ok()) return ctx.Error(w.status());
    const Shape pooled({n, h->out, w->out, c});
    for (int i = 1; i < 3; ++i) {
      if (ctx.input(i).shape() != pooled) {
        return ctx.Error(absl::StrCat(i == 1 ? "orig_output" : "grad", " has shape ",
                                      ctx.input(i).shape().ToString(), " but the pool of orig_input gives ",
                                      pooled.ToString()));
      }
    }
    ASSIGN_OR_RETURN(Tensor * dx, ctx.AllocateOutput(0, x.shape()));
    if (x.dtype() == DType::kFloat32) return Run<float>(ctx, x, dy, *dx, *h, *w);
    return Run<double>(ctx, x, dy, *dx, *h, *w);
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx, const Tensor& x, const Tensor& dy, Tensor& dx, const ops::Window& h,
             const ops::Window& w) const {
    const int64_t n = x.shape().dim(0), ih = x.shape().dim(1), iw = x.shape().dim(2), c = x.shape().dim(3);
    const T* px = x.data<T>();
    const T* pg = dy.data<T>();
    T* pd = dx.data<T>();
    std::fill(pd, pd + dx.num_elements(), T(0));
    std::vector<T> best(c);
    std::vector<int64_t> where(c);  // the offset in x of each channel's maximum so far
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t y = 0; y < h.out; ++y) {
        RETURN_IF_ERROR(ctx.cancellation().Check());
        const int64_t y0 = std::max<int64_t>(y * a_.stride_h - h.pad_before, 0);
        const int64_t y1 = std::min(y * a_.stride_h - h.pad_before + a_.window_h, ih);
        for (int64_t xo = 0; xo < w.out; ++xo) {
          const int64_t x0 = std::max<int64_t>(xo * a_.stride_w - w.pad_before, 0);
          const int64_t x1 = std::min(xo * a_.stride_w - w.pad_before + a_.window_w, iw);
          if (y0 >= y1 || x0 >= x1) continue;  // a window of padding only: nothing to give
          const int64_t first = ((b * ih + y0) * iw + x0) * c;
          std::fill(best.begin(), best.end(), -std::numeric_limits<T>::infinity());
          for (int64_t k = 0; k < c; ++k) where[k] = first + k;
          for (int64_t i = y0; i < y1; ++i) {
            for (int64_t j = x0; j < x1; ++j) {
              const int64_t at = ((b * ih + i) * iw + j) * c;
              for (int64_t k = 0; k < c; ++k) {
                const T v = px[at + k];
                if (v > best[k]) {
                  best[k] = v;
                  where[k] = at + k;
                }
              }
            }
          }
          const T* g = pg + ((b * h.out + y) * w.out + xo) * c;
          for (int64_t k = 0; k < c; ++k) pd[where[k]] += g[k];
        }
      }
    }
    return absl::OkStatus();
  }

  ops::Conv2DAttrs a_;
};

}  // namespace

void RegisterPoolGradKernels(KernelRegistry& r) {
  r.Register("MaxPoolGrad", kCpu, {DType::kFloat32, DType::kFloat64},
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               ASSIGN_OR_RETURN(ops::Conv2DAttrs attrs, ops::ParseConv2DAttrs(node.attrs(), true));
               return std::make_unique<MaxPoolGradKernel>(std::move(attrs));
             });
}

}  // namespace graphd::executor::cpu
