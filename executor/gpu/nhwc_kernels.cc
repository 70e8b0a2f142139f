// TensorFlow's NHWC window ops on the GPU: Conv2D (filter HWIO), MaxPool and AvgPool
// (SAME padding excluding the padded cells, as TensorFlow), float32. Each runs as
// the channels-first cuDNN op (cudnn_ops.h) between permutations: x [N, H, W, C] ->
// [N, C, H, W], Conv2D's filter [KH, KW, I, O] -> [O, I, KH, KW], and the result back
// to [N, OH, OW, C] (a Const filter is permuted once). cuDNN pads symmetrically, so a
// node is claimed only when its input size is known and its padding (SAME, VALID or
// EXPLICIT) is the same on both sides of each spatial dim; others (e.g. SAME with an
// odd total padding) run on the CPU.
#include <mutex>

#include "absl/strings/str_cat.h"
#include "core/ops/conv_util.h"
#include "executor/gpu/cudnn_ops.h"
#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {
namespace {

const std::vector<int64_t> kToNchw = {0, 3, 1, 2}, kToNhwc = {0, 2, 3, 1}, kHwioToOihw = {3, 2, 0, 1};

// The channels-first window for input [N, H, W, C] `in_h` x `in_w` (window `kh` x `kw`):
// InvalidArgument for a bad geometry, Unimplemented when the padding is asymmetric.
StatusOr<ops::WindowNd> WindowFor(const ops::Conv2DAttrs& a, int64_t in_h, int64_t in_w, int64_t kh, int64_t kw) {
  ASSIGN_OR_RETURN(ops::Window h, ops::ComputeWindow(in_h, kh, a.stride_h, a.dilation_h, a.padding, a.explicit_pad[0],
                                                     a.explicit_pad[1]));
  ASSIGN_OR_RETURN(ops::Window w, ops::ComputeWindow(in_w, kw, a.stride_w, a.dilation_w, a.padding, a.explicit_pad[2],
                                                     a.explicit_pad[3]));
  if (h.pad_before != h.pad_after || w.pad_before != w.pad_after) {
    return errors::Unimplemented("asymmetric padding (cuDNN pads both sides alike)");
  }
  ops::WindowNd win;
  win.dims = 2;
  win.kernel = {kh, kw};
  win.strides = {a.stride_h, a.stride_w};
  win.dilations = {a.dilation_h, a.dilation_w};
  win.pads_begin = {h.pad_before, w.pad_before};
  win.pads_end = win.pads_begin;
  return win;
}

class Conv2DKernel : public GpuKernel {
 public:
  Conv2DKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node, ops::Conv2DAttrs attrs)
      : GpuKernel(runtime),
        conv_(runtime, node.name()),
        a_(std::move(attrs)),
        constant_filter_(node.inputs()[1].node->op_name() == "Const") {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    if (x.shape().rank() != 4 || f.shape().rank() != 4) {
      return errors::InvalidArgument(
          absl::StrCat("input ", x.shape().ToString(), " and filter ", f.shape().ToString(), " must have rank 4"));
    }
    ASSIGN_OR_RETURN(ops::WindowNd w,
                     WindowFor(a_, x.shape().dim(1), x.shape().dim(2), f.shape().dim(0), f.shape().dim(1)));
    ASSIGN_OR_RETURN(Tensor xt, Permuted(runtime(), x, kToNchw, stream));
    ASSIGN_OR_RETURN(Tensor ft, Filter(f, stream));
    ASSIGN_OR_RETURN(Tensor yt, conv_.Forward(w, 1, xt, ft, stream));
    ASSIGN_OR_RETURN(Tensor y, Permuted(runtime(), yt, kToNhwc, stream));
    ctx.set_output(0, std::move(y));
    return absl::OkStatus();
  }

