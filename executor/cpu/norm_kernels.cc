// LayerNormalization, InstanceNormalization and LRN (core/ops/norm_ops.cc).
// LayerNormalization runs layer_norm_rows.h's loops on float32 and loops with double
// accumulators on float64; LRN runs oneDNN's lrn (across channels, nchw or
// nhwc) on float32 and loops on float64; InstanceNormalization loops (two passes per
// plane, double accumulators).
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "executor/cpu/broadcast.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/layer_norm_rows.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

// `t` broadcast to `target` (checked by inference and again here), as a dense vector.
template <typename T>
StatusOr<std::vector<T>> Expand(KernelContext& ctx, const Tensor& t, const Shape& target) {
  auto b = BroadcastShapes(target, t.shape());
  if (!b.ok() || b->ToShape() != target) {
    return ctx.Error(absl::StrCat("operand ", t.shape().ToString(), " does not broadcast to ",
                                  target.ToString()));
  }
  const std::vector<int64_t> strides = BroadcastStrides(t.shape(), target);
  std::vector<T> out(target.num_elements());
  std::vector<int64_t> pos(target.rank(), 0);
  int64_t src = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = t.data<T>()[src];
    for (int d = target.rank() - 1; d >= 0; --d) {
      src += strides[d];
      if (++pos[d] < target.dim(d)) break;
      src -= strides[d] * target.dim(d);
      pos[d] = 0;
    }
  }
  return out;
}

template <typename T>
void LayerNormLoop(const T* x, const T* scale, const T* bias, T* y, T* mean, T* inv_std,
                   int64_t outer, int64_t inner, double eps) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* xr = x + o * inner;
    T* yr = y + o * inner;
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < inner; ++i) sum += xr[i];
    const double m = sum / static_cast<double>(inner);
    for (int64_t i = 0; i < inner; ++i) sq += (xr[i] - m) * (xr[i] - m);
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(inner) + eps);
    for (int64_t i = 0; i < inner; ++i) {
      yr[i] = static_cast<T>((xr[i] - m) * inv * scale[i] + (bias ? bias[i] : T(0)));
    }
    mean[o] = static_cast<T>(m);
    inv_std[o] = static_cast<T>(inv);
  }
}

class LayerNormKernel : public OpKernel {
 public:
  LayerNormKernel(int64_t axis, double eps) : axis_(axis), eps_(eps) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Shape& s = x.shape();
    const int axis = Canonical(axis_, s.rank());
    const Shape normalized(std::vector<int64_t>(s.dims().begin() + axis, s.dims().end()));
    std::vector<int64_t> stats(s.dims().begin(), s.dims().begin() + axis);
    stats.resize(s.rank(), 1);
    ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, s));
    ASSIGN_OR_RETURN(Tensor * mean, ctx.AllocateOutput(1, Shape(stats)));
    ASSIGN_OR_RETURN(Tensor * inv_std, ctx.AllocateOutput(2, Shape(stats)));
    if (x.dtype() == DType::kFloat64) return Run<double>(ctx, x, normalized, y, mean, inv_std);
    return Run<float>(ctx, x, normalized, y, mean, inv_std);
  }

 private:
  // Fills y, mean and inv_std (one entry per normalised row: mean's elements).
  template <typename T>
  Status Run(KernelContext& ctx, const Tensor& x, const Shape& normalized, Tensor* y, Tensor* mean,
             Tensor* inv_std) {
    const int64_t inner = normalized.num_elements();
    const int64_t outer = mean->num_elements();
    std::vector<T> scale_copy, bias_copy;
    ASSIGN_OR_RETURN(const T* scale, Dense<T>(ctx, ctx.input(1), normalized, scale_copy));
    const T* bias = nullptr;
    if (ctx.num_inputs() > 2) {
      ASSIGN_OR_RETURN(bias, Dense<T>(ctx, ctx.input(2), normalized, bias_copy));
    }
    // Empty rows (inner 0) take the loop too: its NaN statistics (0 / 0).
    if constexpr (std::is_same_v<T, float>) {
      if (inner > 0) {
        RunLayerNormRows({.x = x.data<float>(), .scale = scale, .bias = bias, .y = y->data<float>(),
                          .mean = mean->data<float>(), .inv_std = inv_std->data<float>(), .rows = outer,
                          .inner = inner, .eps = eps_});
        return absl::OkStatus();
      }
    }
    LayerNormLoop<T>(x.data<T>(), scale, bias, y->data<T>(), mean->data<T>(), inv_std->data<T>(), outer, inner,
                     eps_);
    return absl::OkStatus();
  }

  // `t`'s values laid out over `normalized`: its own data when it has as many elements
  // (a valid broadcast then changes no index), otherwise expanded into `copy`.
  template <typename T>
  static StatusOr<const T*> Dense(KernelContext& ctx, const Tensor& t, const Shape& normalized, std::vector<T>& copy) {
    if (t.num_elements() == normalized.num_elements()) {
      auto b = BroadcastShapes(normalized, t.shape());
      if (b.ok() && b->ToShape() == normalized) return t.data<T>();
    }
    ASSIGN_OR_RETURN(copy, Expand<T>(ctx, t, normalized));
    return copy.data();
  }

  const int64_t axis_;
  const double eps_;
};

