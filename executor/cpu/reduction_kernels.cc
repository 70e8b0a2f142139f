// Sum, Mean, Max, Min, Prod (numbers) and Any, All (bools) over a set of axes (attr
// `axis`, int or list, absent = all), with keep_dims; SumToShapeOf (axes from the
// run's shapes). float32 reductions over one block of axes run reduce_block.h's loops
// (sums and means with kept axes after it: oneDNN 2.6 has only its reference
// reduction there; maxima and minima always: a NaN gives NaN, as in TensorFlow, which
// oneDNN's do not); other float32 reductions oneDNN's reduction when large enough; a
// strided loop otherwise (NaN-propagating maxima and minima too).
#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>

#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/nan_min_max.h"
#include "executor/cpu/reduce_block.h"
#include "executor/cpu/wrap_math.h"

namespace graphd::executor::cpu {
namespace {

enum class Reduce { kSum, kMean, kMax, kMin, kProd, kAny, kAll };
constexpr int64_t kDnnlMinElements = 4096;

class ReductionKernel : public OpKernel {
 public:
  ReductionKernel(Reduce kind, std::vector<int64_t> axes, bool all, bool keep)
      : kind_(kind), axes_(std::move(axes)), all_(all), keep_(keep) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    int rank = x.shape().rank();
    std::vector<bool> reduced(rank, all_);
    for (int64_t a : axes_) {
      if (a < -rank || a >= rank) return ctx.Error(absl::StrCat("axis ", a, " out of range"));
      reduced[a < 0 ? a + rank : a] = true;
    }
    std::vector<int64_t> kept_dims, out_dims;  // kept_dims: reduced dims as 1
    bool shrinks = false;  // oneDNN rejects a reduction whose dst dims equal its src dims
    for (int i = 0; i < rank; ++i) {
      kept_dims.push_back(reduced[i] ? 1 : x.shape().dim(i));
      if (!reduced[i]) out_dims.push_back(x.shape().dim(i));
      shrinks |= kept_dims.back() != x.shape().dim(i);
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0, Shape(keep_ ? kept_dims : out_dims)));
    const bool min_max = kind_ == Reduce::kMax || kind_ == Reduce::kMin;
    if (x.dtype() == DType::kFloat32 && x.num_elements() > 0) {
      // One block [a0, a1) of reduced axes (with kept axes after it or not): x as
      // [outer, rows, inner].
      int a0 = 0;
      while (a0 < rank && !reduced[a0]) ++a0;
      int a1 = a0;
      while (a1 < rank && reduced[a1]) ++a1;
      bool one_block = a0 < rank;
      for (int i = a1; i < rank; ++i) one_block = one_block && !reduced[i];
      int64_t outer = 1, rows = 1, inner = 1;
      for (int i = 0; i < rank; ++i) (i < a0 ? outer : i < a1 ? rows : inner) *= x.shape().dim(i);
      if (one_block && inner > 1 && rows > 1 && (kind_ == Reduce::kSum || kind_ == Reduce::kMean)) {
        SumMiddle(x.data<float>(), outer, rows, inner, kind_ == Reduce::kMean ? 1.0 / static_cast<double>(rows) : 1.0,
                  out->data<float>());
        return absl::OkStatus();
      }
      if (one_block && min_max) {
        MinMaxMiddle(kind_ == Reduce::kMax, x.data<float>(), outer, rows, inner, out->data<float>());
        return absl::OkStatus();
      }
    }
    // Never oneDNN's max or min: they drop NaNs (reduce_block.h).
    if (x.dtype() == DType::kFloat32 && x.num_elements() >= kDnnlMinElements && shrinks && !min_max &&
        RunDnnl(x, kept_dims, *out)) {
      return absl::OkStatus();
    }
    return DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
      if constexpr (std::is_same_v<T, bool>) {
        if (kind_ != Reduce::kAny && kind_ != Reduce::kAll) {
          return ctx.Error("bool tensors cannot be reduced");
        }
      }
      return Loop<T>(x, kept_dims, *out, ctx.cancellation());
    });
  }

 private:
  template <typename T>
  Status Loop(const Tensor& x, const std::vector<int64_t>& kept_dims, Tensor& out,
              const CancellationToken& token) const {
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
    int rank = x.shape().rank();
    int64_t n_out = out.num_elements();
    // Identities as in TensorFlow: max of nothing is -inf (lowest() for integers), min
    // of nothing +inf (max()), product 1, any false, all true.
    Acc identity{0};
    switch (kind_) {
      case Reduce::kMax:
        identity = std::numeric_limits<T>::has_infinity
                       ? -static_cast<Acc>(std::numeric_limits<T>::infinity())
                       : static_cast<Acc>(std::numeric_limits<T>::lowest());
        break;
      case Reduce::kMin:
        identity = std::numeric_limits<T>::has_infinity
                       ? static_cast<Acc>(std::numeric_limits<T>::infinity())
                       : static_cast<Acc>(std::numeric_limits<T>::max());
        break;
      case Reduce::kProd:
      case Reduce::kAll: identity = 1; break;
      default: break;
    }
    auto combine = [kind = kind_](Acc a, Acc v) -> Acc {
      switch (kind) {
        case Reduce::kMax: return MaxNaN(a, v);
        case Reduce::kMin: return MinNaN(a, v);
        case Reduce::kProd:
          if constexpr (std::is_integral_v<Acc>) {  // wraps like T's own arithmetic
            return static_cast<Acc>(static_cast<uint64_t>(a) * static_cast<uint64_t>(v));
          } else {
            return a * v;
          }
        case Reduce::kAny: return (a != 0) || (v != 0);
        case Reduce::kAll: return (a != 0) && (v != 0);
        default: return WrapAdd(a, v);
      }
    };
    std::vector<Acc> acc(n_out, identity);
    // Output strides over the input's index space (0 on reduced dims).
    std::vector<int64_t> ostride(rank, 0);
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
      ostride[i] = kept_dims[i] == 1 && x.shape().dim(i) != 1 ? 0 : s;
      s *= kept_dims[i];
    }
    std::vector<int64_t> index(rank, 0);
    const T* px = x.data<T>();
    int64_t o = 0, n = x.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      if (i % (int64_t{1} << 16) == 0) RETURN_IF_ERROR(token.Check());
      Acc v = static_cast<Acc>(px[i]);
      acc[o] = combine(acc[o], v);
      for (int d = rank - 1; d >= 0; --d) {
        o += ostride[d];
        if (++index[d] < x.shape().dim(d)) break;
        o -= ostride[d] * x.shape().dim(d);
        index[d] = 0;
      }
    }
    int64_t count = n_out == 0 ? 0 : n / std::max<int64_t>(n_out, 1);
    T* po = out.data<T>();
    for (int64_t i = 0; i < n_out; ++i) {
      if (kind_ != Reduce::kMean) {
        po[i] = static_cast<T>(acc[i]);
      } else if (count > 0) {
        po[i] = static_cast<T>(acc[i] / static_cast<Acc>(count));
      } else {  // the mean of nothing: NaN for floats, 0 for integers
        po[i] = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T{};
      }
    }
    return absl::OkStatus();
  }

  // False where oneDNN has only its reference reduction (a sum or product over axes 0
  // and 2 of three): the strided loop is several times faster.
  bool RunDnnl(const Tensor& x, const std::vector<int64_t>& kept_dims, Tensor& out) {
    dnnl::memory::dims src = DnnlDims(x.shape());
    dnnl::memory::dims dst = kept_dims.empty() ? dnnl::memory::dims{1}
                                               : dnnl::memory::dims(kept_dims.begin(), kept_dims.end());
    auto alg = kind_ == Reduce::kSum    ? dnnl::algorithm::reduction_sum
               : kind_ == Reduce::kMean ? dnnl::algorithm::reduction_mean
                                        : dnnl::algorithm::reduction_mul;
    std::vector<int64_t> key = src;
    key.insert(key.end(), dst.begin(), dst.end());
    std::optional<dnnl::reduction> prim = cache_.Get(key, [&]() -> std::optional<dnnl::reduction> {
      dnnl::reduction::primitive_desc pd(dnnl::reduction::desc(alg, PlainDesc(src), PlainDesc(dst), 0.f, 0.f),
                                         PrimitiveAttr(), Engine());
      if (IsReference(pd)) return std::nullopt;
      return dnnl::reduction(pd);
    });
    if (!prim.has_value()) return false;
    RunPrimitive(*prim, {{DNNL_ARG_SRC, Wrap(PlainDesc(src), x)}, {DNNL_ARG_DST, Wrap(PlainDesc(dst), out)}},
                 x.num_elements() + out.num_elements());
    return true;
  }

  Reduce kind_;
  std::vector<int64_t> axes_;
  bool all_, keep_;
  PrimitiveCache<std::optional<dnnl::reduction>> cache_;  // nullopt: oneDNN's reference only
};

