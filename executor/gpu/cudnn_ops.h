// cuDNN convolution and pooling over channels-first float32 data [N, C, d1..dk]
// (k = 1..3; 1-D runs as 2-D with a unit height), shared by the ONNX-style ops
// (ConvND, MaxPoolND, AvgPoolND: cudnn_kernels.cc) and TensorFlow's NHWC ops (Conv2D,
// MaxPool, AvgPool: nhwc_kernels.cc). Symmetric padding only (pads_begin == pads_end);
// callers refuse other windows. Internal to executor/gpu.
#ifndef GRAPHD_EXECUTOR_GPU_CUDNN_OPS_H_
#define GRAPHD_EXECUTOR_GPU_CUDNN_OPS_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ops/window_nd.h"
#include "executor/gpu/gpu_runtime.h"

namespace graphd::executor::gpu {

// One convolution node's cuDNN state: for each (input shape, filter shape, window) seen,
// descriptors and the forward algorithm among CUDNN_FMA_MATH algorithms (no TF32),
// chosen once per process and problem: measured with cudnnFindConvolutionForwardAlgorithm
// (as PyTorch's cudnn.benchmark does), else by cudnnGetConvolutionForwardAlgorithm_v7's
// heuristics when measuring is unavailable or fails; implicit GEMM when neither offers
// one. Thread-safe.
class CudnnConv {
 public:
  // `name` names the node in debug logs.
  CudnnConv(std::shared_ptr<GpuRuntime> runtime, std::string name);
  ~CudnnConv();

  // y = conv(x, w) (cross-correlation) with `window` (strides, dilations, pads_begin
  // used) and `group`: x [N, C, ...], w [O, C / group, k...], y [N, O, ...] in a new
  // device tensor on `stream`. Empty inputs give zeros / empty outputs.
  StatusOr<Tensor> Forward(const ops::WindowNd& window, int64_t group, const Tensor& x, const Tensor& w,
                           cudaStream_t stream);

 private:
  struct Plan;
  StatusOr<std::shared_ptr<const Plan>> PlanFor(const ops::WindowNd& window, int64_t group, const Shape& x,
                                                const Shape& w);
  // The forward algorithm for `plan`'s descriptors; `key` identifies the problem.
  StatusOr<cudnnConvolutionFwdAlgo_t> ChooseAlgorithm(const CudnnApi& api, cudnnHandle_t handle, const Plan& plan,
                                                      std::vector<int64_t> key);

  std::shared_ptr<GpuRuntime> runtime_;
  const std::string name_;
  std::mutex mu_;
  absl::flat_hash_map<std::vector<int64_t>, std::shared_ptr<const Plan>> plans_;  // guarded by mu_
};

// y = pool(x) over `window` (kernel, strides, pads_begin; no dilation), y allocated on
// `stream`. `mode`: CUDNN_POOLING_MAX (padding never wins) or an average counting or
// excluding the padding.
StatusOr<Tensor> CudnnPool(const GpuRuntime& runtime, const ops::WindowNd& window, cudnnPoolingMode_t mode,
                           const Tensor& x, cudaStream_t stream);

// `x` with its dims permuted (y dim d = x dim perm[d]), in a new device tensor.
StatusOr<Tensor> Permuted(const GpuRuntime& runtime, const Tensor& x, const std::vector<int64_t>& perm,
                          cudaStream_t stream);

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_CUDNN_OPS_H_
