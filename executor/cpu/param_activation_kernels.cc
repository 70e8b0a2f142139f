// Parameterised activations (core/ops/activation_ops.cc): Elu, Selu, Celu, LeakyRelu,
// HardSigmoid, HardSwish, ThresholdedRelu, Shrink, Softplus, Softsign on float32 and
// float64. float32 tensors of kDnnlMinElements or more run oneDNN eltwise where it has
// the function (LeakyRelu = relu with alpha, Elu, Softplus = soft_relu, HardSwish);
// everything else is a plain loop that polls cancellation between chunks.
// PRelu (float32/64) and ClipByValue (numbers) broadcast their operands to x's shape;
// Hardmax (float32/64) marks the first maximum along its axis (NaN counts as largest,
// as numpy's argmax has it).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/ops/activation_ops.h"
#include "executor/cpu/broadcast.h"
#include "executor/cpu/dispatch.h"
#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"

namespace graphd::executor::cpu {
namespace {

constexpr int64_t kDnnlMinElements = 1024;
constexpr int64_t kChunk = int64_t{1} << 16;

enum class Act { kElu, kSelu, kCelu, kLeakyRelu, kHardSigmoid, kHardSwish, kThresholdedRelu,
                 kShrink, kSoftplus, kSoftsign };

// The node's attributes, read once when the kernel is created.
struct Params {
  double alpha = 0;
  double beta = 0;  // Selu's gamma, HardSigmoid's beta, Shrink's lambd
  double bias = 0;  // Shrink's bias
};

template <typename T>
T Apply(Act act, const Params& p, T x) {
  const T alpha = static_cast<T>(p.alpha), beta = static_cast<T>(p.beta);
  switch (act) {
    case Act::kElu: return x > 0 ? x : alpha * std::expm1(x);
    case Act::kSelu: return beta * (x > 0 ? x : alpha * std::expm1(x));
    case Act::kCelu: return std::max(T(0), x) + std::min(T(0), alpha * std::expm1(x / alpha));
    case Act::kLeakyRelu: return x >= 0 ? x : alpha * x;
    case Act::kHardSigmoid: return std::max(T(0), std::min(T(1), alpha * x + beta));
    case Act::kHardSwish: return x * std::max(T(0), std::min(T(1), x / T(6) + T(0.5)));
    case Act::kThresholdedRelu: return x > alpha ? x : T(0);
    case Act::kShrink: {
      const T bias = static_cast<T>(p.bias);
      return x < -beta ? x + bias : x > beta ? x - bias : T(0);
    }
    case Act::kSoftplus:  // log(1 + e^x) without overflow for large x
      return std::max(x, T(0)) + std::log1p(std::exp(-std::abs(x)));
    case Act::kSoftsign: return x / (T(1) + std::abs(x));
  }
  return x;
}

// The oneDNN eltwise algorithm computing `act`, if there is one.
bool DnnlAlgorithm(Act act, const Params& p, dnnl::algorithm* alg, float* alpha) {
  *alpha = 0.f;
  switch (act) {
    case Act::kLeakyRelu:
      *alg = dnnl::algorithm::eltwise_relu;
      *alpha = static_cast<float>(p.alpha);
      return true;
    case Act::kElu:
      *alg = dnnl::algorithm::eltwise_elu;
      *alpha = static_cast<float>(p.alpha);
      return true;
    case Act::kSoftplus: *alg = dnnl::algorithm::eltwise_soft_relu; return true;
    case Act::kHardSwish: *alg = dnnl::algorithm::eltwise_hardswish; return true;
    default: return false;
  }
}

class ParamActivationKernel : public OpKernel {
 public:
  ParamActivationKernel(Act act, Params params) : act_(act), params_(params) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
    const int64_t n = x.num_elements();
    dnnl::algorithm alg;
    float alpha;
    if (x.dtype() == DType::kFloat32 && n >= kDnnlMinElements &&
        DnnlAlgorithm(act_, params_, &alg, &alpha)) {
      dnnl::memory::desc md = PlainDesc({n});
      dnnl::eltwise_forward prim = cache_.Get({n}, [&] {
        return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
            dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, md, alpha, 0.f),
            PrimitiveAttr(), Engine()));
      });
      RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(md, x)}, {DNNL_ARG_DST, Wrap(md, *y)}}, 2 * n);
      return absl::OkStatus();
    }
    if (x.dtype() == DType::kFloat32) return Loop<float>(ctx, x, *y);
    if (x.dtype() == DType::kFloat64) return Loop<double>(ctx, x, *y);
    return ctx.Error(absl::StrCat("dtype ", DTypeName(x.dtype()), " is not supported"));
  }

 private:
  // The activation is a template argument, so each loop has no switch per element
  // (and the simple ones, HardSigmoid's clamp, vectorise).
  template <typename T, Act A>
  Status LoopOf(KernelContext& ctx, const Tensor& x, Tensor& y) const {
    const T* in = x.data<T>();
    T* out = y.data<T>();
    const int64_t n = x.num_elements();
    for (int64_t start = 0; start < n; start += kChunk) {
      RETURN_IF_ERROR(ctx.cancellation().Check());
      const int64_t end = std::min(n, start + kChunk);
      for (int64_t i = start; i < end; ++i) out[i] = Apply<T>(A, params_, in[i]);
    }
    return absl::OkStatus();
  }

  template <typename T>
  Status Loop(KernelContext& ctx, const Tensor& x, Tensor& y) const {
    switch (act_) {
      case Act::kElu: return LoopOf<T, Act::kElu>(ctx, x, y);
      case Act::kSelu: return LoopOf<T, Act::kSelu>(ctx, x, y);
      case Act::kCelu: return LoopOf<T, Act::kCelu>(ctx, x, y);
      case Act::kLeakyRelu: return LoopOf<T, Act::kLeakyRelu>(ctx, x, y);
      case Act::kHardSigmoid: return LoopOf<T, Act::kHardSigmoid>(ctx, x, y);
      case Act::kHardSwish: return LoopOf<T, Act::kHardSwish>(ctx, x, y);
      case Act::kThresholdedRelu: return LoopOf<T, Act::kThresholdedRelu>(ctx, x, y);
      case Act::kShrink: return LoopOf<T, Act::kShrink>(ctx, x, y);
      case Act::kSoftplus: return LoopOf<T, Act::kSoftplus>(ctx, x, y);
      case Act::kSoftsign: return LoopOf<T, Act::kSoftsign>(ctx, x, y);
    }
    return ctx.Error("unknown activation");
  }

  const Act act_;
  const Params params_;
  PrimitiveCache<dnnl::eltwise_forward> cache_;
};

