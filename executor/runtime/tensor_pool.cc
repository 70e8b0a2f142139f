#include "executor/runtime/tensor_pool.h"

#include <utility>

#include "core/buffer_cache.h"

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
  // Blocks the buffer cache keeps go back to it: there any size up to half theirs can
  // reuse them, where a spare here waits for its own element count until the run ends.
  if (taken.bytes() >= kMinCachedBytes && BufferCacheCapacity() > 0) return;
  spares_.push_back(std::move(taken));
}

}  // namespace graphd::executor
