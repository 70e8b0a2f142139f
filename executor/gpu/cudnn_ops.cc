#include "executor/gpu/cudnn_ops.h"

#include <climits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/logging.h"
#include "executor/gpu/gpu_launch.h"

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

// Every dim and the element count fit cuDNN's int.
Status CheckIntDims(const Shape& s) {
  if (s.num_elements() > INT_MAX) {
    return errors::Unimplemented(absl::StrCat("shape ", s.ToString(), " has too many elements for cuDNN"));
  }
  return absl::OkStatus();
}

// The window's spatial parameters padded like AtLeast4 (a 1-D window gets a unit one).
struct Spatial {
  std::vector<int> pads, strides, dilations, kernel;
};
Spatial SpatialOf(const ops::WindowNd& w, const std::vector<int64_t>& kernel) {
  Spatial s{Ints(w.pads_begin), Ints(w.strides), Ints(w.dilations), Ints(kernel)};
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

Status CheckWindow(const ops::WindowNd& w, const Shape& x) {
  if (x.rank() != w.dims + 2 || w.dims < 1 || w.dims > 3) {
    return errors::InvalidArgument(absl::StrCat("input ", x.ToString(), " does not have ", w.dims, " spatial dims"));
  }
  if (w.pads_begin != w.pads_end) return errors::Unimplemented("asymmetric padding on cuDNN");
  return CheckIntDims(x);
}

}  // namespace

struct CudnnConv::Plan {
  Desc<cudnnTensorDescriptor_t> x, y;
  Desc<cudnnFilterDescriptor_t> w;
  Desc<cudnnConvolutionDescriptor_t> conv;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace = 0;
  Shape out;
  bool empty = false;  // no cuDNN call: the output is empty or all zeros
};

namespace {

// The fastest plain-FMA algorithm (no TF32 tensor cores) within the workspace cap
// among `perf` (sorted fastest first, as cuDNN returns them), if any.
std::optional<cudnnConvolutionFwdAlgo_t> FirstFmaAlgorithm(const cudnnConvolutionFwdAlgoPerf_t* perf, int n) {
  for (int i = 0; i < n; ++i) {
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH &&
        perf[i].memory <= kMaxWorkspace) {
      return perf[i].algo;
    }
  }
  return std::nullopt;
}

// Measured choices per (GPU, problem), shared by every node and session of the process.
struct AlgorithmCache {
  std::mutex mu;
  absl::flat_hash_map<std::vector<int64_t>, cudnnConvolutionFwdAlgo_t> chosen;
  static AlgorithmCache& Get() {
    static AlgorithmCache* cache = new AlgorithmCache;  // leaked: used until exit
    return *cache;
  }
};

}  // namespace

StatusOr<cudnnConvolutionFwdAlgo_t> CudnnConv::ChooseAlgorithm(const CudnnApi& api, cudnnHandle_t handle,
                                                               const Plan& plan, std::vector<int64_t> key) {
  key.push_back(runtime_->ordinal());
  AlgorithmCache& cache = AlgorithmCache::Get();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    if (auto it = cache.chosen.find(key); it != cache.chosen.end()) return it->second;
  }
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  std::optional<cudnnConvolutionFwdAlgo_t> algo;
  if (api.FindConvolutionForwardAlgorithm != nullptr) {
    // Runs each algorithm once on scratch memory cuDNN allocates (and frees) itself.
    const cudnnStatus_t found =
        api.FindConvolutionForwardAlgorithm(handle, plan.x.handle, plan.w.handle, plan.conv.handle, plan.y.handle,
                                            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf);
    if (found == CUDNN_STATUS_SUCCESS) {
      algo = FirstFmaAlgorithm(perf, returned);
    } else {
      cudaGetLastError();  // a failed measurement falls back to the heuristics
      GRAPHD_LOG_WARN("convolution '{}': cudnnFindConvolutionForwardAlgorithm failed ({}); using heuristics", name_,
                      api.GetErrorString(found));
    }
  }
  if (!algo.has_value()) {
    RETURN_IF_ERROR(CudnnCall(
        api,
        api.GetConvolutionForwardAlgorithm_v7(handle, plan.x.handle, plan.w.handle, plan.conv.handle, plan.y.handle,
                                              CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf),
        "cudnnGetConvolutionForwardAlgorithm_v7"));
    algo = FirstFmaAlgorithm(perf, returned).value_or(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
  }
  std::lock_guard<std::mutex> lock(cache.mu);
  return cache.chosen.try_emplace(std::move(key), *algo).first->second;
}