// A factory reading the node's attributes: `alpha`, `beta` and `bias` name the
// attributes stored in Params (nullptr: unused), with their defaults.
KernelFactory Factory(Act act, const char* alpha = nullptr, double alpha_default = 0,
                      const char* beta = nullptr, double beta_default = 0,
                      const char* bias = nullptr, double bias_default = 0) {
  return [=](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    Params p;
    if (alpha != nullptr) p.alpha = NumberAttrOr(node, alpha, alpha_default);
    if (beta != nullptr) p.beta = NumberAttrOr(node, beta, beta_default);
    if (bias != nullptr) p.bias = NumberAttrOr(node, bias, bias_default);
    return std::make_unique<ParamActivationKernel>(act, p);
  };
}

// Runtime check of what inference could not see through unknown dims: `operand`
// broadcasts to `x` without changing x's shape.
Status CheckBroadcastsTo(KernelContext& ctx, const Shape& operand, const Shape& x) {
  auto b = BroadcastShapes(x, operand);
  if (!b.ok() || b->ToShape() != x) {
    return ctx.Error(absl::StrCat("operand ", operand.ToString(), " does not broadcast to ",
                                  x.ToString()));
  }
  return absl::OkStatus();
}

Status PReluFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& slope = ctx.input(1);
  RETURN_IF_ERROR(CheckBroadcastsTo(ctx, slope.shape(), x.shape()));
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
  auto run = [&]<typename T>() {
    return BroadcastApply<T, T, T>(
        x, slope, *y, [](T v, T s) { return v >= 0 ? v : s * v; }, &ctx.cancellation());
  };
  if (x.dtype() == DType::kFloat32) return run.template operator()<float>();
  if (x.dtype() == DType::kFloat64) return run.template operator()<double>();
  return ctx.Error(absl::StrCat("dtype ", DTypeName(x.dtype()), " is not supported"));
}

