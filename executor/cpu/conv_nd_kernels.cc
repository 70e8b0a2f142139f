// ConvND and ConvTransposeND (1 to 3 spatial dims, groups, optional bias;
// core/ops/window_nd_ops.cc). float32 runs oneDNN's convolution / deconvolution
// (primitives cached per input and filter shape); float64, and geometries oneDNN
// refuses, run direct loops. ConvND also runs channels-last data (channels_last: oneDNN
// reads and writes it in place; the loops go through channels-first copies) and, with
// constant_filter, a filter repacked once into the layout the primitive prefers
// (executor/cpu/packed_weights.h) instead of the plain one. A residual input is
// summed by the primitive (oneDNN's sum post-op, before the fused activation; a fused
// Swish runs after the primitive, on swish.h's loops) from the output, which is the
// residual's own buffer when the run is done with it (KernelContext::ForwardInput),
// else a copy of it.
// Small pointwise convolutions run conv_pointwise.h's loops. A convolution's oneDNN
// call is kept prepared (dnnl_prepared.h) and rerun with new data pointers while the
// shapes, team and filter repeat: kernels_bench's tiny depthwise convolution went from
// 6.2-11 to 1.9-2.0 us per run, MobileNetV3-small's execute p10 from 1511-1756 to
// 1303-1550 us.
// With input_channels_first (and channels_last) x stays channels-first: a stem
// convolution, on conv_stem.h's loops where they apply.
#include <algorithm>
#include <exception>
#include <memory>
#include <optional>

#include "core/ops/window_nd.h"
#include "executor/cpu/channels_last.h"
#include "executor/cpu/conv_pointwise.h"
#include "executor/cpu/conv_stem.h"
#include "executor/cpu/dnnl_prepared.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/fused_activation.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/packed_weights.h"
#include "executor/cpu/strided_copy.h"
#include "executor/cpu/swish.h"
#include "executor/cpu/window3.h"