template <typename T>
void InstanceNorm(const T* x, const T* scale, const T* bias, T* y, int64_t n, int64_t c,
                  int64_t plane, double eps) {
  for (int64_t p = 0; p < n * c; ++p) {
    const T* xp = x + p * plane;
    T* yp = y + p * plane;
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < plane; ++i) sum += xp[i];
    const double m = sum / static_cast<double>(plane);
    for (int64_t i = 0; i < plane; ++i) sq += (xp[i] - m) * (xp[i] - m);
    const double k = scale[p % c] / std::sqrt(sq / static_cast<double>(plane) + eps);
    for (int64_t i = 0; i < plane; ++i) yp[i] = static_cast<T>((xp[i] - m) * k + bias[p % c]);
  }
}

Status InstanceNormFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Shape& s = x.shape();
  const double eps = NumberAttrOr(ctx.node(), "epsilon", 1e-5);
  const int64_t n = s.dim(0), c = s.dim(1);
  if (ctx.input(1).num_elements() != c || ctx.input(2).num_elements() != c) {
    return ctx.Error(absl::StrCat("scale and bias must have ", c, " entries"));
  }
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, s));
  const int64_t plane = n * c == 0 ? 0 : x.num_elements() / (n * c);
  if (x.dtype() == DType::kFloat64) {
    InstanceNorm(x.data<double>(), ctx.input(1).data<double>(), ctx.input(2).data<double>(),
                 y->data<double>(), n, c, plane, eps);
  } else {
    InstanceNorm(x.data<float>(), ctx.input(1).data<float>(), ctx.input(2).data<float>(),
                 y->data<float>(), n, c, plane, eps);
  }
  return absl::OkStatus();
}

template <typename T>
void LrnLoop(const T* x, T* y, int64_t n, int64_t c, int64_t h, int64_t w, bool nchw,
             int64_t radius, double bias, double alpha, double beta) {
  // Channel stride and the offset of (n, pixel) for either layout.
  const int64_t cs = nchw ? h * w : 1;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t px = 0; px < h * w; ++px) {
      const int64_t base = nchw ? b * c * h * w + px : (b * h * w + px) * c;
      for (int64_t ch = 0; ch < c; ++ch) {
        double sum = 0;
        for (int64_t k = std::max<int64_t>(0, ch - radius); k <= std::min(c - 1, ch + radius);
             ++k) {
          const double v = x[base + k * cs];
          sum += v * v;
        }
        y[base + ch * cs] = static_cast<T>(x[base + ch * cs] / std::pow(bias + alpha * sum, beta));
      }
    }
  }
}

class LrnKernel : public OpKernel {
 public:
  explicit LrnKernel(const Node& node)
      : radius_(AttrOr<int64_t>(node, "depth_radius", 5)),
        bias_(NumberAttrOr(node, "bias", 1)),
        alpha_(NumberAttrOr(node, "alpha", 1)),
        beta_(NumberAttrOr(node, "beta", 0.5)),
        nchw_(AttrOr<std::string>(node, "data_format", "NHWC") == "NCHW") {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Shape& s = x.shape();
    ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, s));
    if (x.num_elements() == 0) return absl::OkStatus();
    const int64_t n = s.dim(0), c = s.dim(nchw_ ? 1 : 3), h = s.dim(nchw_ ? 2 : 1),
                  w = s.dim(nchw_ ? 3 : 2);
    if (x.dtype() == DType::kFloat64) {
      LrnLoop(x.data<double>(), y->data<double>(), n, c, h, w, nchw_, radius_, bias_, alpha_,
              beta_);
      return absl::OkStatus();
    }
    const dnnl::memory::desc md(
        {n, c, h, w}, dnnl::memory::data_type::f32,
        nchw_ ? dnnl::memory::format_tag::nchw : dnnl::memory::format_tag::nhwc);
    auto prim = cache_.Get({n, c, h, w}, [&] {
      const int64_t size = 2 * radius_ + 1;  // oneDNN divides alpha by the window size
      return dnnl::lrn_forward(dnnl::lrn_forward::primitive_desc(
          dnnl::lrn_forward::desc(dnnl::prop_kind::forward_inference,
                                  dnnl::algorithm::lrn_across_channels, md, size,
                                  static_cast<float>(alpha_ * static_cast<double>(size)),
                                  static_cast<float>(beta_), static_cast<float>(bias_)),
          PrimitiveAttr(), Engine()));
    });
    RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(md, x)}, {DNNL_ARG_DST, Wrap(md, *y)}});
    return absl::OkStatus();
  }

 private:
  const int64_t radius_;
  const double bias_, alpha_, beta_;
  const bool nchw_;
  PrimitiveCache<dnnl::lrn_forward> cache_;
};

}  // namespace

void RegisterNormKernels(KernelRegistry& r) {
  const auto dtypes = {DType::kFloat32, DType::kFloat64};
  r.Register("LayerNormalization", kCpu, dtypes,
             [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
               return std::make_unique<LayerNormKernel>(AttrOr<int64_t>(node, "axis", -1),
                                                        NumberAttrOr(node, "epsilon", 1e-5));
             });
  r.Register("InstanceNormalization", kCpu, dtypes, FnKernel::Factory(InstanceNormFn));
  r.Register("LRN", kCpu, dtypes, [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    return std::make_unique<LrnKernel>(node);
  });
}

}  // namespace graphd::executor::cpu
