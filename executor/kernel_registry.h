// Kernels registered per (op, device type, dtype) by explicit calls from each backend
// (e.g. cpu::RegisterCpuKernels). The dtype key is the node's first output dtype, or
// the first input's when the node has no outputs. DType::kInvalid registers a kernel
// for every dtype, and is only for kernels that move data without computing on it
// (Identity, Const, Reshape, ...), so that SupportsOp tells the truth.
// Thread safety: register before use, then read-only.
#ifndef GRAPHD_EXECUTOR_KERNEL_REGISTRY_H_
#define GRAPHD_EXECUTOR_KERNEL_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <span>
#include <tuple>

#include "executor/kernel.h"

namespace graphd::executor {

using KernelFactory = std::function<StatusOr<std::unique_ptr<OpKernel>>(const Node&)>;

class KernelRegistry {
 public:
  void Register(std::string op, std::string device_type, DType dtype, KernelFactory factory);
  // Convenience: the same factory for several dtypes.
  void Register(std::string op, std::string device_type, std::initializer_list<DType> dtypes,
                const KernelFactory& factory);
  void Register(std::string op, std::string device_type, std::span<const DType> dtypes,
                const KernelFactory& factory);
  // nullptr when no kernel fits the node on that device.
  const KernelFactory* Find(const Node& node, absl::string_view device_type) const;
  // The ops with at least one kernel for `device_type`, sorted.
  std::vector<std::string> Ops(absl::string_view device_type) const;
  // The dtype a node's kernel is looked up by.
  static DType KeyDType(const Node& node);

 private:
  std::map<std::tuple<std::string, std::string, DType>, KernelFactory, std::less<>> kernels_;
};

}  // namespace graphd::executor

#endif  // GRAPHD_EXECUTOR_KERNEL_REGISTRY_H_
