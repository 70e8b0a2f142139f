// TopKV2 (values and indices along any axis, largest or smallest, ties to the lower
// index, NaN as the largest value) and one-input Where (coordinates of nonzeros,
// sized at run time).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "executor/cpu/dispatch.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

// a > b with NaN above every number (NaNs equal to each other).
template <typename T>
bool Greater(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

StatusOr<int64_t> ReadK(KernelContext& ctx, int64_t n) {
  const Tensor& k = ctx.input(1);
  if (k.num_elements() != 1) {
    return ctx.Error(absl::StrCat("k must be a scalar, got shape ", k.shape().ToString()));
  }
  const int64_t v =
      k.dtype() == DType::kInt32 ? int64_t{k.data<int32_t>()[0]} : k.data<int64_t>()[0];
  if (v < 0 || v > n) {
    return ctx.Error(absl::StrCat("k (", v, ") must be in [0, ", n, "], the size of the axis"));
  }
  return v;
}

template <typename T, typename I>
Status TopK(const CancellationToken& token, const T* x, T* values, I* indices, int64_t outer,
            int64_t n, int64_t inner, int64_t k, bool largest) {
  std::vector<int64_t> order(n);
  for (int64_t o = 0; o < outer; ++o) {
    RETURN_IF_ERROR(token.Check());
    for (int64_t i = 0; i < inner; ++i) {
      const T* col = x + o * n * inner + i;
      auto before = [&](int64_t a, int64_t b) {
        const T va = col[a * inner], vb = col[b * inner];
        if (largest ? Greater(va, vb) : Greater(vb, va)) return true;
        if (largest ? Greater(vb, va) : Greater(va, vb)) return false;
        return a < b;
      };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t out = (o * k + j) * inner + i;
        values[out] = col[order[j] * inner];
        indices[out] = static_cast<I>(order[j]);
      }
    }
  }
  return absl::OkStatus();
}

KernelFactory TopKFactory() {
  return [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const bool largest = AttrOr<bool>(node, "largest", true);
    const int64_t axis_attr = AttrOr<int64_t>(node, "axis", -1);
    return std::make_unique<FnKernel>([=](KernelContext& ctx) -> Status {
      const Tensor& x = ctx.input(0);
      const Shape& s = x.shape();
      const int axis = Canonical(axis_attr, s.rank());
      const int64_t n = s.dim(axis);
      ASSIGN_OR_RETURN(int64_t k, ReadK(ctx, n));
      int64_t outer = 1, inner = 1;
      for (int d = 0; d < axis; ++d) outer *= s.dim(d);
      for (int d = axis + 1; d < s.rank(); ++d) inner *= s.dim(d);
      std::vector<int64_t> dims = s.dims();
      dims[axis] = k;
      ASSIGN_OR_RETURN(Tensor * values, ctx.AllocateOutput(0, Shape(dims)));
      ASSIGN_OR_RETURN(Tensor * indices, ctx.AllocateOutput(1, Shape(dims)));
      if (values->num_elements() == 0) return absl::OkStatus();
      return DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
        if constexpr (std::is_same_v<T, bool>) {
          return ctx.Error("bool is not supported");
        } else {
          if (indices->dtype() == DType::kInt32) {
            return TopK(ctx.cancellation(), x.data<T>(), values->data<T>(),
                        indices->data<int32_t>(), outer, n, inner, k, largest);
          }
          return TopK(ctx.cancellation(), x.data<T>(), values->data<T>(), indices->data<int64_t>(),
                      outer, n, inner, k, largest);
        }
      });
    });
  };
}

Status WhereFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Shape& s = x.shape();
  return DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
    const T* in = x.data<T>();
    const int64_t n = x.num_elements();
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += in[i] != T(0);
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape({count, int64_t{s.rank()}})));
    int64_t* o = out->data<int64_t>();
    std::vector<int64_t> pos(s.rank(), 0);
    for (int64_t i = 0; i < n; ++i) {
      if (in[i] != T(0)) o = std::copy(pos.begin(), pos.end(), o);
      for (int d = s.rank() - 1; d >= 0; --d) {  // odometer increment
        if (++pos[d] < s.dim(d)) break;
        pos[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterSortKernels(KernelRegistry& r) {
  r.Register("TopKV2", kCpu, kArithmeticDTypes, TopKFactory());
  r.Register("Where", kCpu, DType::kInt64, FnKernel::Factory(WhereFn));
}

}  // namespace graphd::executor::cpu
