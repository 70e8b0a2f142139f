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

// A broadcast of two inputs to an output with adjacent dimensions merged wherever
// both inputs walk them as one (both contiguous across them, or both broadcast over
// them): (1,56,56,96) - (1,56,56,1) becomes (3136, 96) with strides (1, 0) and (0, 1)
// for the second input. At least one dimension (a scalar output has dims {1}).
struct CollapsedBroadcast {
  std::vector<int64_t> dims;
  std::vector<int64_t> sa, sb;  // strides in elements, 0 where broadcast
};
CollapsedBroadcast CollapseBroadcast(const Shape& a, const Shape& b, const Shape& out);

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
  // Rows of the innermost merged dimension, each a tight loop of one of four kinds
  // (both inputs contiguous, one of them repeated, or strided), the rows walked by an
  // odometer over the outer dimensions.
  const CollapsedBroadcast c = CollapseBroadcast(a.shape(), b.shape(), out.shape());
  const int rank = static_cast<int>(c.dims.size());
  const int64_t inner = c.dims[rank - 1], ja = c.sa[rank - 1], jb = c.sb[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t ia = 0, ib = 0, since_check = kCheckEvery;
  for (int64_t row = 0; row < n; row += inner) {
    if (since_check >= kCheckEvery) {
      RETURN_IF_ERROR(check());
      since_check = 0;
    }
    since_check += inner;
    TO* o = po + row;
    const TA* x = pa + ia;
    const TB* y = pb + ib;
    if (ja == 1 && jb == 1) {
      for (int64_t j = 0; j < inner; ++j) o[j] = fn(x[j], y[j]);
    } else if (ja == 1 && jb == 0) {
      const TB v = *y;
      for (int64_t j = 0; j < inner; ++j) o[j] = fn(x[j], v);
    } else if (ja == 0 && jb == 1) {
      const TA v = *x;
      for (int64_t j = 0; j < inner; ++j) o[j] = fn(v, y[j]);
    } else {
      for (int64_t j = 0; j < inner; ++j) o[j] = fn(x[j * ja], y[j * jb]);
    }
    for (int d = rank - 2; d >= 0; --d) {  // odometer over the outer dimensions
      ia += c.sa[d];
      ib += c.sb[d];
      if (++index[d] < c.dims[d]) break;
      ia -= c.sa[d] * c.dims[d];
      ib -= c.sb[d] * c.dims[d];
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace graphd::executor::cpu

#endif  // GRAPHD_EXECUTOR_CPU_BROADCAST_H_
