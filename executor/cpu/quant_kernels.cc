// Linear quantisation kernels (core/ops/quant_ops.cc): QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear, and the integer products MatMulInteger and
// ConvInteger. Loops: operands are widened to int32 with their zero points
// subtracted once, then multiplied and accumulated modulo 2^32 (exact whenever the sum
// fits the int32 output). Not oneDNN's int8 matmul/convolution: ONNX allows uint8
// weights and per-row/per-channel zero points that oneDNN 2.x does not take, and its
// u8 x s8 kernels on CPUs without VNNI may saturate 16-bit pair sums, where ONNX asks
// for exact integer results.
// Rounding is round-half-to-even (the default floating-point rounding mode).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "executor/cpu/broadcast.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

// Elements between consecutive entries of `axis` and that axis's length, for per-axis
// parameters of `n` entries (n == 1: per tensor).
struct AxisLayout {
  int64_t inner = 1, len = 1;
};

StatusOr<AxisLayout> Layout(KernelContext& ctx, const Shape& x, int64_t n) {
  AxisLayout l;
  if (n == 1) return l;
  const int64_t axis_attr = AttrOr<int64_t>(ctx.node(), "axis", 1);
  if (x.rank() == 0) return ctx.Error("per-axis parameters need an input of rank >= 1");
  const int axis = Canonical(axis_attr, x.rank());
  if (axis < 0 || axis >= x.rank() || x.dim(axis) != n) {
    return ctx.Error(absl::StrCat("scale has ", n, " entries but axis ", axis_attr, " of ",
                                  x.ToString(), " does not have that length"));
  }
  for (int d = axis + 1; d < x.rank(); ++d) l.inner *= x.dim(d);
  l.len = n;
  return l;
}

Status CheckParams(KernelContext& ctx, const Tensor& scale, const Tensor& zp) {
  if (scale.num_elements() != zp.num_elements() || scale.num_elements() == 0) {
    return ctx.Error(absl::StrCat("scale ", scale.shape().ToString(), " and zero_point ",
                                  zp.shape().ToString(), " must hold the same non-zero count"));
  }
  return absl::OkStatus();
}

template <typename Q>
Q Saturate(float v) {
  constexpr float lo = static_cast<float>(std::numeric_limits<Q>::min());
  constexpr float hi = static_cast<float>(std::numeric_limits<Q>::max());
  if (std::isnan(v)) return Q{0};  // (std::clamp passes NaN through)
  return static_cast<Q>(std::clamp(v, lo, hi));
}

// round(x / scale) + zp, saturated; NaN maps to zp.
template <typename Q>
void Quantize(const float* x, const float* scale, const Q* zp, Q* y, int64_t n, AxisLayout l) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / l.inner) % l.len;
    const float q = std::nearbyint(x[i] / scale[c]);
    y[i] = Saturate<Q>(std::isnan(q) ? static_cast<float>(zp[c]) : q + static_cast<float>(zp[c]));
  }
}

Status QuantizeFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor& zp = ctx.input(2);
  RETURN_IF_ERROR(CheckParams(ctx, scale, zp));
  ASSIGN_OR_RETURN(AxisLayout l, Layout(ctx, x.shape(), scale.num_elements()));
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
  if (zp.dtype() == DType::kInt8) {
    Quantize(x.data<float>(), scale.data<float>(), zp.data<int8_t>(), y->data<int8_t>(),
             x.num_elements(), l);
  } else {
    Quantize(x.data<float>(), scale.data<float>(), zp.data<uint8_t>(), y->data<uint8_t>(),
             x.num_elements(), l);
  }
  return absl::OkStatus();
}

template <typename Q>
void Dequantize(const Q* x, const float* scale, const Q* zp, float* y, int64_t n, AxisLayout l) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / l.inner) % l.len;
    y[i] = static_cast<float>(static_cast<int64_t>(x[i]) - static_cast<int64_t>(zp[c])) * scale[c];
  }
}

Status DequantizeFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor& zp = ctx.input(2);
  RETURN_IF_ERROR(CheckParams(ctx, scale, zp));
  ASSIGN_OR_RETURN(AxisLayout l, Layout(ctx, x.shape(), scale.num_elements()));
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
  const float* s = scale.data<float>();
  float* out = y->data<float>();
  const int64_t n = x.num_elements();
  switch (x.dtype()) {
    case DType::kInt8:
      Dequantize(x.data<int8_t>(), s, zp.data<int8_t>(), out, n, l);
      break;
    case DType::kInt32:
      Dequantize(x.data<int32_t>(), s, zp.data<int32_t>(), out, n, l);
      break;
    default:
      Dequantize(x.data<uint8_t>(), s, zp.data<uint8_t>(), out, n, l);
  }
  return absl::OkStatus();
}

