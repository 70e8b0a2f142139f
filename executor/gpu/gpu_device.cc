// GpuDevice on CUDA: memory through GpuRuntime's caching allocator, copies on the
// calling thread's stream, kernels from gpu_kernels.h.
#include "executor/gpu/gpu_device.h"

#include "absl/strings/str_cat.h"
#include "executor/gpu/gpu_kernels.h"
#include "executor/gpu/gpu_probe.h"
#include "executor/gpu/gpu_runtime.h"

namespace graphd::executor::gpu {
namespace {

// Dtypes whose values may live in GPU memory (fixed-size elements).
bool DeviceDType(DType dtype) { return dtype != DType::kString && dtype != DType::kInvalid; }

class GpuDeviceImpl : public GpuDevice {
 public:
  GpuDeviceImpl(const Device& host, std::shared_ptr<GpuRuntime> runtime, DeviceInfo info)
      : host_(host), runtime_(std::move(runtime)), info_(std::move(info)) {
    RegisterGpuKernels(table_, runtime_);
  }

  const DeviceInfo& info() const override { return info_; }
  const Device* fallback() const override { return &host_; }
  int memory_space() const override { return runtime_->ordinal(); }
  // Every GPU kernel reads its inputs from device memory (shapes and axes are attrs).
  bool InputOnHost(const Node&, int) const override { return false; }

  bool SupportsOp(const Node& node) const override { return GpuSupports(table_, node); }

  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node) const override {
    const KernelFactory* factory = table_.kernels.Find(node, info_.device_type);
    if (factory == nullptr || !SupportsOp(node)) {
      return errors::WithNode(errors::Unimplemented(absl::StrCat(
                                  "node '", node.name(), "': no GPU kernel for op '", node.op_name(), "' with dtype ",
                                  DTypeName(KernelRegistry::KeyDType(node)), " and these attributes")),
                              node.name());
    }
    StatusOr<std::unique_ptr<OpKernel>> kernel = (*factory)(node);
    if (!kernel.ok()) {
      return errors::WithNode(
          errors::Make(kernel.status().code(),
                       absl::StrCat("node '", node.name(), "' (", node.op_name(),
                                    "): creating its GPU kernel failed: ", kernel.status().message())),
          node.name());
    }
    return kernel;
  }

  StatusOr<Tensor> Allocate(DType dtype, const Shape& shape) const override {
    ASSIGN_OR_RETURN(cudaStream_t stream, runtime_->Stream());
    return runtime_->Allocate(dtype, shape, stream);
  }

  StatusOr<Tensor> CopyFromHost(const Tensor& host) const override {
    if (!host.on_host()) {
      return errors::InvalidArgument(absl::StrCat("CopyFromHost of a tensor in memory space ", host.memory_space()));
    }
    if (!DeviceDType(host.dtype())) {
      return errors::InvalidArgument(absl::StrCat(DTypeName(host.dtype()), " tensors cannot live on ", info_.name));
    }
    ASSIGN_OR_RETURN(cudaStream_t stream, runtime_->Stream());
    ASSIGN_OR_RETURN(Tensor device, runtime_->Allocate(host.dtype(), host.shape(), stream));
    if (host.bytes() == 0) return device;
    // From pageable memory the call returns once the bytes are staged, so `host` may
    // be released afterwards.
    RETURN_IF_ERROR(
        CudaCall(cudaMemcpyAsync(device.raw_data(), host.raw_data(), host.bytes(), cudaMemcpyHostToDevice, stream),
                 absl::StrCat("cudaMemcpyAsync (", host.DebugString(), " to ", info_.name, ")")));
    return device;
  }

  StatusOr<Tensor> CopyToHost(const Tensor& device) const override {
    if (device.memory_space() != runtime_->ordinal()) {
      return errors::InvalidArgument(
          absl::StrCat("CopyToHost of a tensor in memory space ", device.memory_space(), ", not ", info_.name));
    }
    ASSIGN_OR_RETURN(Tensor host, Tensor::Allocate(device.dtype(), device.shape()));
    ASSIGN_OR_RETURN(cudaStream_t stream, runtime_->Stream());
    if (device.bytes() > 0) {
      RETURN_IF_ERROR(
          CudaCall(cudaMemcpyAsync(host.raw_data(), device.raw_data(), device.bytes(), cudaMemcpyDeviceToHost, stream),
                   absl::StrCat("cudaMemcpyAsync (", device.DebugString(), " from ", info_.name, ")")));
    }
    // Also reports errors of kernels queued earlier on this stream.
    RETURN_IF_ERROR(CudaCall(cudaStreamSynchronize(stream), "cudaStreamSynchronize"));
    return host;
  }

  Status Synchronize() const override {
    ASSIGN_OR_RETURN(cudaStream_t stream, runtime_->Stream());
    return CudaCall(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }

  GpuMemoryStats MemoryStats() const override {
    AllocatorStats s = runtime_->allocator().Stats();
    return {.bytes_in_use = static_cast<int64_t>(s.bytes_in_use),
            .bytes_cached = static_cast<int64_t>(s.bytes_cached),
            .peak_bytes_in_use = static_cast<int64_t>(s.peak_bytes_in_use)};
  }

  void TrimCache() const override { runtime_->allocator().Trim(); }

  OwnerReport ReleaseOwner(absl::string_view owner) const override {
    OwnerReport report;
    AllocatorStats s = runtime_->allocator().Stats();
    if (auto it = s.owners.find(owner); it != s.owners.end()) {
      report.peak_bytes = static_cast<int64_t>(it->second.peak_bytes_in_use);
      report.leaked_bytes = static_cast<int64_t>(it->second.bytes_in_use);
    }
    (void)runtime_->allocator().ReleaseOwner(owner);  // FailedPrecondition = the leak above
    return report;
  }

 private:
  const Device& host_;
  std::shared_ptr<GpuRuntime> runtime_;
  DeviceInfo info_;
  GpuKernelTable table_;
};

}  // namespace

StatusOr<std::unique_ptr<GpuDevice>> GpuDevice::Create(int ordinal, const Device& host) {
  const GpuProbe probe = ProbeGpus();
  if (probe.devices.empty()) {
    return errors::FailedPrecondition(absl::StrCat("GPU ", ordinal, ": no usable GPU: ", probe.reason));
  }
  if (ordinal < 0 || ordinal >= static_cast<int>(probe.devices.size())) {
    return errors::FailedPrecondition(absl::StrCat("GPU ", ordinal, ": no such device (", probe.devices.size(),
                                                   " usable GPU", probe.devices.size() == 1 ? "" : "s", ")"));
  }
  cudaDeviceProp prop{};
  RETURN_IF_ERROR(CudaCall(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties"));
  StatusOr<std::shared_ptr<GpuRuntime>> runtime = GpuRuntime::Create(ordinal);
  if (!runtime.ok()) {
    return errors::Make(runtime.status().code(), absl::StrCat("GPU ", ordinal, ": ", runtime.status().message()));
  }
  const int cudnn_version = static_cast<int>((*runtime)->cudnn().GetVersion());
  DeviceInfo info{.name = absl::StrCat("/device:GPU:", ordinal),
                  .device_type = "GPU",
                  .memory_limit = static_cast<int64_t>(prop.totalGlobalMem),
                  .description = absl::StrCat(prop.name, ", compute capability ", prop.major, ".", prop.minor,
                                              ", cuDNN ", cudnn_version / 10000, ".", (cudnn_version / 100) % 100)};
  return std::unique_ptr<GpuDevice>(new GpuDeviceImpl(host, *std::move(runtime), std::move(info)));
}

}  // namespace graphd::executor::gpu
