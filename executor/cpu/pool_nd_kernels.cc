// MaxPoolND and AvgPoolND (channels-first, 1 to 3 spatial dims; semantics in
// core/ops/window_nd_ops.cc). float32 runs oneDNN's pooling (with dilation) unless
// the indices output is wanted or an including average would count ceil_mode's
// extra cells; everything else runs a direct loop. Channels-last data
// (channels_last) runs in place on oneDNN, 2-D max pools on max_pool_channels_last.h's
// loop (TensorFlow's values, where oneDNN's depended on a NaN's place) and global
// average pools on global_average.h's; the direct loop goes through channels-first
// copies. Max pools on the direct loop follow TensorFlow's rule too; channels-first
// float32 ones on oneDNN do not (a NaN kept or dropped by its place in the window).
#include <algorithm>
#include <limits>
#include <optional>

#include "core/ops/window_nd.h"
#include "executor/cpu/channels_last.h"
#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/global_average.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/max_pool_channels_last.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/window3.h"

namespace graphd::executor::cpu {
namespace {

class PoolNdKernel : public OpKernel {
 public:
  PoolNdKernel(bool max, ops::WindowNd w, bool indices, bool column_major, bool include_pad, bool channels_last)
      : max_(max),
        w_(std::move(w)),
        indices_(indices),
        column_major_(column_major),
        include_pad_(include_pad),
        channels_last_(channels_last) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.shape().rank() != w_.dims + 2) {
      return ctx.Error(absl::StrCat("input ", x.shape().ToString(), " must have rank ", w_.dims + 2));
    }
    // Dims channels-first whatever the layout.
    const std::vector<int64_t> in_dims = channels_last_ ? ops::ToChannelsFirst(x.shape().dims()) : x.shape().dims();
    std::vector<int64_t> out_dims{in_dims[0], in_dims[1]}, in(w_.dims), out(w_.dims);
    for (int i = 0; i < w_.dims; ++i) {
      in[i] = in_dims[2 + i];
      auto d = ops::WindowOutDim(w_, i, in[i], w_.kernel[i]);
      if (!d.ok()) return ctx.Error(d.status());
      out[i] = *d;
      out_dims.push_back(*d);
    }
    Window3 g = MakeWindow3(w_, in.data(), out.data(), w_.kernel.data());
    ASSIGN_OR_RETURN(Tensor * y,
                     ctx.AllocateOutput(0, Shape(channels_last_ ? ops::ToChannelsLast(out_dims) : out_dims)));
    Tensor* idx = nullptr;
    if (indices_) {
      ASSIGN_OR_RETURN(idx, ctx.AllocateOutput(1, Shape(out_dims)));
    }
    if (y->num_elements() == 0) return absl::OkStatus();
    const int64_t planes = in_dims[0] * in_dims[1];
    if (channels_last_ && !max_ && x.dtype() == DType::kFloat32 && WholeWindow(g) && x.num_elements() > 0) {
      GlobalAverage(x.data<float>(), in_dims[0], g.in_size(), in_dims[1], y->data<float>());
      return absl::OkStatus();
    }
    if (std::optional<MaxPool2d> mp = ChannelsLastMax(x, in_dims, out_dims)) {
      MaxPoolChannelsLast(x.data<float>(), *mp, y->data<float>());
      return absl::OkStatus();
    }
    if (x.dtype() == DType::kFloat32 && !indices_ && x.num_elements() > 0) {
      dnnl::memory::dims pads_end;
      bool extended = false;
      for (int i = 0; i < w_.dims; ++i) {
        // The end padding oneDNN needs to produce `out` cells (ceil_mode adds some).
        int64_t need = (out[i] - 1) * w_.strides[i] + (w_.kernel[i] - 1) * w_.dilations[i] + 1 - in[i] -
                       w_.pads_begin[i];
        extended = extended || need > w_.pads_end[i];
        pads_end.push_back(std::max(need, w_.pads_end[i]));
      }
      if (max_ || !include_pad_ || !extended) {
        try {
          if (RunDnnl(x, *y, in_dims, out_dims, pads_end)) return absl::OkStatus();
        } catch (const dnnl::error&) {
          // A geometry oneDNN refuses (e.g. padding as wide as the window): the loop.
        }
      }
    }
    if (channels_last_) {  // indices are refused with channels_last (inference)
      ASSIGN_OR_RETURN(Tensor x_cf, ChannelsFirstCopy(x));
      ASSIGN_OR_RETURN(Tensor y_cf, Tensor::Allocate(y->dtype(), Shape(out_dims)));
      RETURN_IF_ERROR(Loop(ctx, g, planes, x_cf, y_cf, nullptr));
      return CopyToChannelsLast(y_cf, *y);
    }
    return Loop(ctx, g, planes, x, *y, idx);
  }

