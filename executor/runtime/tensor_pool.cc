#include "executor/runtime/tensor_pool.h"

#include <utility>

namespace graphd::executor {

bool TensorPool::Take(DType dtype, const Shape& shape, Tensor* out) {
  if (spares_.empty()) return false;
  int64_t count = 1;
  for (int64_t d : shape.dims()) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return false;
  }
  for (size_t i = 0; i < spares_.size(); ++i) {
    Tensor& spare = spares_[i];
    if (spare.dtype() != dtype || spare.num_elements() != count) continue;
    if (spare.shape() == shape) {
      *out = std::move(spare);
    } else {
      auto reshaped = spare.Reshaped(shape);
      if (!reshaped.ok()) continue;
      *out = *std::move(reshaped);
    }
    spares_[i] = std::move(spares_.back());
    spares_.pop_back();
    return true;
  }
  return false;
}

void TensorPool::Give(Tensor&& t) {
  Tensor taken = std::move(t);
  t = Tensor();
  if (!taken.valid() || taken.dtype() == DType::kString || taken.buffer() == nullptr || !taken.on_host() ||
      taken.buffer().use_count() != 1 || spares_.size() >= kMaxSpares) {
    return;
  }
  spares_.push_back(std::move(taken));
}

}  // namespace graphd::executor