namespace graphd::executor::cpu {
namespace {

using dnnl::memory;

// Sizes of one call: batch, channels in/out, group, and the 3-D geometry; dims
// channels-first whatever the data's layout.
struct ConvShape {
  int64_t n = 0, c = 0, o = 0, group = 1;
  Window3 g;
  std::vector<int64_t> in_dims, out_dims;
};

// A convolution primitive and, for a constant filter, the filter packed for it.
struct ConvPrimitive {
  dnnl::convolution_forward prim;
  memory::desc weights;                          // the layout prim reads the filter in
  std::shared_ptr<const PackedWeights> packed;   // constant_filter: the filter in `weights`
  std::optional<dnnl::reorder> to_weights;       // otherwise, when that is not the plain layout: per call
};

// A oneDNN convolution call prepared for its shapes (dnnl_prepared.h): what it was
// made for, and the argument indices of the data set per run.
struct PreparedConv {
  std::vector<int64_t> x_dims, f_dims;
  bool bias = false;
  std::shared_ptr<const PackedWeights> packed;  // constant_filter: the weights it reads
  PreparedCall call;
  int src = -1, weights = -1, dst = -1, bias_data = -1;  // weights -1: packed or reordered (fixed)
  // A filter that is not constant, in another layout than the primitive's: reordered
  // into `filter` (which the call reads) before each run.
  std::optional<PreparedCall> reorder;
  int reorder_from = -1;
  Tensor filter;
};

// The float32 values `desc` holds (its size in bytes over 4).
int64_t FloatsOf(const memory::desc& desc) { return static_cast<int64_t>(desc.get_size() / sizeof(float)); }

// Row-major strides of `dims`.
memory::dims Strides(const memory::dims& dims) {
  memory::dims s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

using Activation = FusedActivation;


class ConvNdKernel : public OpKernel {
 public:
  ConvNdKernel(bool transposed, ops::WindowNd w, int64_t group, Activation act, bool channels_last,
               bool input_channels_first, bool constant_filter, bool residual)
      : transposed_(transposed),
        w_(std::move(w)),
        group_(group),
        act_(act),
        channels_last_(channels_last),
        input_channels_first_(input_channels_first),
        constant_filter_(constant_filter),
        residual_(residual) {
    attr_.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // as PrimitiveAttr (a fresh handle: not shared)
    dnnl::post_ops ops;
    if (residual_) ops.append_sum(1.f);  // dst = conv + dst, dst holding the residual
    // Swish runs after the primitive on swish.h's loops, ~2x cheaper than oneDNN's
    // post-op; as the last step either way, the values are the same function.
    if (act_.kind != Activation::kSwish) act_.AppendTo(ops);
    if (ops.len() > 0) attr_.set_post_ops(ops);
  }

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    const Tensor* bias = ctx.num_inputs() > (residual_ ? 3 : 2) ? &ctx.input(2) : nullptr;
    const Tensor* residual = residual_ ? &ctx.input(ctx.num_inputs() - 1) : nullptr;
    ASSIGN_OR_RETURN(ConvShape s, Check(ctx, x, f, bias));
    const Shape out_shape(channels_last_ ? ops::ToChannelsLast(s.out_dims) : s.out_dims);
    Tensor* out = nullptr;
    if (residual != nullptr && !input_channels_first_ && residual->shape() == out_shape &&
        residual->dtype() == x.dtype()) {
      // The residual's buffer, when the run is done with it, becomes the output: the
      // sum post-op adds the convolution to what dst holds, so no copy of it first
      // (ResNet-50 copied 22 MB per call that way).
      out = ctx.ForwardInput(ctx.num_inputs() - 1, 0);
      if (out != nullptr) residual = out;
    }
    if (out == nullptr) {
      ASSIGN_OR_RETURN(out, ctx.AllocateOutput(0, out_shape));
    }
    if (residual != nullptr && (residual->shape() != out->shape() || residual->dtype() != out->dtype())) {
      return ctx.Error(absl::StrCat("the residual ", residual->DebugString(), " must have the output's shape ",
                                    out->shape().ToString()));
    }
    if (out->num_elements() == 0) return absl::OkStatus();
    if (input_channels_first_) return RunChannelsFirstInput(ctx, x, f, bias, residual, *out, s);
    return Run(ctx, x, f, bias, residual, *out, s);
  }

 private:
  // x in the kernel's data layout (channels-last with channels_last_).
  Status Run(KernelContext& ctx, const Tensor& x, const Tensor& f, const Tensor* bias, const Tensor* residual,
             Tensor& out, const ConvShape& s) {
    if (x.dtype() == DType::kFloat32 && x.num_elements() > 0 && f.num_elements() > 0) {
      if (const int64_t rows = PointwiseRows(s); SmallPointwise(rows, s.c, s.o)) {
        RunPointwiseConv(x.data<float>(), f.data<float>(), bias != nullptr ? bias->data<float>() : nullptr,
                         residual != nullptr ? residual->data<float>() : nullptr, act_, rows, s.c, s.o,
                         out.data<float>());
        return absl::OkStatus();
      }
      try {
        return RunDnnl(x, f, bias, residual, out, s);
      } catch (const dnnl::error&) {
        // A geometry oneDNN refuses: the loop below.
      }
    }
    Tensor saved;  // the loops write all of out first: a residual forwarded into it moves out
    if (residual == &out) {
      ASSIGN_OR_RETURN(saved, Tensor::Allocate(out.dtype(), out.shape()));
      RETURN_IF_ERROR(CopyAll(out, saved));
      residual = &saved;
    }
    if (!channels_last_) {
      RETURN_IF_ERROR(RunLoop(ctx, x, f, bias, out, s));
    } else {
      ASSIGN_OR_RETURN(Tensor x_cf, ChannelsFirstCopy(x));
      ASSIGN_OR_RETURN(Tensor out_cf, Tensor::Allocate(out.dtype(), Shape(s.out_dims)));
      RETURN_IF_ERROR(RunLoop(ctx, x_cf, f, bias, out_cf, s));
      RETURN_IF_ERROR(CopyToChannelsLast(out_cf, out));
    }
    if (residual != nullptr) AddResidual(*residual, out);
    ApplyActivation(out);
    return absl::OkStatus();
  }

  // Input columns one output row's windows span, padding included (conv_stem.h's row
  // buffer): bounded before the stem's loops allocate it, so that huge pads and
  // strides go the general way. In doubles: no overflow.
  static double RowSpan(const Window3& g) {
    return static_cast<double>(g.out[2] - 1) * static_cast<double>(g.s[2]) +
           static_cast<double>(g.k[2] - 1) * static_cast<double>(g.d[2]) + 1;
  }

  // Channels-first x, channels-last output (input_channels_first): conv_stem.h's loops
  // where they apply, otherwise x copied channels-last and Run.
  Status RunChannelsFirstInput(KernelContext& ctx, const Tensor& x, const Tensor& f, const Tensor* bias,
                               const Tensor* residual, Tensor& out, const ConvShape& s) {
    if (x.dtype() == DType::kFloat32 && w_.dims == 2 && x.num_elements() > 0 &&
        ops::StemConvFits(s.c, group_, f.num_elements() / s.o, s.o) && s.g.pb[1] >= 0 && s.g.pb[2] >= 0 &&
        RowSpan(s.g) <= 2.0 * static_cast<double>(s.g.in[2]) + 64) {
      const Window3& g = s.g;  // 2-D: spatial dims 1 and 2 of the 3
      const StemGeometry stem{.n = s.n, .c = s.c, .h = g.in[1], .w = g.in[2], .o = s.o, .oh = g.out[1],
                              .ow = g.out[2], .kh = g.k[1], .kw = g.k[2], .sh = g.s[1], .sw = g.s[2],
                              .ph = g.pb[1], .pw = g.pb[2], .dh = g.d[1], .dw = g.d[2]};
      RunStemConv(x.data<float>(), f.data<float>(), bias != nullptr ? bias->data<float>() : nullptr,
                  residual != nullptr ? residual->data<float>() : nullptr, act_, stem, out.data<float>());
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(Tensor x_last, Tensor::Allocate(x.dtype(), Shape(ops::ToChannelsLast(x.shape().dims()))));
    RETURN_IF_ERROR(CopyToChannelsLast(x, x_last));
    return Run(ctx, x_last, f, bias, residual, out, s);
  }

  // Rows of channels when this is a pointwise convolution (1x1 kernel, stride 1, no
  // padding, one group) over data stored as rows of channels (channels-last, or a
  // spatial size of 1), otherwise 0.
  int64_t PointwiseRows(const ConvShape& s) const {
    if (transposed_ || group_ != 1) return 0;
    for (int i = 0; i < 3; ++i) {
      if (s.g.k[i] != 1 || s.g.s[i] != 1 || s.g.pb[i] != 0 || s.g.in[i] != s.g.out[i]) return 0;
    }
    if (channels_last_) return s.n * s.g.out_size();
    return s.g.out_size() == 1 ? s.n : 0;
  }

  // The loops over channels-first data (no residual, no activation).
  Status RunLoop(KernelContext& ctx, const Tensor& x, const Tensor& f, const Tensor* bias, Tensor& out,
                 const ConvShape& s) const {
    if (x.dtype() == DType::kFloat32) return Loop<float>(ctx, x, f, bias, out, s);
    return Loop<double>(ctx, x, f, bias, out, s);
  }

  // out += residual (same shape and dtype).
  static void AddResidual(const Tensor& residual, Tensor& out) {
    if (out.dtype() == DType::kFloat32) {
      const float* r = residual.data<float>();
      float* o = out.data<float>();
      for (int64_t i = 0; i < out.num_elements(); ++i) o[i] += r[i];
    } else {
      const double* r = residual.data<double>();
      double* o = out.data<double>();
      for (int64_t i = 0; i < out.num_elements(); ++i) o[i] += r[i];
    }
  }

  StatusOr<ConvShape> Check(KernelContext& ctx, const Tensor& x, const Tensor& f, const Tensor* bias) const {
    const int r = w_.dims + 2;
    if (x.shape().rank() != r || f.shape().rank() != r) {
      return ctx.Error(absl::StrCat("input ", x.shape().ToString(), " and filter ", f.shape().ToString(),
                                    " must have rank ", r));
    }
    ConvShape s;
    s.in_dims = channels_last_ && !input_channels_first_ ? ops::ToChannelsFirst(x.shape().dims()) : x.shape().dims();
    s.n = s.in_dims[0];
    s.c = s.in_dims[1];
    s.group = group_;
    bool fits = transposed_ ? f.shape().dim(0) == s.c : f.shape().dim(1) * group_ == s.c;
    s.o = transposed_ ? f.shape().dim(1) * group_ : f.shape().dim(0);
    if (!fits || s.c % group_ != 0 || s.o % group_ != 0) {
      return ctx.Error(absl::StrCat("input ", x.shape().ToString(), " and filter ", f.shape().ToString(),
                                    " do not fit with group ", group_));
    }
    if (bias != nullptr && (bias->shape().rank() != 1 || bias->shape().dim(0) != s.o)) {
      return ctx.Error(absl::StrCat("bias ", bias->shape().ToString(), " must be [", s.o, "]"));
    }
    s.out_dims = {s.n, s.o};
    std::vector<int64_t> in(w_.dims), k(w_.dims), out(w_.dims);
    for (int i = 0; i < w_.dims; ++i) {
      in[i] = s.in_dims[2 + i];
      k[i] = f.shape().dim(2 + i);
      auto d = transposed_ ? ops::TransposedOutDim(w_, i, in[i], k[i]) : ops::WindowOutDim(w_, i, in[i], k[i]);
      if (!d.ok()) return ctx.Error(d.status());
      out[i] = *d;
      s.out_dims.push_back(*d);
    }
    s.g = MakeWindow3(w_, in.data(), out.data(), k.data());
    return s;
  }

  // The sum post-op adds the convolution to what dst holds: the residual, copied there
  // unless it is the output's own buffer (forwarded).
  static void ResidualIntoOutput(const Tensor* residual, Tensor& out) {
    if (residual != nullptr && residual != &out) {
      std::copy(residual->data<float>(), residual->data<float>() + out.num_elements(), out.data<float>());
    }
  }

  // A fused Swish runs after the primitive, on swish.h's loops.
  void SwishAfterPrimitive(Tensor& out) const {
    if (act_.kind == Activation::kSwish) SwishInPlace(out.data<float>(), out.num_elements());
  }

  // Whether `p` (may be null) was prepared for these shapes, team and filter (the rest
  // follows from the kernel's attributes).
  static bool Fits(const PreparedConv* p, const Tensor& x, const Tensor& f, const Tensor* bias) {
    return p != nullptr && p->call.team() == omp_get_max_threads() && p->bias == (bias != nullptr) &&
           p->x_dims == x.shape().dims() && p->f_dims == f.shape().dims() &&
           (p->packed == nullptr || p->packed->source.lock() == f.buffer());
  }

  // The convolution through the prepared call when one is free and was made for these
  // shapes, team and filter (the rest follows from the kernel's attributes); false
  // otherwise, having done nothing.
  bool RunPrepared(const Tensor& x, const Tensor& f, const Tensor* bias, const Tensor* residual, Tensor& out) {
    const auto lease = prepared_.Take();
    if (!lease) return false;
    PreparedConv* p = lease.get();
    ApplyIntraOpThreads();
    if (!Fits(p, x, f, bias)) return false;
    ResidualIntoOutput(residual, out);
    p->call.SetData(p->src, x.raw_data());
    p->call.SetData(p->dst, out.raw_data());
    if (p->weights >= 0) p->call.SetData(p->weights, f.raw_data());
    if (p->bias_data >= 0) p->call.SetData(p->bias_data, bias->raw_data());
    if (p->reorder.has_value()) {
      OneThreadScope one_thread(p->reorder->team() == 1);
      p->reorder->SetData(p->reorder_from, f.raw_data());
      p->reorder->Run();
    }
    p->call.Run();
    SwishAfterPrimitive(out);
    return true;
  }

  // Leaves this call's convolution prepared for the next (when the slot is free): the
  // filter read as `packed` when given, else from f (of layout `wei`) through conv's
  // to_weights when it has one, else as it is.
  void Prepare(const ConvPrimitive& conv, const memory::desc& src, const memory::desc& wei,
               std::shared_ptr<const PackedWeights> packed, const memory::desc& dst,
               const memory::desc& bias_desc, const Tensor& x, const Tensor& f, const Tensor* bias) {
    const auto lease = prepared_.Take();
    if (!lease || Fits(lease.get(), x, f, bias)) return;  // busy, or already prepared for this call
    try {
      auto p = std::make_unique<PreparedConv>(PreparedConv{.x_dims = x.shape().dims(),
                                                           .f_dims = f.shape().dims(),
                                                           .bias = bias != nullptr,
                                                           .packed = std::move(packed),
                                                           .call = PreparedCall(conv.prim, omp_get_max_threads())});
      p->src = p->call.Add(DNNL_ARG_SRC, src);
      if (p->packed != nullptr) {
        p->call.AddFixed(DNNL_ARG_WEIGHTS, p->packed->memory);
      } else if (conv.to_weights.has_value()) {
        StatusOr<Tensor> filter = Tensor::Allocate(DType::kFloat32, Shape({FloatsOf(conv.weights)}));
        if (!filter.ok()) return;  // not prepared
        p->filter = *std::move(filter);
        const memory to = Wrap(conv.weights, p->filter);
        // Small filters are reordered on the calling thread alone (as RunPrimitive does).
        const int team = p->filter.num_elements() < kOneThreadElements ? 1 : omp_get_max_threads();
        p->reorder.emplace(*conv.to_weights, team);
        p->reorder_from = p->reorder->Add(DNNL_ARG_FROM, wei);
        p->reorder->AddFixed(DNNL_ARG_TO, to);
        p->call.AddFixed(DNNL_ARG_WEIGHTS, to);
      } else {
        p->weights = p->call.Add(DNNL_ARG_WEIGHTS, wei);
      }
      p->dst = p->call.Add(DNNL_ARG_DST, dst);
      if (bias != nullptr) p->bias_data = p->call.Add(DNNL_ARG_BIAS, bias_desc);
      lease.Put(std::move(p));
    } catch (const std::exception&) {  // dnnl::error, std::bad_alloc
      // Not prepared: the next call goes the slow way again.
    }
  }

  Status RunDnnl(const Tensor& x, const Tensor& f, const Tensor* bias, const Tensor* residual, Tensor& out,
                 const ConvShape& s) {
    if (!transposed_ && RunPrepared(x, f, bias, residual, out)) return absl::OkStatus();
    const int dims = w_.dims;
    memory::dims src_dims = s.in_dims, dst_dims = s.out_dims;
    memory::dims kernel(f.shape().dims().begin() + 2, f.shape().dims().end());
    int64_t ksize = 1;
    for (int64_t v : kernel) ksize *= v;
    const int64_t g = s.group, cg = s.c / g, og = s.o / g;
    // Logical weights: [g,] O/g, C/g, k... over the filter's own layout.
    memory::dims wdims, wstrides;
    if (g > 1) wdims = {g, og, cg};
    else wdims = {og, cg};
    wdims.insert(wdims.end(), kernel.begin(), kernel.end());
    memory::dims kstrides = Strides(kernel);
    if (!transposed_) {  // [O, C/g, k...] = [g][O/g][C/g][k...]
      wstrides = Strides(wdims);
    } else {  // [C, O/g, k...] = [g][C/g][O/g][k...]
      if (g > 1) wstrides = {cg * og * ksize, ksize, og * ksize};
      else wstrides = {ksize, og * ksize};
      wstrides.insert(wstrides.end(), kstrides.begin(), kstrides.end());
    }
    memory::desc src = WindowDataDesc(src_dims, channels_last_);
    memory::desc wei(wdims, memory::data_type::f32, wstrides);
    // oneDNN's deconvolution has no output_padding: the end padding absorbs it, and
    // where it is larger the primitive computes the output without the last `extra`
    // cells of each spatial dim into a temporary, copied in after; those cells get
    // the bias alone (no tap reaches them).
    memory::dims view_dims = dst_dims;
    bool extra = false;
    for (int i = 0; i < dims && transposed_; ++i) {
      int64_t cells = std::max<int64_t>(w_.output_padding[i] - w_.pads_end[i], 0);
      view_dims[2 + i] -= cells;
      extra = extra || cells > 0;
    }
    memory::desc dst = WindowDataDesc(view_dims, channels_last_);
    Tensor view = out;
    if (extra) {
      ASSIGN_OR_RETURN(view, Tensor::Allocate(DType::kFloat32, Shape(view_dims)));
    }
    memory::desc bias_desc = bias != nullptr ? memory::desc({s.o}, memory::data_type::f32, memory::dims{1})
                                             : memory::desc();
    memory::dims strides(w_.strides.begin(), w_.strides.end()), dil, pl(w_.pads_begin.begin(), w_.pads_begin.end()),
        pr;
    for (int i = 0; i < dims; ++i) {
      dil.push_back(w_.dilations[i] - 1);
      pr.push_back(transposed_ ? std::max<int64_t>(w_.pads_end[i] - w_.output_padding[i], 0) : w_.pads_end[i]);
    }
    std::vector<int64_t> key = src_dims;
    key.insert(key.end(), f.shape().dims().begin(), f.shape().dims().end());
    key.push_back(bias != nullptr);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, Wrap(src, x)},
                                         {DNNL_ARG_WEIGHTS, Wrap(wei, f)},
                                         {DNNL_ARG_DST, Wrap(dst, view)}};
    if (bias != nullptr) args[DNNL_ARG_BIAS] = Wrap(bias_desc, *bias);
    if (!transposed_) {
      ConvPrimitive conv = conv_cache_.Get(key, [&] {
        // A constant filter lets oneDNN choose its layout (`any`); packed on first use.
        // So does channels-last data, whose only convolution with a plain filter is
        // oneDNN's reference one (~250x slower): a filter that is not constant is then
        // reordered on each call, a cost of its size against the convolution's.
        const bool choose = constant_filter_ || channels_last_;
        memory::desc wei_choice = choose ? memory::desc(wdims, memory::data_type::f32, memory::format_tag::any)
                                         : wei;
        dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                             dnnl::algorithm::convolution_direct, src, wei_choice, bias_desc, dst,
                                             strides, dil, pl, pr);
        dnnl::convolution_forward::primitive_desc pd(desc, attr_, Engine());
        ConvPrimitive made{.prim = dnnl::convolution_forward(pd), .weights = pd.weights_desc()};
        if (constant_filter_) {
          auto packed = GetPackedWeights(f, wei, made.weights);
          if (packed.ok()) made.packed = *std::move(packed);
        } else if (made.weights != wei) {
          // With a user scratchpad (RunPrimitive gives each thread its own): one cached
          // reorder may run on several threads at once.
          made.to_weights =
              dnnl::reorder(dnnl::reorder::primitive_desc(Engine(), wei, Engine(), made.weights, PrimitiveAttr()));
        }
        return made;
      });
      ResidualIntoOutput(residual, out);
      std::shared_ptr<const PackedWeights> packed;
      if (constant_filter_) {
        packed = conv.packed;
        if (packed == nullptr || packed->source.lock() != f.buffer()) {
          // Not the buffer the entry was packed from (or packing failed then).
          ASSIGN_OR_RETURN(packed, GetPackedWeights(f, wei, conv.weights));
        }
        // A handle of this call's own over the shared packed storage.
        args[DNNL_ARG_WEIGHTS] = memory(packed->desc, Engine(), packed->memory.get_data_handle());
      }
      Tensor reordered;  // this call's filter in the primitive's layout
      if (conv.to_weights.has_value()) {
        ASSIGN_OR_RETURN(reordered, Tensor::Allocate(DType::kFloat32, Shape({FloatsOf(conv.weights)})));
        memory to = Wrap(conv.weights, reordered);
        RunPrimitive(*conv.to_weights, {{DNNL_ARG_FROM, Wrap(wei, f)}, {DNNL_ARG_TO, to}}, reordered.num_elements());
        args[DNNL_ARG_WEIGHTS] = to;
      }
      RunPrimitive(conv.prim, std::move(args));
      SwishAfterPrimitive(out);
      Prepare(conv, src, wei, packed, dst, bias_desc, x, f, bias);
      return absl::OkStatus();
    }
    dnnl::deconvolution_forward prim = deconv_cache_.Get(key, [&] {
      dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                             dnnl::algorithm::deconvolution_direct, src, wei, bias_desc, dst,
                                             strides, dil, pl, pr);
      return dnnl::deconvolution_forward(
          dnnl::deconvolution_forward::primitive_desc(desc, PrimitiveAttr(), Engine()));
    });
    RunPrimitive(prim, std::move(args));
    if (extra) {
      FillBias<float>(bias, out, s);
      CopyInto(view, out);
    }
    return absl::OkStatus();
  }

  void ApplyActivation(Tensor& out) const {
    if (act_.kind == Activation::kNone) return;
    if (out.dtype() == DType::kFloat32) {
      for (float& v : absl::MakeSpan(out.data<float>(), out.num_elements())) v = act_.Apply(v);
    } else {
      for (double& v : absl::MakeSpan(out.data<double>(), out.num_elements())) v = act_.Apply(v);
    }
  }

  // Copies `part` into the leading corner of `whole` (same rank, no dim larger).
  static void CopyInto(const Tensor& part, Tensor& whole) {
    const std::vector<int64_t>& pd = part.shape().dims();
    const std::vector<int64_t>& wd = whole.shape().dims();
    const int r = static_cast<int>(pd.size());
    const int64_t row = pd[r - 1];
    std::vector<int64_t> index(r - 1, 0);
    for (int64_t src = 0; src < part.num_elements(); src += row) {
      int64_t dst = 0;
      for (int i = 0; i < r - 1; ++i) dst = dst * wd[i] + index[i];
      std::copy(part.data<float>() + src, part.data<float>() + src + row, whole.data<float>() + dst * wd[r - 1]);
      for (int i = r - 2; i >= 0; --i) {
        if (++index[i] < pd[i]) break;
        index[i] = 0;
      }
    }
  }

  // Every output cell set to its channel's bias (0 without one).
  template <typename T>
  static void FillBias(const Tensor* bias, Tensor& out, const ConvShape& s) {
    const int64_t plane = s.g.out_size();
    T* po = out.data<T>();
    for (int64_t b = 0; b < s.n; ++b) {
      for (int64_t oc = 0; oc < s.o; ++oc) {
        T* dst = po + (b * s.o + oc) * plane;
        std::fill(dst, dst + plane, bias != nullptr ? bias->data<T>()[oc] : T(0));
      }
    }
  }

  // Direct loops. Convolution gathers each output cell; the transposed convolution
  // scatters each input cell into the output cells its window reaches.
  template <typename T>
  Status Loop(KernelContext& ctx, const Tensor& x, const Tensor& f, const Tensor* bias, Tensor& out,
              const ConvShape& s) const {
    const Window3& g = s.g;
    const T* px = x.data<T>();
    const T* pf = f.data<T>();
    T* po = out.data<T>();
    const int64_t cg = s.c / s.group, og = s.o / s.group;
    const int64_t in_size = g.in_size(), out_size = g.out_size(), ksize = g.k_size();
    const int64_t* cells = transposed_ ? g.in : g.out;  // the cells iterated
    FillBias<T>(bias, out, s);
    for (int64_t b = 0; b < s.n; ++b) {
      RETURN_IF_ERROR(ctx.cancellation().Check());
      for (int64_t gi = 0; gi < s.group; ++gi) {
        for (int64_t ol = 0; ol < og; ++ol) {
          const int64_t oc = gi * og + ol;
          T* dst = po + (b * s.o + oc) * out_size;
          for (int64_t il = 0; il < cg; ++il) {
            const int64_t ic = gi * cg + il;
            const T* src = px + (b * s.c + ic) * in_size;
            const T* wk = transposed_ ? pf + (ic * og + ol) * ksize : pf + (oc * cg + il) * ksize;
            for (int64_t z = 0; z < cells[0]; ++z) {
              for (int64_t y = 0; y < cells[1]; ++y) {
                for (int64_t xx = 0; xx < cells[2]; ++xx) {
                  Accumulate(g, z, y, xx, src, wk, dst);
                }
              }
            }
          }
        }
      }
    }
    return absl::OkStatus();
  }

  // One cell (z, y, x) of the output (conv) or input (transposed) against every tap.
  template <typename T>
  void Accumulate(const Window3& g, int64_t z, int64_t y, int64_t x, const T* src, const T* wk, T* dst) const {
    // For both directions, "outer" is the cell iterated; the linked cell of tap
    // (a, b, c) is outer * stride - pad + tap * dilation (conv: input cell) or its
    // inverse (transposed: output cell = in * stride - pad + tap * dilation).
    const int64_t* lim = transposed_ ? g.out : g.in;
    const int64_t* cells = transposed_ ? g.in : g.out;
    const int64_t outer = (z * cells[1] + y) * cells[2] + x;
    T acc = 0;
    const T xv = transposed_ ? src[outer] : T(0);
    for (int64_t a = 0; a < g.k[0]; ++a) {
      const int64_t p0 = z * g.s[0] - g.pb[0] + a * g.d[0];
      if (p0 < 0 || p0 >= lim[0]) continue;
      for (int64_t b = 0; b < g.k[1]; ++b) {
        const int64_t p1 = y * g.s[1] - g.pb[1] + b * g.d[1];
        if (p1 < 0 || p1 >= lim[1]) continue;
        for (int64_t c = 0; c < g.k[2]; ++c) {
          const int64_t p2 = x * g.s[2] - g.pb[2] + c * g.d[2];
          if (p2 < 0 || p2 >= lim[2]) continue;
          const int64_t linked = (p0 * lim[1] + p1) * lim[2] + p2;
          const T wv = wk[(a * g.k[1] + b) * g.k[2] + c];
          if (transposed_) {
            dst[linked] += xv * wv;
          } else {
            acc += src[linked] * wv;
          }
        }
      }
    }
    if (!transposed_) dst[outer] += acc;
  }

  bool transposed_;
  ops::WindowNd w_;
  int64_t group_;
  Activation act_;
  bool channels_last_;    // data [N, spatial..., C] (ConvND only)
  bool input_channels_first_;  // with channels_last_: x stays [N, C, spatial...] (ConvND only)
  bool constant_filter_;  // the filter is a Const value: packed (ConvND only)
  bool residual_;         // the last input is summed into the output (ConvND only)
  dnnl::primitive_attr attr_;  // PrimitiveAttr plus the fused activation
  PrimitiveCache<ConvPrimitive> conv_cache_;
  PreparedSlot<PreparedConv> prepared_;  // the last convolution call, rerun while its shapes repeat
  PrimitiveCache<dnnl::deconvolution_forward> deconv_cache_;
};