 private:
  // The geometry of a 2-D float32 channels-last max pool without indices, which
  // max_pool_channels_last.h runs; nullopt for any other pool.
  std::optional<MaxPool2d> ChannelsLastMax(const Tensor& x, const std::vector<int64_t>& in_dims,
                                           const std::vector<int64_t>& out_dims) const {
    if (!max_ || !channels_last_ || indices_ || w_.dims != 2 || x.dtype() != DType::kFloat32) return std::nullopt;
    const MaxPool2d g{.n = in_dims[0], .h = in_dims[2], .w = in_dims[3], .c = in_dims[1],
                      .oh = out_dims[2], .ow = out_dims[3], .kh = w_.kernel[0], .kw = w_.kernel[1],
                      .sh = w_.strides[0], .sw = w_.strides[1], .ph = w_.pads_begin[0], .pw = w_.pads_begin[1],
                      .dh = w_.dilations[0], .dw = w_.dilations[1]};
    if (!MaxPoolFits(g)) return std::nullopt;
    return g;
  }

  // One window over the whole unpadded input: a global average pool.
  static bool WholeWindow(const Window3& g) {
    for (int i = 0; i < 3; ++i) {
      if (g.out[i] != 1 || g.k[i] != g.in[i] || g.pb[i] != 0 || g.d[i] != 1) return false;
    }
    return true;
  }

