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

  // Placement (Plan::Build). A device that cannot run every op names the device that
  // runs the rest (the host CPU for a GPU): each node goes to this device when
  // SupportsOp says so and to fallback() otherwise, with explicit copy steps where a
  // value crosses between them. nullptr (the CPU): everything runs here.
  virtual const Device* fallback() const { return nullptr; }
  // Where this device's tensors live (Buffer::memory_space); kHostMemory for the CPU.
  virtual int memory_space() const { return kHostMemory; }
  // True when this device's kernel for `node` reads input `input` from host memory
  // (shape operands, axes, indices it needs before launching; TensorFlow's
  // HostMemory). Placement then hands that input over as a host tensor.
  virtual bool InputOnHost(const Node& node, int input) const {
    (void)node;
    (void)input;
    return memory_space() == kHostMemory;
  }
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_DEVICE_H_
