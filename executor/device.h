// The device interface: everything the runtime and placement know about a device.
// Deliberately small (DESIGN.md convention 8). CPU implements it in executor/cpu,
// GPU in executor/gpu. Thread safety: all methods may be called from many threads.
#ifndef GRAPHD_EXECUTOR_DEVICE_H_
#define GRAPHD_EXECUTOR_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "executor/kernel.h"

namespace graphd::executor {

struct DeviceInfo {
  std::string name;         // "/device:CPU:0"
  std::string device_type;  // "CPU" or "GPU"
  int64_t memory_limit = 0;  // bytes
  std::string description;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;

  // Placement asks only this.
  virtual bool SupportsOp(const Node& node) const = 0;
  // Creates the kernel for `node`; Unimplemented when unsupported.
  virtual StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node) const = 0;

  // Allocates a tensor in this device's memory.
  virtual StatusOr<Tensor> Allocate(DType dtype, const Shape& shape) const = 0;
  // Host <-> device copies (identity on the CPU).
  virtual StatusOr<Tensor> CopyFromHost(const Tensor& host) const = 0;
  virtual StatusOr<Tensor> CopyToHost(const Tensor& device) const = 0;
  // Waits for all work queued on this device by the calling thread.
  virtual Status Synchronize() const = 0;
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_DEVICE_H_
