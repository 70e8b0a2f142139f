#include "executor/kernel.h"

#include <atomic>

#include "executor/runtime/tensor_pool.h"

namespace graphd::executor {

StatusOr<Tensor*> KernelContext::AllocateOutput(int i, const Shape& shape) {
  if (pool_ != nullptr && pool_->Take(node_.output(i).dtype, shape, &outputs_[i])) return &outputs_[i];
  ASSIGN_OR_RETURN(outputs_[i], Tensor::Allocate(node_.output(i).dtype, shape));
  return &outputs_[i];
}

Tensor* KernelContext::ForwardInput(int i, int o) {
  if (i < 0 || static_cast<size_t>(i) >= forwardable_.size() || forwardable_[i] == nullptr) return nullptr;
  Tensor* slot = forwardable_[i];
  if (!slot->valid() || slot->dtype() == DType::kString || slot->dtype() != node_.output(o).dtype ||
      slot->buffer() == nullptr || !slot->on_host() || slot->buffer().use_count() != 1) {
    return nullptr;
  }
  // Whoever dropped the other references wrote the buffer before: see it before writing.
  std::atomic_thread_fence(std::memory_order_acquire);
  outputs_[o] = std::move(*slot);
  *slot = Tensor();
  return &outputs_[o];
}

Status KernelContext::Error(const Status& status) const {
  return errors::WithNode(
      errors::Make(status.code(), absl::StrCat("node '", node_.name(), "' (", node_.op_name(),
                                               "): ", status.message())),
      node_.name());
}

Status KernelContext::Error(absl::string_view message) const {
  return errors::WithNode(errors::InvalidArgument(absl::StrCat(
                              "node '", node_.name(), "' (", node_.op_name(), "): ", message)),
                          node_.name());
}

}  // namespace graphd::executor