  Status Loop(KernelContext& ctx, const Window3& g, int64_t planes, const Tensor& x, Tensor& y, Tensor* idx) const {
    return DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
      if constexpr (std::is_same_v<T, bool>) {
        return ctx.Error("bool pooling is not supported");
      } else {
        for (int64_t p = 0; p < planes; ++p) {
          if (p % 64 == 0) RETURN_IF_ERROR(ctx.cancellation().Check());
          Plane<T>(g, x.data<T>() + p * g.in_size(), y.data<T>() + p * g.out_size(),
                   idx != nullptr ? idx->data<int64_t>() + p * g.out_size() : nullptr, p * g.in_size());
        }
        return absl::OkStatus();
      }
    });
  }

  // `src_dims` and `dst_dims` channels-first. False where oneDNN has only its reference
  // pooling (a dilated max pool): the loops below are faster.
  bool RunDnnl(const Tensor& x, Tensor& y, const dnnl::memory::dims& src_dims, const dnnl::memory::dims& dst_dims,
               const dnnl::memory::dims& pads_end) {
    dnnl::memory::desc src = WindowDataDesc(src_dims, channels_last_), dst = WindowDataDesc(dst_dims, channels_last_);
    std::optional<dnnl::pooling_v2_forward> prim = cache_.Get(src_dims, [&]() -> std::optional<dnnl::pooling_v2_forward> {
      dnnl::memory::dims dil;
      for (int64_t d : w_.dilations) dil.push_back(d - 1);
      auto alg = max_ ? dnnl::algorithm::pooling_max
                      : include_pad_ ? dnnl::algorithm::pooling_avg_include_padding
                                     : dnnl::algorithm::pooling_avg_exclude_padding;
      dnnl::pooling_v2_forward::desc desc(
          dnnl::prop_kind::forward_inference, alg, src, dst,
          dnnl::memory::dims(w_.strides.begin(), w_.strides.end()),
          dnnl::memory::dims(w_.kernel.begin(), w_.kernel.end()), dil,
          dnnl::memory::dims(w_.pads_begin.begin(), w_.pads_begin.end()), pads_end);
      dnnl::pooling_v2_forward::primitive_desc pd(desc, PrimitiveAttr(), Engine());
      if (IsReference(pd)) return std::nullopt;
      return dnnl::pooling_v2_forward(pd);
    });
    if (!prim.has_value()) return false;
    RunPrimitive(*prim, {{DNNL_ARG_SRC, Wrap(src, x)}, {DNNL_ARG_DST, Wrap(dst, y)}},
                 x.num_elements() + y.num_elements());
    return true;
  }

  // One [spatial...] plane. `base` is the plane's flat offset in x (for indices).
  template <typename T>
  void Plane(const Window3& g, const T* x, T* y, int64_t* idx, int64_t base) const {
    // Averages with count_include_pad count the window's cells inside the padded input.
    int64_t padded_end[3];
    const int off = ops::kMaxWindowDims - w_.dims;
    for (int i = 0; i < 3; ++i) padded_end[i] = g.in[i] + (i >= off ? w_.pads_end[i - off] : 0);
    for (int64_t a = 0; a < g.out[0]; ++a) {
      for (int64_t b = 0; b < g.out[1]; ++b) {
        for (int64_t c = 0; c < g.out[2]; ++c) {
          const int64_t o[3] = {a, b, c};
          double sum = 0;
          // Max: TensorFlow's rule (lowest, then std::max of each cell: a NaN never
          // wins); the index is the first cell's until a larger value comes.
          T best = std::numeric_limits<T>::lowest();
          int64_t best_at = -1, count = 0, padded_count = 1;
          for (int i = 0; i < 3; ++i) {
            int64_t start = o[i] * g.s[i] - g.pb[i], n = 0;
            for (int64_t t = 0; t < g.k[i]; ++t) {
              int64_t p = start + t * g.d[i];
              n += p >= -g.pb[i] && p < padded_end[i];
            }
            padded_count *= n;
          }
          for (int64_t t0 = 0; t0 < g.k[0]; ++t0) {
            const int64_t p0 = a * g.s[0] - g.pb[0] + t0 * g.d[0];
            if (p0 < 0 || p0 >= g.in[0]) continue;
            for (int64_t t1 = 0; t1 < g.k[1]; ++t1) {
              const int64_t p1 = b * g.s[1] - g.pb[1] + t1 * g.d[1];
              if (p1 < 0 || p1 >= g.in[1]) continue;
              for (int64_t t2 = 0; t2 < g.k[2]; ++t2) {
                const int64_t p2 = c * g.s[2] - g.pb[2] + t2 * g.d[2];
                if (p2 < 0 || p2 >= g.in[2]) continue;
                const int64_t at = (p0 * g.in[1] + p1) * g.in[2] + p2;
                const T v = x[at];
                ++count;
                if (max_) {
                  if (best_at < 0 || v > best) {
                    if (v > best) best = v;
                    best_at = column_major_ ? (p2 * g.in[1] + p1) * g.in[0] + p0 : at;
                  }
                } else {
                  sum += static_cast<double>(v);
                }
              }
            }
          }
          const int64_t out_at = (a * g.out[1] + b) * g.out[2] + c;
          if (max_) {
            y[out_at] = best;
            if (idx != nullptr) idx[out_at] = base + best_at;
          } else {
            const int64_t divisor = include_pad_ ? padded_count : count;
            y[out_at] = static_cast<T>(divisor > 0 ? sum / static_cast<double>(divisor) : 0.0);
          }
        }
      }
    }
  }

  bool max_;
  ops::WindowNd w_;
  bool indices_, column_major_, include_pad_, channels_last_;
  PrimitiveCache<std::optional<dnnl::pooling_v2_forward>> cache_;  // nullopt: oneDNN's reference only
};

KernelFactory Factory(bool max) {
  return [max](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    ASSIGN_OR_RETURN(ops::WindowNd w, ops::ParseWindowNd(node.attrs(), SpatialDimsOf(node), true));
    return std::make_unique<PoolNdKernel>(max, std::move(w), AttrOr<bool>(node, "indices", false),
                                          AttrOr<int64_t>(node, "storage_order", 0) == 1,
                                          AttrOr<bool>(node, "count_include_pad", false),
                                          AttrOr<bool>(node, "channels_last", false));
  };
}

}  // namespace

void RegisterPoolNdKernels(KernelRegistry& r) {
  r.Register("MaxPoolND", kCpu, kArithmeticDTypes, Factory(true));
  r.Register("AvgPoolND", kCpu, {DType::kFloat32, DType::kFloat64}, Factory(false));
}

}  // namespace graphd::executor::cpu