  // The filter as [O, I, KH, KW]. A Const filter's device tensor is the same every run
  // (unless a value is fed in its place): its permutation is made once and kept with
  // the source tensor, whose buffer it is recognised by (kept alive, so never reused).
  StatusOr<Tensor> Filter(const Tensor& f, cudaStream_t stream) {
    if (!constant_filter_) return Permuted(runtime(), f, kHwioToOihw, stream);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_source_.buffer() == f.buffer() && cached_source_.shape() == f.shape()) return cached_;
    }
    ASSIGN_OR_RETURN(Tensor ft, Permuted(runtime(), f, kHwioToOihw, stream));
    // Other threads' streams will read it: finish it first.
    RETURN_IF_ERROR(CudaCall(cudaStreamSynchronize(stream), "cudaStreamSynchronize (Conv2D filter)"));
    std::lock_guard<std::mutex> lock(mu_);
    cached_source_ = f;
    cached_ = ft;
    return ft;
  }

 private:
  CudnnConv conv_;
  const ops::Conv2DAttrs a_;
  const bool constant_filter_;
  std::mutex mu_;
  Tensor cached_source_, cached_;  // guarded by mu_
};

class Pool2DKernel : public GpuKernel {
 public:
  Pool2DKernel(std::shared_ptr<GpuRuntime> runtime, ops::Conv2DAttrs attrs, bool max)
      : GpuKernel(std::move(runtime)), a_(std::move(attrs)), max_(max) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    if (x.shape().rank() != 4)
      return errors::InvalidArgument(absl::StrCat("input ", x.shape().ToString(), " is not NHWC"));
    ASSIGN_OR_RETURN(ops::WindowNd w, WindowFor(a_, x.shape().dim(1), x.shape().dim(2), a_.window_h, a_.window_w));
    ASSIGN_OR_RETURN(Tensor xt, Permuted(runtime(), x, kToNchw, stream));
    ASSIGN_OR_RETURN(
        Tensor yt,
        CudnnPool(runtime(), w, max_ ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, xt, stream));
    ASSIGN_OR_RETURN(Tensor y, Permuted(runtime(), yt, kToNhwc, stream));
    ctx.set_output(0, std::move(y));
    return absl::OkStatus();
  }

 private:
  const ops::Conv2DAttrs a_;
  const bool max_;
};

const PartialShape& InputShape(const Node& node, int i) {
  return node.inputs()[i].node->output(node.inputs()[i].index).shape;
}

// The node's attrs when the GPU can run it (see the file comment).
bool Supported(const Node& node, bool pool, ops::Conv2DAttrs* attrs) {
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    if (InputDType(node, i) != DType::kFloat32) return false;
  }
  auto a = ops::ParseConv2DAttrs(node.attrs(), pool);
  if (!a.ok()) return false;
  const PartialShape& x = InputShape(node, 0);
  if (!x.known_rank() || x.rank() != 4 || x.dim(1) == kUnknownDim || x.dim(2) == kUnknownDim) return false;
  int64_t kh = a->window_h, kw = a->window_w;
  if (!pool) {
    const PartialShape& f = InputShape(node, 1);
    if (!f.known_rank() || f.rank() != 4 || f.dim(0) == kUnknownDim || f.dim(1) == kUnknownDim) return false;
    kh = f.dim(0);
    kw = f.dim(1);
  }
  if (!WindowFor(*a, x.dim(1), x.dim(2), kh, kw).ok()) return false;
  *attrs = *std::move(a);
  return true;
}

}  // namespace

void RegisterGpuNhwcKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime) {
  table.Add(
      "Conv2D", {DType::kFloat32},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        ops::Conv2DAttrs a;
        if (!Supported(node, false, &a)) return errors::Unimplemented("Conv2D attributes or shapes");
        return std::unique_ptr<OpKernel>(new Conv2DKernel(runtime, node, std::move(a)));
      },
      [](const Node& node) {
        ops::Conv2DAttrs a;
        return Supported(node, false, &a);
      });
  for (const bool max : {true, false}) {
    table.Add(
        max ? "MaxPool" : "AvgPool", {DType::kFloat32},
        [runtime, max](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
          ops::Conv2DAttrs a;
          if (!Supported(node, true, &a)) return errors::Unimplemented("pool attributes or shapes");
          return std::unique_ptr<OpKernel>(new Pool2DKernel(runtime, std::move(a), max));
        },
        [](const Node& node) {
          ops::Conv2DAttrs a;
          return Supported(node, true, &a);
        });
  }
}

}  // namespace graphd::executor::gpu
