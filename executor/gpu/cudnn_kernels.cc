// The ONNX-style window ops on cuDNN (cudnn_ops.h), float32, channels-first data
// [N, C, d1..dk], 1 to 3 spatial dims:
//   ConvND(x, w[, bias][, residual]; group, strides, dilations, pads, activation):
//     cudnnConvolutionForward (CUDNN_FMA_MATH), then bias, residual and activation in
//     the epilogue kernel (nn.cu).
//   MaxPoolND / AvgPoolND (count_include_pad): cudnnPoolingForward.
// Refused (SupportsOp false, the CPU runs them): channels_last, asymmetric pads,
// ceil_mode, pool dilations, MaxPoolND's indices output, other dtypes.
#include "absl/strings/str_cat.h"
#include "executor/gpu/cudnn_ops.h"
#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {
namespace {

class ConvKernel : public GpuKernel {
 public:
  ConvKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node, ops::WindowNd window)
      : GpuKernel(runtime), conv_(runtime, node.name()), w_(std::move(window)), act_(ReadEpilogueActivation(node)) {
    group_ = AttrOr<int64_t>(node, "group", 1);
    residual_ = AttrOr<bool>(node, "residual", false);
    has_bias_ = static_cast<int>(node.inputs().size()) - (residual_ ? 1 : 0) == 3;
  }

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    ASSIGN_OR_RETURN(Tensor y, conv_.Forward(w_, group_, ctx.input(0), ctx.input(1), stream));
    ctx.set_output(0, y);
    if (y.num_elements() == 0) return absl::OkStatus();
    const float* bias = has_bias_ ? ctx.input(2).data<float>() : nullptr;
    const float* residual = nullptr;
    if (residual_) {
      const Tensor& r = ctx.input(ctx.num_inputs() - 1);
      if (r.shape() != y.shape()) {
        return errors::InvalidArgument(
            absl::StrCat("residual ", r.shape().ToString(), " differs from the output ", y.shape().ToString()));
      }
      residual = r.data<float>();
    }
    if (bias == nullptr && residual == nullptr && act_.act == EpilogueAct::kNone) return absl::OkStatus();
    const int64_t channels = y.shape().dim(1), inner = y.num_elements() / (y.shape().dim(0) * channels);
    return CudaCall(
        LaunchEpilogue(y.data<float>(), y.num_elements(), bias, channels, inner, residual, act_.act, act_.lo, act_.hi, stream),
        "ConvND epilogue kernel launch");
  }

 private:
  CudnnConv conv_;
  const ops::WindowNd w_;
  int64_t group_ = 1;
  bool residual_ = false, has_bias_ = false;
  const EpilogueActivation act_;
};

class PoolKernel : public GpuKernel {
 public:
  PoolKernel(std::shared_ptr<GpuRuntime> runtime, ops::WindowNd window, cudnnPoolingMode_t mode)
      : GpuKernel(std::move(runtime)), w_(std::move(window)), mode_(mode) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    ASSIGN_OR_RETURN(Tensor y, CudnnPool(runtime(), w_, mode_, ctx.input(0), stream));
    ctx.set_output(0, std::move(y));
    return absl::OkStatus();
  }

 private:
  const ops::WindowNd w_;
  const cudnnPoolingMode_t mode_;
};

// The node's window when the cuDNN kernels can run it (see the file comment).
bool ParseSupported(const Node& node, bool pool, ops::WindowNd* window) {
  if (node.num_outputs() != 1 || node.output(0).dtype != DType::kFloat32) return false;
  for (int i = 0; i < static_cast<int>(node.inputs().size()); ++i) {
    if (InputDType(node, i) != DType::kFloat32) return false;
  }
  if (AttrOr<bool>(node, "channels_last", false)) return false;
  const PartialShape& xs = node.inputs()[0].node->output(node.inputs()[0].index).shape;
  if (!xs.known_rank() || xs.rank() < 3 || xs.rank() > 5) return false;
  auto w = ops::ParseWindowNd(node.attrs(), xs.rank() - 2, pool);
  if (!w.ok() || w->pads_begin != w->pads_end) return false;
  for (int64_t d : w->pads_begin) {
    if (d > INT32_MAX / 2) return false;
  }
  if (pool) {
    if (w->ceil_mode || AttrOr<bool>(node, "indices", false)) return false;
    for (int64_t d : w->dilations) {
      if (d != 1) return false;
    }
  } else {
    const std::string act = AttrOr<std::string>(node, "activation", "");
    if (!act.empty() && act != "Relu" && act != "Clip") return false;
  }
  *window = *std::move(w);
  return true;
}

}  // namespace

void RegisterGpuCudnnKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime) {
  table.Add(
      "ConvND", {DType::kFloat32},
      [runtime](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
        ops::WindowNd w;
        if (!ParseSupported(node, false, &w)) return errors::Unimplemented("ConvND attributes");
        return std::unique_ptr<OpKernel>(new ConvKernel(runtime, node, std::move(w)));
      },
      [](const Node& node) {
        ops::WindowNd w;
        return ParseSupported(node, false, &w);
      });
  for (const bool max : {true, false}) {
    table.Add(
        max ? "MaxPoolND" : "AvgPoolND", {DType::kFloat32},
        [runtime, max](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
          ops::WindowNd w;
          if (!ParseSupported(node, true, &w)) return errors::Unimplemented("pool attributes");
          const cudnnPoolingMode_t mode = max ? CUDNN_POOLING_MAX
                                          : AttrOr<bool>(node, "count_include_pad", false)
                                              ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                              : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
          return std::unique_ptr<OpKernel>(new PoolKernel(runtime, std::move(w), mode));
        },
        [](const Node& node) {
          ops::WindowNd w;
          return ParseSupported(node, true, &w);
        });
  }
}

}  // namespace graphd::executor::gpu
