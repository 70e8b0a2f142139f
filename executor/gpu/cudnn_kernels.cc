// cuDNN kernels (legacy API), float32, channels-first data [N, C, d1..dk], 1 to 3
// spatial dims (1-D runs as 2-D with a unit height):
//   ConvND(x, w[, bias][, residual]; group, strides, dilations, pads, activation):
//     cudnnConvolutionForward with CUDNN_FMA_MATH (no TF32), the algorithm chosen with
//     cudnnGetConvolutionForwardAlgorithm_v7 the first time each input shape is seen;
//     bias, residual and activation by the epilogue kernel (nn.cu).
//   MaxPoolND / AvgPoolND (count_include_pad): cudnnPoolingForward.
// Refused (SupportsOp false, the CPU runs them): channels_last, asymmetric pads,
// ceil_mode, pool dilations, MaxPoolND's indices output, other dtypes.
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/logging.h"
#include "core/ops/window_nd.h"
#include "executor/gpu/gpu_kernels.h"

namespace graphd::executor::gpu {
namespace {

constexpr size_t kMaxWorkspace = size_t{1} << 30;

// A cuDNN descriptor destroyed with its owner.
template <typename T>
struct Desc {
  T handle = nullptr;
  cudnnStatus_t (*destroy)(T) = nullptr;
  Desc() = default;
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  ~Desc() {
    if (handle != nullptr) destroy(handle);
  }
};

std::vector<int> Ints(const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }

// Dims padded to at least 4 (1-D windows get a unit height after N, C).
std::vector<int64_t> AtLeast4(std::vector<int64_t> dims) {
  if (dims.size() == 3) dims.insert(dims.begin() + 2, 1);
  return dims;
}

Status SetTensor(const CudnnApi& api, Desc<cudnnTensorDescriptor_t>& d, const std::vector<int64_t>& dims) {
  RETURN_IF_ERROR(CudnnCall(api, api.CreateTensorDescriptor(&d.handle), "cudnnCreateTensorDescriptor"));
  d.destroy = api.DestroyTensorDescriptor;
  std::vector<int> shape = Ints(dims), strides(dims.size());
  int64_t stride = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    strides[i] = static_cast<int>(stride);
    stride *= std::max<int64_t>(dims[i], 1);
  }
  return CudnnCall(api,
                   api.SetTensorNdDescriptor(d.handle, CUDNN_DATA_FLOAT, static_cast<int>(shape.size()), shape.data(),
                                             strides.data()),
                   "cudnnSetTensorNdDescriptor");
}

// Every dim fits cuDNN's int.
Status CheckIntDims(const Shape& s) {
  for (int64_t d : s.dims()) {
    if (d > INT32_MAX / 2) return errors::Unimplemented(absl::StrCat("shape ", s.ToString(), " is too large for cuDNN"));
  }
  return absl::OkStatus();
}

// The window's spatial parameters padded like AtLeast4 (a 1-D window gets a unit one).
struct Window2 {
  std::vector<int> pads, strides, dilations, kernel;
};
Window2 Spatial(const ops::WindowNd& w, const std::vector<int64_t>& kernel) {
  Window2 s{Ints(w.pads_begin), Ints(w.strides), Ints(w.dilations), Ints(kernel)};
  if (w.dims == 1) {
    s.pads.insert(s.pads.begin(), 0);
    s.strides.insert(s.strides.begin(), 1);
    s.dilations.insert(s.dilations.begin(), 1);
    s.kernel.insert(s.kernel.begin(), 1);
  }
  return s;
}

StatusOr<std::vector<int64_t>> OutputDims(const ops::WindowNd& w, const Shape& x, int64_t channels,
                                          const std::vector<int64_t>& kernel) {
  std::vector<int64_t> out{x.dim(0), channels};
  for (int i = 0; i < w.dims; ++i) {
    ASSIGN_OR_RETURN(int64_t d, ops::WindowOutDim(w, i, x.dim(2 + i), kernel[i]));
    out.push_back(d);
  }
  return out;
}

// What ConvND needs for one input shape.
struct ConvPlan {
  Desc<cudnnTensorDescriptor_t> x, y;
  Desc<cudnnFilterDescriptor_t> w;
  Desc<cudnnConvolutionDescriptor_t> conv;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace = 0;
  Shape out;
};

class ConvKernel : public GpuKernel {
 public:
  ConvKernel(std::shared_ptr<GpuRuntime> runtime, const Node& node, ops::WindowNd window)
      : GpuKernel(std::move(runtime)), name_(node.name()), w_(std::move(window)) {
    group_ = AttrOr<int64_t>(node, "group", 1);
    residual_ = AttrOr<bool>(node, "residual", false);
    has_bias_ = static_cast<int>(node.inputs().size()) - (residual_ ? 1 : 0) == 3;
    const std::string act = AttrOr<std::string>(node, "activation", "");
    if (act == "Relu") act_ = EpilogueAct::kRelu;
    if (act == "Clip") {
      act_ = EpilogueAct::kClip;
      lo_ = AttrOr<float>(node, "clip_min", 0.f);
      hi_ = AttrOr<float>(node, "clip_max", 0.f);
    }
  }

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    const Tensor& f = ctx.input(1);
    if (x.shape().rank() != w_.dims + 2 || f.shape().rank() != w_.dims + 2) {
      return errors::InvalidArgument(absl::StrCat("input ", x.shape().ToString(), " and filter ", f.shape().ToString(),
                                                  " must have rank ", w_.dims + 2));
    }
    ASSIGN_OR_RETURN(std::shared_ptr<const ConvPlan> plan, PlanFor(x.shape(), f.shape()));
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, plan->out, stream));
    if (y.num_elements() == 0) return absl::OkStatus();
    const CudnnApi& api = runtime().cudnn();
    if (x.num_elements() == 0 || f.num_elements() == 0) {
      RETURN_IF_ERROR(CudaCall(cudaMemsetAsync(y.raw_data(), 0, y.bytes(), stream), "cudaMemsetAsync"));
    } else {
      ASSIGN_OR_RETURN(cudnnHandle_t handle, runtime().CudnnHandle());
      Tensor workspace;
      if (plan->workspace > 0) {
        ASSIGN_OR_RETURN(workspace, runtime().Allocate(DType::kUInt8, Shape({static_cast<int64_t>(plan->workspace)}),
                                                       stream));
      }
      const float alpha = 1.f, beta = 0.f;
      RETURN_IF_ERROR(CudnnCall(api,
                                api.ConvolutionForward(handle, &alpha, plan->x.handle, x.raw_data(), plan->w.handle,
                                                       f.raw_data(), plan->conv.handle, plan->algo,
                                                       workspace.raw_data(), plan->workspace, &beta, plan->y.handle,
                                                       y.raw_data()),
                                "cudnnConvolutionForward"));
    }
    const float* bias = has_bias_ ? ctx.input(2).data<float>() : nullptr;
    const float* residual = nullptr;
    if (residual_) {
      const Tensor& r = ctx.input(ctx.num_inputs() - 1);
      if (r.shape() != y.shape()) {
        return errors::InvalidArgument(absl::StrCat("residual ", r.shape().ToString(), " differs from the output ",
                                                    y.shape().ToString()));
      }
      residual = r.data<float>();
    }
    if (bias == nullptr && residual == nullptr && act_ == EpilogueAct::kNone) return absl::OkStatus();
    const int64_t channels = y.shape().dim(1), inner = y.num_elements() / (y.shape().dim(0) * channels);
    return CudaCall(LaunchEpilogue(y.data<float>(), y.num_elements(), bias, channels, inner, residual, act_, lo_, hi_,
                                   stream),
                    "ConvND epilogue kernel launch");
  }

 private:
  StatusOr<std::shared_ptr<const ConvPlan>> PlanFor(const Shape& xs, const Shape& fs) {
    std::vector<int64_t> key = xs.dims();
    key.insert(key.end(), fs.dims().begin(), fs.dims().end());
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = plans_.find(key);
      if (it != plans_.end()) return it->second;
    }
    ASSIGN_OR_RETURN(std::shared_ptr<const ConvPlan> plan, MakePlan(xs, fs));
    std::lock_guard<std::mutex> lock(mu_);
    return plans_.try_emplace(std::move(key), std::move(plan)).first->second;
  }

  StatusOr<std::shared_ptr<const ConvPlan>> MakePlan(const Shape& xs, const Shape& fs) {
    RETURN_IF_ERROR(CheckIntDims(xs));
    RETURN_IF_ERROR(CheckIntDims(fs));
    if (xs.dim(1) != fs.dim(1) * group_ || fs.dim(0) % group_ != 0) {
      return errors::InvalidArgument(absl::StrCat("input ", xs.ToString(), " and filter ", fs.ToString(),
                                                  " do not match group ", group_));
    }
    const std::vector<int64_t> kernel(fs.dims().begin() + 2, fs.dims().end());
    ASSIGN_OR_RETURN(std::vector<int64_t> out, OutputDims(w_, xs, fs.dim(0), kernel));
    auto plan = std::make_shared<ConvPlan>();
    plan->out = Shape(out);
    if (plan->out.num_elements() == 0 || xs.num_elements() == 0 || fs.num_elements() == 0) return plan;
    const CudnnApi& api = runtime().cudnn();
    RETURN_IF_ERROR(SetTensor(api, plan->x, AtLeast4(xs.dims())));
    RETURN_IF_ERROR(SetTensor(api, plan->y, AtLeast4(out)));
    RETURN_IF_ERROR(CudnnCall(api, api.CreateFilterDescriptor(&plan->w.handle), "cudnnCreateFilterDescriptor"));
    plan->w.destroy = api.DestroyFilterDescriptor;
    const std::vector<int> fdims = Ints(AtLeast4(fs.dims()));
    RETURN_IF_ERROR(CudnnCall(api,
                              api.SetFilterNdDescriptor(plan->w.handle, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                                        static_cast<int>(fdims.size()), fdims.data()),
                              "cudnnSetFilterNdDescriptor"));
    RETURN_IF_ERROR(
        CudnnCall(api, api.CreateConvolutionDescriptor(&plan->conv.handle), "cudnnCreateConvolutionDescriptor"));
    plan->conv.destroy = api.DestroyConvolutionDescriptor;
    const Window2 s = Spatial(w_, kernel);
    RETURN_IF_ERROR(CudnnCall(api,
                              api.SetConvolutionNdDescriptor(plan->conv.handle, static_cast<int>(s.pads.size()),
                                                             s.pads.data(), s.strides.data(), s.dilations.data(),
                                                             CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                              "cudnnSetConvolutionNdDescriptor"));
    RETURN_IF_ERROR(CudnnCall(api, api.SetConvolutionGroupCount(plan->conv.handle, static_cast<int>(group_)),
                              "cudnnSetConvolutionGroupCount"));
    RETURN_IF_ERROR(CudnnCall(api, api.SetConvolutionMathType(plan->conv.handle, CUDNN_FMA_MATH),
                              "cudnnSetConvolutionMathType"));
    ASSIGN_OR_RETURN(cudnnHandle_t handle, runtime().CudnnHandle());
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    RETURN_IF_ERROR(CudnnCall(api,
                              api.GetConvolutionForwardAlgorithm_v7(handle, plan->x.handle, plan->w.handle,
                                                                    plan->conv.handle, plan->y.handle,
                                                                    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf),
                              "cudnnGetConvolutionForwardAlgorithm_v7"));
    // The fastest plain-FMA algorithm (no TF32 tensor cores) within the workspace cap;
    // implicit GEMM (no workspace) when the heuristics offer none.
    for (int i = 0; i < returned; ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH &&
          perf[i].memory <= kMaxWorkspace) {
        plan->algo = perf[i].algo;
        break;
      }
    }
    GRAPHD_LOG_DEBUG("ConvND '{}' {} * {}: cuDNN forward algorithm {} of {} offered (FMA math only)", name_,
                     xs.ToString(), fs.ToString(), static_cast<int>(plan->algo), returned);
    RETURN_IF_ERROR(CudnnCall(api,
                              api.GetConvolutionForwardWorkspaceSize(handle, plan->x.handle, plan->w.handle,
                                                                     plan->conv.handle, plan->y.handle, plan->algo,
                                                                     &plan->workspace),
                              "cudnnGetConvolutionForwardWorkspaceSize"));
    return plan;
  }

  const std::string name_;
  const ops::WindowNd w_;
  int64_t group_ = 1;
  bool residual_ = false, has_bias_ = false;
  EpilogueAct act_ = EpilogueAct::kNone;
  float lo_ = 0, hi_ = 0;
  std::mutex mu_;
  absl::flat_hash_map<std::vector<int64_t>, std::shared_ptr<const ConvPlan>> plans_;  // guarded by mu_
};

