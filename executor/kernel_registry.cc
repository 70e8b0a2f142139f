#include "executor/kernel_registry.h"

namespace graphd::executor {

void KernelRegistry::Register(std::string op, std::string device_type, DType dtype,
                              KernelFactory factory) {
  kernels_[{std::move(op), std::move(device_type), dtype}] = std::move(factory);
}

void KernelRegistry::Register(std::string op, std::string device_type,
                              std::initializer_list<DType> dtypes, const KernelFactory& factory) {
  for (DType d : dtypes) Register(op, device_type, d, factory);
}

void KernelRegistry::Register(std::string op, std::string device_type,
                              std::span<const DType> dtypes, const KernelFactory& factory) {
  for (DType d : dtypes) Register(op, device_type, d, factory);
}

DType KernelRegistry::KeyDType(const Node& node) {
  if (node.num_outputs() > 0) return node.output(0).dtype;
  if (!node.inputs().empty()) return node.inputs()[0].node->output(node.inputs()[0].index).dtype;
  return DType::kInvalid;
}

const KernelFactory* KernelRegistry::Find(const Node& node, absl::string_view device_type) const {
  std::string op = node.op_name();
  std::string device(device_type);
  auto it = kernels_.find(std::make_tuple(op, device, KeyDType(node)));
  if (it == kernels_.end()) it = kernels_.find(std::make_tuple(op, device, DType::kInvalid));
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::Ops(absl::string_view device_type) const {
  std::vector<std::string> ops;
  for (const auto& [key, factory] : kernels_) {
    const auto& [op, device, dtype] = key;
    if (device == device_type && (ops.empty() || ops.back() != op)) ops.push_back(op);
  }
  return ops;  // the map is ordered by op first
}

}  // namespace graphd::executor
