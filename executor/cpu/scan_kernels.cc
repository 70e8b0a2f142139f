// ArgMax / ArgMin over one axis (first index of the extreme value) and Cumsum (with
// exclusive and reverse; axis an attribute or a run-time input), as loops over an
// [outer, n, inner] view of the input.
#include <type_traits>

#include "executor/cpu/dispatch.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/wrap_math.h"

namespace graphd::executor::cpu {
namespace {

// outer / n / inner sizes of `shape` around `axis`.
void Split3(const Shape& shape, int axis, int64_t* outer, int64_t* n, int64_t* inner) {
  *outer = *inner = 1;
  for (int i = 0; i < axis; ++i) *outer *= shape.dim(i);
  *n = shape.dim(axis);
  for (int i = axis + 1; i < shape.rank(); ++i) *inner *= shape.dim(i);
}

Status CheckAxis(KernelContext& ctx, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(absl::StrCat("axis ", axis, " is out of range for a tensor of rank ", rank));
  }
  return absl::OkStatus();
}

template <bool kMax>
Status ArgReduce(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int64_t axis_attr = AttrOr<int64_t>(ctx.node(), "axis", 0);
  RETURN_IF_ERROR(CheckAxis(ctx, axis_attr, x.shape().rank()));
  const int axis = Canonical(axis_attr, x.shape().rank());
  int64_t outer, n, inner;
  Split3(x.shape(), axis, &outer, &n, &inner);
  std::vector<int64_t> dims = x.shape().dims();
  dims.erase(dims.begin() + axis);
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(dims)));
  if (out->num_elements() == 0) return absl::OkStatus();
  if (n == 0) {
    return ctx.Error(absl::StrCat("cannot reduce over axis ", axis_attr,
                                  ", which is empty in shape ", x.shape().ToString()));
  }
  return DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
    const T* px = x.data<T>();
    std::vector<int64_t> best(static_cast<size_t>(inner));
    for (int64_t o = 0; o < outer; ++o) {
      RETURN_IF_ERROR(ctx.cancellation().Check());
      const T* base = px + o * n * inner;
      std::fill(best.begin(), best.end(), 0);
      for (int64_t j = 1; j < n; ++j) {
        const T* row = base + j * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const T cur = base[best[i] * inner + i];
          if (kMax ? row[i] > cur : row[i] < cur) best[i] = j;
        }
      }
      for (int64_t i = 0; i < inner; ++i) {
        if (out->dtype() == DType::kInt32) {
          out->data<int32_t>()[o * inner + i] = static_cast<int32_t>(best[i]);
        } else {
          out->data<int64_t>()[o * inner + i] = best[i];
        }
      }
    }
    return absl::OkStatus();
  });
}

Status CumsumFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int64_t axis_attr = AttrOr<int64_t>(ctx.node(), "axis", 0);
  if (ctx.num_inputs() == 2) {  // the axis as a run-time value
    const Tensor& a = ctx.input(1);
    if (a.num_elements() != 1) {
      return ctx.Error(absl::StrCat("axis must be a scalar, got shape ", a.shape().ToString()));
    }
    axis_attr = a.dtype() == DType::kInt32 ? int64_t{a.data<int32_t>()[0]} : a.data<int64_t>()[0];
  }
  const bool exclusive = AttrOr<bool>(ctx.node(), "exclusive", false);
  const bool reverse = AttrOr<bool>(ctx.node(), "reverse", false);
  RETURN_IF_ERROR(CheckAxis(ctx, axis_attr, x.shape().rank()));
  int64_t outer, n, inner;
  Split3(x.shape(), Canonical(axis_attr, x.shape().rank()), &outer, &n, &inner);
  ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, x.shape()));
  if (x.num_elements() == 0) return absl::OkStatus();
  return DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
    if constexpr (std::is_same_v<T, bool>) {
      return ctx.Error("bool is not supported");
    } else {
      const T* px = x.data<T>();
      T* po = out->data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        RETURN_IF_ERROR(ctx.cancellation().Check());
        const T* xb = px + o * n * inner;
        T* ob = po + o * n * inner;
        for (int64_t step = 0; step < n; ++step) {
          const int64_t j = reverse ? n - 1 - step : step;
          const int64_t prev = reverse ? j + 1 : j - 1;  // the row before j in scan order
          T* row = ob + j * inner;
          for (int64_t i = 0; i < inner; ++i) {
            if (step == 0) {
              row[i] = exclusive ? T(0) : xb[j * inner + i];
            } else {
              row[i] = WrapAdd(ob[prev * inner + i], xb[(exclusive ? prev : j) * inner + i]);
            }
          }
        }
      }
      return absl::OkStatus();
    }
  });
}

// ArgMax/ArgMin are keyed by their index dtype; the input's dtype is checked when the
// plan is built, so an input the CPU cannot compute in fails there, not mid-run.
template <bool kMax>
KernelFactory ArgFactory() {
  return [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    const DType in = node.inputs()[0].node->output(node.inputs()[0].index).dtype;
    for (DType d : kArithmeticDTypes) {
      if (d == in) return std::make_unique<FnKernel>(ArgReduce<kMax>);
    }
    return errors::Unimplemented(absl::StrCat("no CPU kernel for ", node.op_name(), " on ",
                                              DTypeName(in), " inputs"));
  };
}

}  // namespace

void RegisterScanKernels(KernelRegistry& r) {
  r.Register("ArgMax", kCpu, {DType::kInt32, DType::kInt64}, ArgFactory<true>());
  r.Register("ArgMin", kCpu, {DType::kInt32, DType::kInt64}, ArgFactory<false>());
  r.Register("Cumsum", kCpu, kArithmeticDTypes, FnKernel::Factory(CumsumFn));
}

}  // namespace graphd::executor::cpu
