// GPU kernels (internal to executor/gpu): the base class every GPU kernel derives from,
// and the table of what the GPU device supports.
//
// Registration: RegisterGpuKernels fills a KernelRegistry (device type "GPU", keyed as
// usual by the node's first output dtype) and, for each op, an acceptance check on the
// node's attrs and input dtypes: the registry key alone cannot say that, e.g., a ConvND
// with channels_last or asymmetric pads has no GPU kernel. GpuDevice::SupportsOp asks
// both, so placement sends such nodes to the CPU.
#ifndef GRAPHD_EXECUTOR_GPU_GPU_KERNELS_H_
#define GRAPHD_EXECUTOR_GPU_GPU_KERNELS_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "core/graph/node_attr.h"
#include "executor/gpu/gpu_launch.h"
#include "executor/gpu/gpu_runtime.h"
#include "executor/kernel_registry.h"

namespace graphd::executor::gpu {

using Accept = std::function<bool(const Node&)>;

// What RegisterGpuKernels fills.
struct GpuKernelTable {
  KernelRegistry kernels;
  absl::flat_hash_map<std::string, Accept> accept;  // by op name

  // Registers `factory` for (op, dtypes) and `accept` for op (one per op).
  void Add(const std::string& op, std::initializer_list<DType> dtypes, KernelFactory factory, Accept accept_node);
};

// Every GPU kernel of a device that uses `runtime`. Registration itself does not touch
// the GPU (factories use `runtime` only when called), so a table filled with a null
// runtime answers GpuSupports, e.g. in tests on machines without a GPU.
void RegisterGpuKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime);
// GpuDevice::SupportsOp: every input and output has a fixed-size dtype (no strings),
// no input is a ref, a kernel is registered for the node and its op's check accepts it.
bool GpuSupports(const GpuKernelTable& table, const Node& node);
// Per family (array_kernels.cc, elementwise_kernels.cc, matmul_kernels.cc,
// cudnn_kernels.cc, nn_kernels.cc, manip_kernels.cc, fused_kernel.cc, nhwc_kernels.cc).
void RegisterGpuArrayKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime);
void RegisterGpuElementwiseKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime);
void RegisterGpuMatMulKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime);
void RegisterGpuCudnnKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime);
void RegisterGpuNnKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime);
void RegisterGpuManipKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime);
void RegisterGpuFusedKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime);
void RegisterGpuNhwcKernels(GpuKernelTable& table, const std::shared_ptr<GpuRuntime>& runtime);

// Base of the GPU kernels: Compute runs Run and prefixes any error with the node
// ("node 'n' (Op): cudaMemcpyAsync failed: ...").
class GpuKernel : public OpKernel {
 public:
  explicit GpuKernel(std::shared_ptr<GpuRuntime> runtime) : runtime_(std::move(runtime)) {}
  Status Compute(KernelContext& ctx) final;

 protected:
  virtual Status Run(KernelContext& ctx, cudaStream_t stream) = 0;
  // Output `i` in device memory with the node's output dtype, on `stream`; set as the
  // output and returned (sharing the buffer) for the kernel to write.
  StatusOr<Tensor> AllocateOutput(KernelContext& ctx, int i, const Shape& shape, cudaStream_t stream) const;
  const GpuRuntime& runtime() const { return *runtime_; }

 private:
  std::shared_ptr<GpuRuntime> runtime_;
};

// Helpers for kernels and acceptance checks (and AttrOr from core/graph/node_attr.h).
using ::graphd::AttrOr;
// The fused activation the passes put on MatMul and ConvND ("activation" = Relu or
// Clip with clip_min/clip_max), for the epilogue kernel.
struct EpilogueActivation {
  EpilogueAct act = EpilogueAct::kNone;
  float lo = 0, hi = 0;
};
EpilogueActivation ReadEpilogueActivation(const Node& node);
// The kernel ElemType of `dtype`; false for dtypes the GPU kernels do not compute on.
bool ToElemType(DType dtype, ElemType* type);
// Input `i`'s dtype (kInvalid when out of range).
DType InputDType(const Node& node, int i);

}  // namespace graphd::executor::gpu

#endif  // GRAPHD_EXECUTOR_GPU_GPU_KERNELS_H_