// SumToShapeOf(g, like): the axes come from the run's shapes.
Status SumToShapeOf(KernelContext& ctx) {
  const Tensor& g = ctx.input(0);
  const Shape& like = ctx.input(1).shape();
  const int rank = g.shape().rank(), lead = rank - like.rank();
  if (lead < 0) return ctx.Error("cannot sum " + g.shape().ToString() + " to the larger rank of " + like.ToString());
  std::vector<int64_t> axes;
  for (int i = 0; i < rank; ++i) {
    const int64_t have = g.shape().dim(i);
    if (i < lead || (like.dim(i - lead) == 1 && have != 1)) {
      axes.push_back(i);
    } else if (like.dim(i - lead) != have) {
      return ctx.Error("shape " + g.shape().ToString() + " is not a broadcast of " + like.ToString());
    }
  }
  if (!axes.empty()) {
    ReductionKernel sum(Reduce::kSum, std::move(axes), false, /*keep=*/true);
    RETURN_IF_ERROR(sum.Compute(ctx));
  } else {
    ctx.set_output(0, g);
  }
  auto shaped = ctx.output_slot(0)->Reshaped(like);
  if (!shaped.ok()) return ctx.Error(shaped.status());
  ctx.set_output(0, *std::move(shaped));
  return absl::OkStatus();
}

