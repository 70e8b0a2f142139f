// The plain-loop engine of every binary elementwise CPU kernel: out[i] = fn(a[.], b[.])
// with numpy broadcasting, polling a cancellation token every 64K elements.
#ifndef GRAPHD_EXECUTOR_CPU_BROADCAST_H_
#define GRAPHD_EXECUTOR_CPU_BROADCAST_H_

#include <algorithm>
#include <vector>

#include "core/cancellation.h"
#include "core/tensor.h"

namespace graphd::executor::cpu {

// Strides of `in` (right-aligned to `out`) in elements; 0 on broadcast dimensions.
std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out);

inline constexpr int64_t kCheckEvery = int64_t{1} << 16;

// `out` must already have the broadcast shape of a and b.
template <typename TA, typename TB, typename TO, typename Fn>
Status BroadcastApply(const Tensor& a, const Tensor& b, Tensor& out, Fn fn,
                      const CancellationToken* token) {
  const TA* pa = a.data<TA>();
  const TB* pb = b.data<TB>();
  TO* po = out.data<TO>();
  const int64_t n = out.num_elements();
  auto check = [&]() -> Status { return token ? token->Check() : absl::OkStatus(); };
  const bool a_full = a.shape() == out.shape(), b_full = b.shape() == out.shape();
  if ((a_full || a.num_elements() == 1) && (b_full || b.num_elements() == 1)) {
    for (int64_t start = 0; start < n; start += kCheckEvery) {
      RETURN_IF_ERROR(check());
      const int64_t end = std::min(n, start + kCheckEvery);
      if (a_full && b_full) {
        for (int64_t i = start; i < end; ++i) po[i] = fn(pa[i], pb[i]);
      } else if (a_full) {
        for (int64_t i = start; i < end; ++i) po[i] = fn(pa[i], pb[0]);
      } else if (b_full) {
        for (int64_t i = start; i < end; ++i) po[i] = fn(pa[0], pb[i]);
      } else {
        for (int64_t i = start; i < end; ++i) po[i] = fn(pa[0], pb[0]);
      }
    }
    return absl::OkStatus();
  }
  const Shape& shape = out.shape();
  const std::vector<int64_t> sa = BroadcastStrides(a.shape(), shape);
  const std::vector<int64_t> sb = BroadcastStrides(b.shape(), shape);
  std::vector<int64_t> index(shape.rank(), 0);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i % kCheckEvery == 0) RETURN_IF_ERROR(check());
    po[i] = fn(pa[ia], pb[ib]);
    for (int d = shape.rank() - 1; d >= 0; --d) {  // odometer increment
      ia += sa[d];
      ib += sb[d];
      if (++index[d] < shape.dim(d)) break;
      ia -= sa[d] * shape.dim(d);
      ib -= sb[d] * shape.dim(d);
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_BROADCAST_H_