Status ClipByValueFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& lo = ctx.input(1);
  const Tensor& hi = ctx.input(2);
  RETURN_IF_ERROR(CheckBroadcastsTo(ctx, lo.shape(), x.shape()));
  RETURN_IF_ERROR(CheckBroadcastsTo(ctx, hi.shape(), x.shape()));
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
  return DispatchNumeric(x.dtype(), [&]<typename T>() -> Status {
    if constexpr (std::is_same_v<T, bool>) {
      return ctx.Error("bool is not supported");
    } else {
      const CancellationToken* token = &ctx.cancellation();
      auto lower = [](T v, T l) { return std::max(v, l); };
      RETURN_IF_ERROR((BroadcastApply<T, T, T>(x, lo, *y, lower, token)));
      // In place: y's element i is read only to produce element i.
      return BroadcastApply<T, T, T>(
          *y, hi, *y, [](T v, T h) { return std::min(v, h); }, token);
    }
  });
}

template <typename T>
void Hardmax(const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* xb = x + o * n * inner;
    T* yb = y + o * n * inner;
    std::fill(yb, yb + n * inner, T(0));
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      for (int64_t j = 1; j < n; ++j) {
        const T v = xb[j * inner + i], b = xb[best * inner + i];
        if (!std::isnan(b) && (v > b || std::isnan(v))) best = j;
      }
      if (n > 0) yb[best * inner + i] = T(1);
    }
  }
}

Status HardmaxFn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Shape& s = x.shape();
  const int axis = Canonical(AttrOr<int64_t>(ctx.node(), "axis", -1), s.rank());
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s.dim(d);
  for (int d = axis + 1; d < s.rank(); ++d) inner *= s.dim(d);
  ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, s));
  if (x.num_elements() == 0) return absl::OkStatus();
  if (x.dtype() == DType::kFloat32) {
    Hardmax(x.data<float>(), y->data<float>(), outer, s.dim(axis), inner);
  } else if (x.dtype() == DType::kFloat64) {
    Hardmax(x.data<double>(), y->data<double>(), outer, s.dim(axis), inner);
  } else {
    return ctx.Error(absl::StrCat("dtype ", DTypeName(x.dtype()), " is not supported"));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterParamActivationKernels(KernelRegistry& r) {
  const auto dtypes = {DType::kFloat32, DType::kFloat64};
  r.Register("Elu", kCpu, dtypes, Factory(Act::kElu, "alpha", ops::kEluAlpha));
  r.Register("Selu", kCpu, dtypes,
             Factory(Act::kSelu, "alpha", ops::kSeluAlpha, "gamma", ops::kSeluGamma));
  r.Register("Celu", kCpu, dtypes, Factory(Act::kCelu, "alpha", ops::kCeluAlpha));
  r.Register("LeakyRelu", kCpu, dtypes, Factory(Act::kLeakyRelu, "alpha", ops::kLeakyReluAlpha));
  r.Register("HardSigmoid", kCpu, dtypes,
             Factory(Act::kHardSigmoid, "alpha", ops::kHardSigmoidAlpha, "beta",
                     ops::kHardSigmoidBeta));
  r.Register("HardSwish", kCpu, dtypes, Factory(Act::kHardSwish));
  r.Register("ThresholdedRelu", kCpu, dtypes,
             Factory(Act::kThresholdedRelu, "alpha", ops::kThresholdedReluAlpha));
  r.Register("Shrink", kCpu, dtypes,
             Factory(Act::kShrink, nullptr, 0, "lambd", ops::kShrinkLambd, "bias",
                     ops::kShrinkBias));
  r.Register("Softplus", kCpu, dtypes, Factory(Act::kSoftplus));
  r.Register("Softsign", kCpu, dtypes, Factory(Act::kSoftsign));
  r.Register("PRelu", kCpu, dtypes, FnKernel::Factory(PReluFn));
  r.Register("Hardmax", kCpu, dtypes, FnKernel::Factory(HardmaxFn));
  r.Register("ClipByValue", kCpu, kArithmeticDTypes, FnKernel::Factory(ClipByValueFn));
}

}  // namespace graphd::executor::cpu