class PoolKernel : public GpuKernel {
 public:
  PoolKernel(std::shared_ptr<GpuRuntime> runtime, ops::WindowNd window, cudnnPoolingMode_t mode)
      : GpuKernel(std::move(runtime)), w_(std::move(window)), mode_(mode) {}

 protected:
  Status Run(KernelContext& ctx, cudaStream_t stream) override {
    const Tensor& x = ctx.input(0);
    if (x.shape().rank() != w_.dims + 2) {
      return errors::InvalidArgument(absl::StrCat("input ", x.shape().ToString(), " must have rank ", w_.dims + 2));
    }
    RETURN_IF_ERROR(CheckIntDims(x.shape()));
    ASSIGN_OR_RETURN(std::vector<int64_t> out, OutputDims(w_, x.shape(), x.shape().dim(1), w_.kernel));
    ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, 0, Shape(out), stream));
    if (y.num_elements() == 0) return absl::OkStatus();
    const CudnnApi& api = runtime().cudnn();
    Desc<cudnnTensorDescriptor_t> xd, yd;
    RETURN_IF_ERROR(SetTensor(api, xd, AtLeast4(x.shape().dims())));
    RETURN_IF_ERROR(SetTensor(api, yd, AtLeast4(out)));
    Desc<cudnnPoolingDescriptor_t> pd;
    RETURN_IF_ERROR(CudnnCall(api, api.CreatePoolingDescriptor(&pd.handle), "cudnnCreatePoolingDescriptor"));
    pd.destroy = api.DestroyPoolingDescriptor;
    const Window2 s = Spatial(w_, w_.kernel);
    RETURN_IF_ERROR(CudnnCall(api,
                              api.SetPoolingNdDescriptor(pd.handle, mode_, CUDNN_PROPAGATE_NAN,
                                                         static_cast<int>(s.kernel.size()), s.kernel.data(),
                                                         s.pads.data(), s.strides.data()),
                              "cudnnSetPoolingNdDescriptor"));
    ASSIGN_OR_RETURN(cudnnHandle_t handle, runtime().CudnnHandle());
    const float alpha = 1.f, beta = 0.f;
    return CudnnCall(api,
                     api.PoolingForward(handle, pd.handle, &alpha, xd.handle, x.raw_data(), &beta, yd.handle,
                                        y.raw_data()),
                     "cudnnPoolingForward");
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
