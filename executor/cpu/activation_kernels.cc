// Relu, Relu6, Sigmoid, Tanh, Gelu (erf or tanh approximation), Softmax and LogSoftmax
// (last axis): oneDNN for float32 (softmaxes: softmax_rows.h's loops, which keep
// NaN; Sigmoid: swish.h's), loops for float64 and tiny tensors.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "executor/cpu/dnnl_util.h"
#include "executor/cpu/kernels.h"
#include "executor/cpu/node_attrs.h"
#include "executor/cpu/softmax_rows.h"
#include "executor/cpu/swish.h"

namespace graphd::executor::cpu {
namespace {

enum class Act { kRelu, kRelu6, kSigmoid, kTanh, kGeluErf, kGeluTanh, kSoftmax, kLogSoftmax };

template <typename T>
void Reference(Act act, const T* x, T* y, int64_t n, int64_t inner) {
  switch (act) {
    case Act::kRelu:
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : T(0);
      break;
    case Act::kRelu6:
      for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(x[i], T(0)), T(6));
      break;
    case Act::kGeluErf:
      for (int64_t i = 0; i < n; ++i) y[i] = T(0.5) * x[i] * (T(1) + std::erf(x[i] / std::sqrt(T(2))));
      break;
    case Act::kGeluTanh: {
      const T k = std::sqrt(T(2) / std::numbers::pi_v<T>);
      for (int64_t i = 0; i < n; ++i) {
        y[i] = T(0.5) * x[i] * (T(1) + std::tanh(k * (x[i] + T(0.044715) * x[i] * x[i] * x[i])));
      }
      break;
    }
    case Act::kSigmoid:
      for (int64_t i = 0; i < n; ++i) y[i] = T(1) / (T(1) + std::exp(-x[i]));
      break;
    case Act::kTanh:
      for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
      break;
    case Act::kSoftmax:
      for (int64_t row = 0; row < n / inner; ++row) {
        const T* xr = x + row * inner;
        T* yr = y + row * inner;
        T mx = *std::max_element(xr, xr + inner);
        T sum = 0;
        for (int64_t i = 0; i < inner; ++i) sum += (yr[i] = std::exp(xr[i] - mx));
        for (int64_t i = 0; i < inner; ++i) yr[i] /= sum;
      }
      break;
    case Act::kLogSoftmax:
      for (int64_t row = 0; row < n / inner; ++row) {
        const T* xr = x + row * inner;
        T* yr = y + row * inner;
        T mx = *std::max_element(xr, xr + inner);
        T sum = 0;
        for (int64_t i = 0; i < inner; ++i) sum += std::exp(xr[i] - mx);
        T log_sum = std::log(sum);
        for (int64_t i = 0; i < inner; ++i) yr[i] = xr[i] - mx - log_sum;
      }
      break;
  }
}

class ActivationKernel : public OpKernel {
 public:
  explicit ActivationKernel(Act act) : act_(act) {}

  Status Compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, x.shape()));
    int64_t n = x.num_elements();
    if (n == 0) return absl::OkStatus();
    int64_t inner = x.shape().rank() > 0 ? x.shape().dim(x.shape().rank() - 1) : 1;
    if (x.dtype() == DType::kFloat64) {
      Reference(act_, x.data<double>(), y->data<double>(), n, inner);
    } else if (act_ == Act::kSoftmax || act_ == Act::kLogSoftmax) {
      RunSoftmaxRows({.x = x.data<float>(), .y = y->data<float>(), .rows = n / inner, .inner = inner,
                      .log = act_ == Act::kLogSoftmax});
    } else if (act_ == Act::kSigmoid) {
      Sigmoid(x.data<float>(), y->data<float>(), n);
    } else if (n < 64) {  // oneDNN's call overhead dominates tiny tensors
      Reference(act_, x.data<float>(), y->data<float>(), n, inner);
    } else {
      RunDnnl(x, *y);
    }
    return absl::OkStatus();
  }

 private:
  void RunDnnl(const Tensor& x, Tensor& y) {
    dnnl::memory::dims dims = DnnlDims(x.shape());
    dnnl::memory::desc md = PlainDesc(dims);
    dnnl::primitive prim = cache_.Get(dims, [&]() -> dnnl::primitive {
      auto inference = dnnl::prop_kind::forward_inference;
      float alpha = 0.f, beta = 0.f;
      dnnl::algorithm alg = dnnl::algorithm::eltwise_relu;
      switch (act_) {
        case Act::kRelu6: alg = dnnl::algorithm::eltwise_clip; beta = 6.f; break;
        case Act::kSigmoid: alg = dnnl::algorithm::eltwise_logistic; break;
        case Act::kTanh: alg = dnnl::algorithm::eltwise_tanh; break;
        case Act::kGeluErf: alg = dnnl::algorithm::eltwise_gelu_erf; break;
        case Act::kGeluTanh: alg = dnnl::algorithm::eltwise_gelu_tanh; break;
        default: break;
      }
      return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(
          dnnl::eltwise_forward::desc(inference, alg, md, alpha, beta), PrimitiveAttr(), Engine()));
    });
    RunPrimitive(prim, {{DNNL_ARG_SRC, Wrap(md, x)}, {DNNL_ARG_DST, Wrap(md, y)}}, 2 * x.num_elements());
  }

  Act act_;
  PrimitiveCache<dnnl::primitive> cache_;
};

KernelFactory Factory(Act act) {
  return [act](const Node&) -> StatusOr<std::unique_ptr<OpKernel>> {
    return std::make_unique<ActivationKernel>(act);
  };
}

}  // namespace

void RegisterActivationKernels(KernelRegistry& r) {
  const auto dtypes = {DType::kFloat32, DType::kFloat64};
  r.Register("Relu", kCpu, dtypes, Factory(Act::kRelu));
  r.Register("Sigmoid", kCpu, dtypes, Factory(Act::kSigmoid));
  r.Register("Tanh", kCpu, dtypes, Factory(Act::kTanh));
  r.Register("Softmax", kCpu, dtypes, Factory(Act::kSoftmax));
  r.Register("Relu6", kCpu, dtypes, Factory(Act::kRelu6));
  r.Register("LogSoftmax", kCpu, dtypes, Factory(Act::kLogSoftmax));
  r.Register("Gelu", kCpu, dtypes, [](const Node& node) -> StatusOr<std::unique_ptr<OpKernel>> {
    return std::make_unique<ActivationKernel>(AttrOr<bool>(node, "approximate", false)
                                                  ? Act::kGeluTanh
                                                  : Act::kGeluErf);
  });
}

}  // namespace graphd::executor::cpu
