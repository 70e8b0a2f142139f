// The CPU device: host memory, oneDNN and plain kernels from the CPU kernel registry.
#ifndef GRAPHD_EXECUTOR_CPU_CPU_DEVICE_H_
#define GRAPHD_EXECUTOR_CPU_CPU_DEVICE_H_

#include "executor/device.h"
#include "executor/kernel_registry.h"

namespace graphd::executor::cpu {

class CpuDevice : public Device {
 public:
  CpuDevice();

  const DeviceInfo& info() const override { return info_; }
  bool SupportsOp(const Node& node) const override;
  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node) const override;
  StatusOr<Tensor> Allocate(DType dtype, const Shape& shape) const override;
  StatusOr<Tensor> CopyFromHost(const Tensor& host) const override { return host; }
  StatusOr<Tensor> CopyToHost(const Tensor& t) const override { return t; }
  Status Synchronize() const override { return absl::OkStatus(); }

 private:
  DeviceInfo info_;
  KernelRegistry kernels_;
};

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_CPU_DEVICE_H_
