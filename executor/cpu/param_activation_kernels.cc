// Parameterised activations (core/ops/activation_ops.cc): Elu, Selu, Celu, LeakyRelu,
// HardSigmoid, HardSwish, ThresholdedRelu, Shrink, Softplus, Softsign on float32 and
// float64. float32 tensors of kDnnlMinElements or more run oneDNN eltwise where it has
// the function (LeakyRelu = relu with alpha, Elu, Softplus = soft_relu, HardSwish);
// everything else is a plain loop that polls cancellation between chunks.
#include <algorithm>
#include <cmath>

#include "core/ops/activation_ops.h"
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
      RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(md, x)}, {DNNL_ARG_DST, Wrap(md, *y)}});
      return absl::OkStatus();
    }
    if (x.dtype() == DType::kFloat32) return Loop<float>(ctx, x, *y);
    if (x.dtype() == DType::kFloat64) return Loop<double>(ctx, x, *y);
    return ctx.Error(absl::StrCat("dtype ", DTypeName(x.dtype()), " is not supported"));
  }

 private:
  template <typename T>
  Status Loop(KernelContext& ctx, const Tensor& x, Tensor& y) const {
    const T* in = x.data<T>();
    T* out = y.data<T>();
    const int64_t n = x.num_elements();
    for (int64_t start = 0; start < n; start += kChunk) {
      RETURN_IF_ERROR(ctx.cancellation().Check());
      const int64_t end = std::min(n, start + kChunk);
      for (int64_t i = start; i < end; ++i) out[i] = Apply<T>(act_, params_, in[i]);
    }
    return absl::OkStatus();
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
}

}  // namespace graphd::executor::cpu
