// Conv2D: NHWC input, HWIO filter. float32 runs oneDNN's convolution (primitive cached
// per input/filter shape); float64 a direct loop.
#include "core/ops/conv_util.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"

namespace graphd::executor::cpu {
namespace {

struct Geometry {
  int64_t n, ih, iw, c, kh, kw, o, oh, ow;
  ops::Window h, w;
};

class Conv2DKernel : public OpKernel {
 public:
  explicit Conv2DKernel(ops::Conv2DAttrs attrs) : a_(std::move(attrs)) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    if (x.shape().rank() != 4 || f.shape().rank() != 4 || x.shape().dim(3) != f.shape().dim(2)) {
      return ctx.Error(absl::StrCat("input ", x.shape().ToString(), " (NHWC) and filter ",
                                    f.shape().ToString(), " (HWIO) do not fit"));
    }
    Geometry g{.n = x.shape().dim(0), .ih = x.shape().dim(1), .iw = x.shape().dim(2),
               .c = x.shape().dim(3), .kh = f.shape().dim(0), .kw = f.shape().dim(1),
               .o = f.shape().dim(3)};
    auto h = ops::ComputeWindow(g.ih, g.kh, a_.stride_h, a_.dilation_h, a_.padding,
                                a_.explicit_pad[0], a_.explicit_pad[1]);
    auto w = ops::ComputeWindow(g.iw, g.kw, a_.stride_w, a_.dilation_w, a_.padding,
                                a_.explicit_pad[2], a_.explicit_pad[3]);
    if (!h.ok()) return ctx.Error(h.status());
    if (!w.ok()) return ctx.Error(w.status());
    g.h = *h;
    g.w = *w;
    g.oh = h->out;
    g.ow = w->out;
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape({g.n, g.oh, g.ow, g.o})));
    if (out->num_elements() == 0) return absl::OkStatus();
    if (g.c == 0 || g.kh == 0 || g.kw == 0) {  // nothing to sum
      std::fill(static_cast<char*>(out->raw_data()),
                static_cast<char*>(out->raw_data()) + out->bytes(), 0);
      return absl::OkStatus();
    }
    if (x.dtype() == DType::kFloat32) {
      RunDnnl(x, f, *out, g);
      return absl::OkStatus();
    }
    return Loop(ctx, x.data<double>(), f.data<double>(), out->data<double>(), g);
  }

 private:
  void RunDnnl(const Tensor& x, const Tensor& f, Tensor& out, const Geometry& g) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    dnnl::memory::desc src({g.n, g.c, g.ih, g.iw}, dt::f32, tag::nhwc);
    dnnl::memory::desc wei({g.o, g.c, g.kh, g.kw}, dt::f32, tag::hwio);
    dnnl::memory::desc dst({g.n, g.o, g.oh, g.ow}, dt::f32, tag::nhwc);
    dnnl::convolution_forward prim = cache_.Get(
        {g.n, g.ih, g.iw, g.c, g.kh, g.kw, g.o}, [&] {
          dnnl::convolution_forward::desc desc(
              dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, wei,
              dst, {a_.stride_h, a_.stride_w}, {a_.dilation_h - 1, a_.dilation_w - 1},
              {g.h.pad_before, g.w.pad_before}, {g.h.pad_after, g.w.pad_after});
          return dnnl::convolution_forward(
              dnnl::convolution_forward::primitive_desc(desc, PrimitiveAttr(), Engine()));
        });
    RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(src, x)},
                        {DNNL_ARG_WEIGHTS, Wrap(wei, f)},
                        {DNNL_ARG_DST, Wrap(dst, out)}});
  }

  Status Loop(KernelContext& ctx, const double* x, const double* f, double* out,
              const Geometry& g) const {
    for (int64_t b = 0; b < g.n; ++b) {
      for (int64_t y = 0; y < g.oh; ++y) {
        RETURN_IF_ERROR(ctx.cancellation().Check());
        for (int64_t xo = 0; xo < g.ow; ++xo) {
          double* o = out + ((b * g.oh + y) * g.ow + xo) * g.o;
          std::fill(o, o + g.o, 0.0);
          for (int64_t i = 0; i < g.kh; ++i) {
            const int64_t iy = y * a_.stride_h + i * a_.dilation_h - g.h.pad_before;
            if (iy < 0 || iy >= g.ih) continue;
            for (int64_t j = 0; j < g.kw; ++j) {
              const int64_t ix = xo * a_.stride_w + j * a_.dilation_w - g.w.pad_before;
              if (ix < 0 || ix >= g.iw) continue;
              const double* in = x + ((b * g.ih + iy) * g.iw + ix) * g.c;
              const double* fw = f + (i * g.kw + j) * g.c * g.o;
              for (int64_t c = 0; c < g.c; ++c) {
                for (int64_t k = 0; k < g.o; ++k) o[k] += in[c] * fw[c * g.o + k];
              }
            }
          }
        }
      }
    }
    return absl::OkStatus();
  }

  ops::Conv2DAttrs a_;
  PrimitiveCache<dnnl::convolution_forward> cache_;
};

}  // namespace

void RegisterConvKernels(KernelRegistry& r) {
  r.Register("Conv2D", kCpu, {DType::kFloat32, DType::kFloat64},
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               ASSIGN_OR_RETURN(ops::Conv2DAttrs attrs, ops::ParseConv2DAttrs(node.attrs(), false));
               return std::make_unique<Conv2DKernel>(std::move(attrs));
             });
}

}  // namespace graphd::executor::cpu