// ONNX's DynamicQuantizeLinear: scale = (max(x, 0) - min(x, 0)) / 255, zero point =
// saturate(round(-min / scale)), then QuantizeLinear. An all-zero x gives scale 0,
// zero point 0 and y 0.
Status DynamicQuantizeFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const float* px = x.data<float>();
  const int64_t n = x.num_elements();
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(px[i])) {
      return ctx.Error(absl::StrCat("x holds ", px[i], "; no quantisation range exists"));
    }
    lo = std::min(lo, px[i]);
    hi = std::max(hi, px[i]);
  }
  const float scale = (hi - lo) / 255.0f;
  const uint8_t zp = scale == 0 ? 0 : Saturate<uint8_t>(std::nearbyint(0.0f - lo / scale));
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
  ASSIGN_OR_RETURN(Tensor * ys, ctx.AllocateOutput(1, Shape({})));
  ASSIGN_OR_RETURN(Tensor * yz, ctx.AllocateOutput(2, Shape({})));
  ys->data<float>()[0] = scale;
  yz->data<uint8_t>()[0] = zp;
  if (scale == 0) {
    std::fill_n(y->data<uint8_t>(), n, uint8_t{0});
    return absl::OkStatus();
  }
  Quantize(px, &scale, &zp, y->data<uint8_t>(), n, AxisLayout{});
  return absl::OkStatus();
}

// `t` (uint8 or int8) as int32 with its zero point subtracted: zp has 1 entry, or one
// per group of `inner` consecutive elements cycling with period zp.size().
std::vector<int32_t> Widen(const Tensor& t, const Tensor& zp, int64_t inner) {
  const int64_t n = t.num_elements(), zn = zp.num_elements();
  std::vector<int32_t> out(n);
  auto run = [&](auto* p, auto* z) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<int32_t>(p[i]) - static_cast<int32_t>(z[zn == 1 ? 0 : (i / inner) % zn]);
    }
  };
  if (t.dtype() == DType::kInt8) {
    run(t.data<int8_t>(), zp.data<int8_t>());
  } else {
    run(t.data<uint8_t>(), zp.data<uint8_t>());
  }
  return out;
}

