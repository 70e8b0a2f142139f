// MaxPool and AvgPool (NHWC; SAME padding excludes the padded cells, as TensorFlow
// does). float32 max pools run max_pool_channels_last.h's loop, average pools oneDNN's
// pooling; float64 a direct loop. Max pools take TensorFlow's values: each output
// starts at the dtype's lowest and takes std::max of each cell (a NaN never wins).
#include <limits>

#include "core/ops/conv_util.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/max_pool_channels_last.h"

namespace graphd::executor::cpu {
namespace {

class PoolKernel : public OpKernel {
 public:
  PoolKernel(bool max, ops::Conv2DAttrs attrs) : max_(max), a_(std::move(attrs)) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.shape().rank() != 4) {
      return ctx.Error(absl::StrCat("input must have rank 4 (NHWC), got ", x.shape().ToString()));
    }
    const int64_t n = x.shape().dim(0), ih = x.shape().dim(1), iw = x.shape().dim(2),
                  c = x.shape().dim(3);
    auto h = ops::ComputeWindow(ih, a_.window_h, a_.stride_h, 1, a_.padding, 0, 0);
    auto w = ops::ComputeWindow(iw, a_.window_w, a_.stride_w, 1, a_.padding, 0, 0);
    if (!h.ok()) return ctx.Error(h.status());
    if (!w.ok()) return ctx.Error(w.status());
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape({n, h->out, w->out, c})));
    if (out->num_elements() == 0) return absl::OkStatus();
    if (x.dtype() == DType::kFloat32 && max_) {
      const MaxPool2d g{.n = n, .h = ih, .w = iw, .c = c, .oh = h->out, .ow = w->out, .kh = a_.window_h,
                        .kw = a_.window_w, .sh = a_.stride_h, .sw = a_.stride_w, .ph = h->pad_before,
                        .pw = w->pad_before};
      if (MaxPoolFits(g)) {
        MaxPoolChannelsLast(x.data<float>(), g, out->data<float>());
        return absl::OkStatus();
      }
    }
    if (x.dtype() == DType::kFloat32) {
      RunDnnl(x, *out, *h, *w);
      return absl::OkStatus();
    }
    const double* px = x.data<double>();
    double* po = out->data<double>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t y = 0; y < h->out; ++y) {
        RETURN_IF_ERROR(ctx.cancellation().Check());
        for (int64_t xo = 0; xo < w->out; ++xo) {
          const int64_t y0 = std::max<int64_t>(y * a_.stride_h - h->pad_before, 0);
          const int64_t y1 = std::min(y * a_.stride_h - h->pad_before + a_.window_h, ih);
          const int64_t x0 = std::max<int64_t>(xo * a_.stride_w - w->pad_before, 0);
          const int64_t x1 = std::min(xo * a_.stride_w - w->pad_before + a_.window_w, iw);
          double* o = po + ((b * h->out + y) * w->out + xo) * c;
          for (int64_t k = 0; k < c; ++k) {
            double acc = max_ ? std::numeric_limits<double>::lowest() : 0.0;
            for (int64_t i = y0; i < y1; ++i) {
              for (int64_t j = x0; j < x1; ++j) {
                double v = px[((b * ih + i) * iw + j) * c + k];
                acc = max_ ? std::max(acc, v) : acc + v;
              }
            }
            o[k] = max_ ? acc : acc / static_cast<double>((y1 - y0) * (x1 - x0));
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  void RunDnnl(const Tensor& x, Tensor& out, const ops::Window& h, const ops::Window& w) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    const Shape& s = x.shape();
    dnnl::memory::desc src({s.dim(0), s.dim(3), s.dim(1), s.dim(2)}, dt::f32, tag::nhwc);
    dnnl::memory::desc dst({s.dim(0), s.dim(3), h.out, w.out}, dt::f32, tag::nhwc);
    dnnl::pooling_forward prim = cache_.Get(s.dims(), [&] {
      dnnl::pooling_forward::desc desc(
          dnnl::prop_kind::forward_inference,
          max_ ? dnnl::algorithm::pooling_max : dnnl::algorithm::pooling_avg_exclude_padding, src,
          dst, {a_.stride_h, a_.stride_w}, {a_.window_h, a_.window_w},
          {h.pad_before, w.pad_before}, {h.pad_after, w.pad_after});
      return dnnl::pooling_forward(
          dnnl::pooling_forward::primitive_desc(desc, PrimitiveAttr(), Engine()));
    });
    RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(src, x)}, {DNNL_ARG_DST, Wrap(dst, out)}},
                 x.num_elements() + out.num_elements());
  }

  bool max_;
  ops::Conv2DAttrs a_;
  PrimitiveCache<dnnl::pooling_forward> cache_;
};

KernelFactory Factory(bool max) {
  return [max](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    ASSIGN_OR_RETURN(ops::Conv2DAttrs attrs, ops::ParseConv2DAttrs(node.attrs(), true));
    return std::make_unique<PoolKernel>(max, std::move(attrs));
  };
}

}  // namespace

void RegisterPoolKernels(KernelRegistry& r) {
  r.Register("MaxPool", kCpu, {DType::kFloat32, DType::kFloat64}, Factory(true));
  r.Register("AvgPool", kCpu, {DType::kFloat32, DType::kFloat64}, Factory(false));
}

}  // namespace graphd::executor::cpu