KernelFactory Factory(bool transposed) {
  return [transposed](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    ASSIGN_OR_RETURN(ops::WindowNd w, ops::ParseWindowNd(node.attrs(), SpatialDimsOf(node), false));
    ASSIGN_OR_RETURN(Activation act, FusedActivation::FromNode(node));
    if (transposed && act.kind != Activation::kNone) {
      return errors::InvalidArgument(absl::StrCat(node.name(), ": ConvTransposeND takes no fused activation"));
    }
    const bool channels_last = AttrOr<bool>(node, "channels_last", false);
    const bool input_channels_first = AttrOr<bool>(node, "input_channels_first", false);
    if (input_channels_first && (transposed || !channels_last)) {
      return errors::InvalidArgument(absl::StrCat(node.name(), ": input_channels_first needs channels_last"));
    }
    const bool constant_filter = AttrOr<bool>(node, "constant_filter", false);
    const bool residual = AttrOr<bool>(node, "residual", false);
    if (transposed && (channels_last || constant_filter || residual)) {
      return errors::InvalidArgument(
          absl::StrCat(node.name(), ": ConvTransposeND takes no channels_last, constant_filter or residual"));
    }
    return std::make_unique<ConvNdKernel>(transposed, std::move(w), AttrOr<int64_t>(node, "group", 1), act,
                                          channels_last, input_channels_first, constant_filter, residual);
  };
}

}  // namespace

void RegisterConvNdKernels(KernelRegistry& r) {
  r.Register("ConvND", kCpu, {DType::kFloat32, DType::kFloat64}, Factory(false));
  r.Register("ConvTransposeND", kCpu, {DType::kFloat32, DType::kFloat64}, Factory(true));
}

}  // namespace graphd::executor::cpu