Status MatMulIntegerFn(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  if (as.rank() < 2 || bs.rank() < 2) return ctx.Error("a and b must have rank >= 2");
  const int64_t m = as.dim(as.rank() - 2), k = as.dim(as.rank() - 1), n = bs.dim(bs.rank() - 1);
  if (bs.dim(bs.rank() - 2) != k) {
    return ctx.Error(absl::StrCat("a ", as.ToString(), " and b ", bs.ToString(),
                                  " do not agree on the inner dimension"));
  }
  const int64_t azn = ctx.input(2).num_elements(), bzn = ctx.input(3).num_elements();
  if ((azn != 1 && azn != m) || (bzn != 1 && bzn != n)) {
    return ctx.Error(absl::StrCat("a_zero_point needs 1 or ", m, " entries and b_zero_point 1 or ",
                                  n, "; got ", azn, " and ", bzn));
  }
  const Shape a_batch(std::vector<int64_t>(as.dims().begin(), as.dims().end() - 2));
  const Shape b_batch(std::vector<int64_t>(bs.dims().begin(), bs.dims().end() - 2));
  auto batch = BroadcastShapes(a_batch, b_batch);
  if (!batch.ok()) return ctx.Error(batch.status());
  const Shape out_batch = batch->ToShape();
  std::vector<int64_t> dims = out_batch.dims();
  dims.push_back(m);
  dims.push_back(n);
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, Shape(dims)));
  const std::vector<int32_t> wa = Widen(a, ctx.input(2), k);  // a_zp per row
  const std::vector<int32_t> wb = Widen(b, ctx.input(3), 1);  // b_zp per column
  const std::vector<int64_t> sa = BroadcastStrides(a_batch, out_batch);
  const std::vector<int64_t> sb = BroadcastStrides(b_batch, out_batch);
  int32_t* out = y->data<int32_t>();
  std::vector<uint32_t> acc(n);  // unsigned: sums past int32 wrap (as int32 outputs do)
  std::vector<int64_t> index(out_batch.rank(), 0);
  int64_t ia = 0, ib = 0;
  for (int64_t p = 0; p < out_batch.num_elements(); ++p) {
    RETURN_IF_ERROR(ctx.cancellation().Check());
    const int32_t* pa = wa.data() + ia * m * k;
    const int32_t* pb = wb.data() + ib * k * n;
    int32_t* po = out + p * m * n;
    for (int64_t i = 0; i < m; ++i) {
      std::fill(acc.begin(), acc.end(), 0u);
      for (int64_t kk = 0; kk < k; ++kk) {
        const uint32_t av = static_cast<uint32_t>(pa[i * k + kk]);
        const int32_t* brow = pb + kk * n;
        for (int64_t j = 0; j < n; ++j) acc[j] += av * static_cast<uint32_t>(brow[j]);
      }
      for (int64_t j = 0; j < n; ++j) po[i * n + j] = static_cast<int32_t>(acc[j]);
    }
    for (int d = out_batch.rank() - 1; d >= 0; --d) {
      ia += sa[d];
      ib += sb[d];
      if (++index[d] < out_batch.dim(d)) break;
      ia -= sa[d] * out_batch.dim(d);
      ib -= sb[d] * out_batch.dim(d);
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

struct ConvGeometry {
  int64_t strides[2], dilations[2], pads[4], group;
};

Status ConvIntegerFn(KernelContext& ctx, const ConvGeometry& g) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Shape& xs = x.shape();
  const Shape& ws = w.shape();
  if (xs.rank() != 4 || ws.rank() != 4) return ctx.Error("x and w must have rank 4");
  const int64_t batch = xs.dim(0), cin = xs.dim(1), h = xs.dim(2), wd = xs.dim(3);
  const int64_t cout = ws.dim(0), cg = ws.dim(1), kh = ws.dim(2), kw = ws.dim(3);
  if (cg * g.group != cin || cout % g.group != 0) {
    return ctx.Error(absl::StrCat("x ", xs.ToString(), " and w ", ws.ToString(),
                                  " do not fit group ", g.group));
  }
  if (ctx.input(2).num_elements() != 1) return ctx.Error("x_zero_point must hold one value");
  const int64_t wzn = ctx.input(3).num_elements();
  if (wzn != 1 && wzn != cout) {
    return ctx.Error(absl::StrCat("w_zero_point needs 1 or ", cout, " entries, got ", wzn));
  }
  int64_t out_dims[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t in = xs.dim(2 + i), k = ws.dim(2 + i);
    const int64_t span = in + g.pads[i] + g.pads[2 + i] - (k - 1) * g.dilations[i] - 1;
    if (span < 0) return ctx.Error("the kernel does not fit the padded input");
    out_dims[i] = span / g.strides[i] + 1;
  }
  const int64_t oh = out_dims[0], ow = out_dims[1];
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, Shape({batch, cout, oh, ow})));
  const std::vector<int32_t> wx = Widen(x, ctx.input(2), 1);
  const std::vector<int32_t> ww = Widen(w, ctx.input(3), cg * kh * kw);
  int32_t* out = y->data<int32_t>();
  const int64_t co_per_group = cout / g.group;
  for (int64_t b = 0; b < batch; ++b) {
    RETURN_IF_ERROR(ctx.cancellation().Check());
    for (int64_t co = 0; co < cout; ++co) {
      const int64_t ci0 = (co / co_per_group) * cg;
      int32_t* po = out + (b * cout + co) * oh * ow;
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          uint32_t acc = 0;  // wraps like the int32 output, without overflow
          for (int64_t ci = 0; ci < cg; ++ci) {
            const int32_t* px = wx.data() + (b * cin + ci0 + ci) * h * wd;
            const int32_t* pw = ww.data() + (co * cg + ci) * kh * kw;
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t iy = oy * g.strides[0] - g.pads[0] + ky * g.dilations[0];
              if (iy < 0 || iy >= h) continue;  // padding holds the zero point: adds 0
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ix = ox * g.strides[1] - g.pads[1] + kx * g.dilations[1];
                if (ix < 0 || ix >= wd) continue;
                acc += static_cast<uint32_t>(px[iy * wd + ix] * pw[ky * kw + kx]);
              }
            }
          }
          po[oy * ow + ox] = static_cast<int32_t>(acc);
        }
      }
    }
  }
  return absl::OkStatus();
}

KernelFactory ConvIntegerFactory() {
  return [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const IntList strides = AttrOr<IntList>(node, "strides", {1, 1});
    const IntList dilations = AttrOr<IntList>(node, "dilations", {1, 1});
    const IntList pads = AttrOr<IntList>(node, "pads", {0, 0, 0, 0});
    ConvGeometry g{{strides[0], strides[1]},
                   {dilations[0], dilations[1]},
                   {pads[0], pads[1], pads[2], pads[3]},
                   AttrOr<int64_t>(node, "group", 1)};
    return std::make_unique<FnKernel>([g](KernelContext& ctx) { return ConvIntegerFn(ctx, g); });
  };
}

}  // namespace

void RegisterQuantKernels(KernelRegistry& r) {
  r.Register("QuantizeLinear", kCpu, {DType::kUInt8, DType::kInt8}, FnKernel::Factory(QuantizeFn));
  r.Register("DequantizeLinear", kCpu, DType::kFloat32, FnKernel::Factory(DequantizeFn));
  r.Register("DynamicQuantizeLinear", kCpu, DType::kUInt8, FnKernel::Factory(DynamicQuantizeFn));
  r.Register("MatMulInteger", kCpu, DType::kInt32, FnKernel::Factory(MatMulIntegerFn));
  r.Register("ConvInteger", kCpu, DType::kInt32, ConvIntegerFactory());
}

}  // namespace graphd::executor::cpu