KernelFactory Factory(Reduce kind) {
  return [kind](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    auto axis = node.attrs().find("axis");
    auto keep = node.attrs().find("keep_dims");
    bool all = axis == node.attrs().end();
    std::vector<int64_t> axes;
    if (!all) {
      if (const int64_t* one = std::get_if<int64_t>(&axis->second)) {
        axes = {*one};
      } else {
        axes = std::get<IntList>(axis->second);
      }
    }
    return std::make_unique<ReductionKernel>(kind, std::move(axes), all,
                                             keep != node.attrs().end() && std::get<bool>(keep->second));
  };
}

}  // namespace

void RegisterReductionKernels(KernelRegistry& r) {
  r.Register("Sum", kCpu, kArithmeticDTypes, Factory(Reduce::kSum));
  r.Register("SumToShapeOf", kCpu, kArithmeticDTypes, FnKernel::Factory(SumToShapeOf));
  r.Register("Mean", kCpu, kArithmeticDTypes, Factory(Reduce::kMean));
  r.Register("Max", kCpu, kArithmeticDTypes, Factory(Reduce::kMax));
  r.Register("Min", kCpu, kArithmeticDTypes, Factory(Reduce::kMin));
  r.Register("Prod", kCpu, kArithmeticDTypes, Factory(Reduce::kProd));
  r.Register("Any", kCpu, DType::kBool, Factory(Reduce::kAny));
  r.Register("All", kCpu, DType::kBool, Factory(Reduce::kAll));
}

}  // namespace graphd::executor::cpu