CudnnConv::CudnnConv(std::shared_ptr<GpuRuntime> runtime, std::string name)
    : runtime_(std::move(runtime)), name_(std::move(name)) {}

CudnnConv::~CudnnConv() = default;

StatusOr<std::shared_ptr<const CudnnConv::Plan>> CudnnConv::PlanFor(const ops::WindowNd& window, int64_t group,
                                                                    const Shape& xs, const Shape& fs) {
  std::vector<int64_t> key = xs.dims();
  key.insert(key.end(), fs.dims().begin(), fs.dims().end());
  for (const IntList* l : {&window.pads_begin, &window.strides, &window.dilations}) {
    key.insert(key.end(), l->begin(), l->end());
  }
  key.push_back(group);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
  }
  RETURN_IF_ERROR(CheckWindow(window, xs));
  RETURN_IF_ERROR(CheckIntDims(fs));
  if (fs.rank() != xs.rank() || group < 1 || xs.dim(1) != fs.dim(1) * group || fs.dim(0) % group != 0) {
    return errors::InvalidArgument(
        absl::StrCat("input ", xs.ToString(), " and filter ", fs.ToString(), " do not match (group ", group, ")"));
  }
  const std::vector<int64_t> kernel(fs.dims().begin() + 2, fs.dims().end());
  ASSIGN_OR_RETURN(std::vector<int64_t> out, OutputDims(window, xs, fs.dim(0), kernel));
  auto plan = std::make_shared<Plan>();
  plan->out = Shape(out);
  RETURN_IF_ERROR(CheckIntDims(plan->out));
  plan->empty = plan->out.num_elements() == 0 || xs.num_elements() == 0 || fs.num_elements() == 0;
  if (!plan->empty) {
    const CudnnApi& api = runtime_->cudnn();
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
    const Spatial s = SpatialOf(window, kernel);
    RETURN_IF_ERROR(CudnnCall(
        api,
        api.SetConvolutionNdDescriptor(plan->conv.handle, static_cast<int>(s.pads.size()), s.pads.data(),
                                       s.strides.data(), s.dilations.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolutionNdDescriptor"));
    RETURN_IF_ERROR(CudnnCall(api, api.SetConvolutionGroupCount(plan->conv.handle, static_cast<int>(group)),
                              "cudnnSetConvolutionGroupCount"));
    RETURN_IF_ERROR(
        CudnnCall(api, api.SetConvolutionMathType(plan->conv.handle, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType"));
    ASSIGN_OR_RETURN(cudnnHandle_t handle, runtime_->CudnnHandle());
    ASSIGN_OR_RETURN(plan->algo, ChooseAlgorithm(api, handle, *plan, key));
    GRAPHD_LOG_DEBUG("convolution '{}' {} * {}: cuDNN forward algorithm {} (FMA math only)", name_, xs.ToString(),
                     fs.ToString(), static_cast<int>(plan->algo));
    RETURN_IF_ERROR(
        CudnnCall(api,
                  api.GetConvolutionForwardWorkspaceSize(handle, plan->x.handle, plan->w.handle, plan->conv.handle,
                                                         plan->y.handle, plan->algo, &plan->workspace),
                  "cudnnGetConvolutionForwardWorkspaceSize"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  return plans_.try_emplace(std::move(key), std::move(plan)).first->second;
}

StatusOr<Tensor> CudnnConv::Forward(const ops::WindowNd& window, int64_t group, const Tensor& x, const Tensor& w,
                                    cudaStream_t stream) {
  ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, PlanFor(window, group, x.shape(), w.shape()));
  ASSIGN_OR_RETURN(Tensor y, runtime_->Allocate(DType::kFloat32, plan->out, stream));
  if (y.num_elements() == 0) return y;
  if (plan->empty) {  // a sum over no products
    RETURN_IF_ERROR(CudaCall(cudaMemsetAsync(y.raw_data(), 0, y.bytes(), stream), "cudaMemsetAsync"));
    return y;
  }
  const CudnnApi& api = runtime_->cudnn();
  ASSIGN_OR_RETURN(cudnnHandle_t handle, runtime_->CudnnHandle());
  Tensor workspace;
  if (plan->workspace > 0) {
    ASSIGN_OR_RETURN(workspace,
                     runtime_->Allocate(DType::kUInt8, Shape({static_cast<int64_t>(plan->workspace)}), stream));
  }
  const float alpha = 1.f, beta = 0.f;
  RETURN_IF_ERROR(CudnnCall(api,
                            api.ConvolutionForward(handle, &alpha, plan->x.handle, x.raw_data(), plan->w.handle,
                                                   w.raw_data(), plan->conv.handle, plan->algo, workspace.raw_data(),
                                                   plan->workspace, &beta, plan->y.handle, y.raw_data()),
                            "cudnnConvolutionForward"));
  return y;
}

StatusOr<Tensor> CudnnPool(const GpuRuntime& runtime, const ops::WindowNd& window, cudnnPoolingMode_t mode,
                           const Tensor& x, cudaStream_t stream) {
  RETURN_IF_ERROR(CheckWindow(window, x.shape()));
  ASSIGN_OR_RETURN(std::vector<int64_t> out, OutputDims(window, x.shape(), x.shape().dim(1), window.kernel));
  ASSIGN_OR_RETURN(Tensor y, runtime.Allocate(DType::kFloat32, Shape(out), stream));
  if (y.num_elements() == 0) return y;
  const CudnnApi& api = runtime.cudnn();
  Desc<cudnnTensorDescriptor_t> xd, yd;
  RETURN_IF_ERROR(SetTensor(api, xd, AtLeast4(x.shape().dims())));
  RETURN_IF_ERROR(SetTensor(api, yd, AtLeast4(out)));
  Desc<cudnnPoolingDescriptor_t> pd;
  RETURN_IF_ERROR(CudnnCall(api, api.CreatePoolingDescriptor(&pd.handle), "cudnnCreatePoolingDescriptor"));
  pd.destroy = api.DestroyPoolingDescriptor;
  const Spatial s = SpatialOf(window, window.kernel);
  RETURN_IF_ERROR(
      CudnnCall(api,
                api.SetPoolingNdDescriptor(pd.handle, mode, CUDNN_PROPAGATE_NAN, static_cast<int>(s.kernel.size()),
                                           s.kernel.data(), s.pads.data(), s.strides.data()),
                "cudnnSetPoolingNdDescriptor"));
  ASSIGN_OR_RETURN(cudnnHandle_t handle, runtime.CudnnHandle());
  const float alpha = 1.f, beta = 0.f;
  RETURN_IF_ERROR(CudnnCall(
      api, api.PoolingForward(handle, pd.handle, &alpha, xd.handle, x.raw_data(), &beta, yd.handle, y.raw_data()),
      "cudnnPoolingForward"));
  return y;
}

StatusOr<Tensor> Permuted(const GpuRuntime& runtime, const Tensor& x, const std::vector<int64_t>& perm,
                          cudaStream_t stream) {
  const int rank = x.shape().rank();
  if (static_cast<int>(perm.size()) != rank || rank > kMaxKernelRank) {
    return errors::InvalidArgument(absl::StrCat("permutation of ", perm.size(), " dims for ", x.shape().ToString(),
                                                " (rank <= ", kMaxKernelRank, ")"));
  }
  std::vector<int64_t> strides(rank), out(rank);
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= x.shape().dim(d);
  }
  PermuteIndex index;
  index.rank = rank;
  std::vector<bool> seen(rank, false);
  for (int d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= rank || seen[perm[d]]) return errors::InvalidArgument("not a permutation");
    seen[perm[d]] = true;
    out[d] = x.shape().dim(static_cast<int>(perm[d]));
    index.dims[d] = out[d];
    index.in_strides[d] = strides[perm[d]];
  }
  ASSIGN_OR_RETURN(Tensor y, runtime.Allocate(x.dtype(), Shape(out), stream));
  RETURN_IF_ERROR(CudaCall(LaunchPermute(static_cast<int>(DTypeSize(x.dtype())), x.raw_data(), y.raw_data(),
                                         y.num_elements(), index, stream),
                           "permute kernel launch"));
  return y;
}

}  // namespace graphd::executor::gpu
